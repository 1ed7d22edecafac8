#!/bin/bash
# Guest half of test-vm-tui.sh: drive the wizard in tmux through an online conversion of
# /dev/vda2 with the benchmark before and after, leave it in the background, come back to
# the results, then verify the data through a fresh dm-crypt mapping.
set -euo pipefail
fdewiz=$1
work=$2
srcdir=$3
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
export TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/cryptsetup /run/tmux /mnt/vol
# shellcheck disable=SC1091 # the source tree is an argument
. "$srcdir/tests/lib/tmux.sh"
srv="fdewiz-vm-tui"
pass="vm tui passphrase, long enough"
t0=$(date +%s)
step() { echo "tui: [$(($(date +%s) - t0)) s] $*"; }
die()
{
	echo "tui: FAIL: $*"
	echo "tui: the screen:"
	tmux_capture "$srv" 2>/dev/null | sed 's/^/    | /' || true
	exit 1
}
# Only tmux's own waits print the screen; a failed wait ends the script through die.
wait_for() { tmux_wait_for "$srv" "$1" "$2" || die "'$1' did not appear within $2 s"; }
shows() { tmux_capture "$srv" -J | grep -qF -- "$1"; }
percent() { tmux_capture "$srv" | grep -oE '[0-9]+\.[0-9]%' | head -1 | tr -d % || true; }
# print_capture NAME: the screen between marker lines, for the host to show and check.
print_capture()
{
	echo "CAPTURE-$1-BEGIN"
	tmux_capture "$srv"
	echo "CAPTURE-$1-END"
}
start()
{
	tmux_stop "$srv"
	tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$FDEWIZ_STATE_DIR" \
		FDEWIZ_TEST_FAST_PBKDF=1 FDEWIZ_TEST_BENCH_SCALE=tiny DM_DISABLE_UDEV=1 \
		"$fdewiz" /dev/vda
}
trap 'tmux_stop "$srv"' EXIT

# 1. The disks: Data is eligible and chosen.
step "start the wizard on /dev/vda"
start
wait_for "Choose a partition" 120
tmux_capture "$srv" | grep -qE '2 Data .*yes \(shrink\)' || die "Data is not offered"
tmux_select "$srv" '2 Data' || die "cannot select Data"
tmux_send "$srv" Enter

# 2. The plan: the baseline benchmark stays on; no boot entries (not this test's subject).
wait_for "Plan for /dev/vda2" 120
shows "[x] Measure the speed before and after" || die "the benchmark is not on by default"
if shows "[x] Open this volume at boot"; then
	tmux_send "$srv" Tab
	tmux_send "$srv" Space
	wait_for "[ ] Open this volume at boot" 20
fi
step "plan shown; benchmark on; measuring for the prediction"
# The prediction is measured (reading only) before going on, so the results have it.
wait_for "CPU: about" 300
s=$(tmux_capture "$srv" -J)
grep -qE 'SEQ1M Q8T1 read +[0-9]+ -> [0-9]+ MB/s' <<<"$s" || die "plan: no prediction line"
grep -qE 'Reading large files' <<<"$s" || die "plan: no prediction sentence"
grep -qE '\(\*\) .*-bit key +.*recommended' <<<"$s" || die "plan: recommendation not marked"
step "prediction shown"
print_capture PLAN
tmux_send "$srv" Enter

# 3. The passphrase twice, then the typed confirmation.
wait_for "Choose the passphrase" 30
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
shows "$pass" && die "the passphrase is on the screen"
tmux_send "$srv" Enter
wait_for "Type YES" 30
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter

# 4. The baseline benchmark on the plain filesystem, then the online conversion.
wait_for "Phase: benchmarking" 120
step "baseline benchmark running"
wait_for "State: running" 1200
step "conversion running"
p1=
for _ in $(seq 1 600); do
	p1=$(percent)
	[ -n "$p1" ] && break
	sleep 0.2
done
[ -n "$p1" ] || die "no percent on the progress screen"
names=$(compgen -G "/dev/mapper/fdewiz-*" || true)
[ -n "$names" ] || die "no /dev/mapper/fdewiz-* while it converts: not online"
p2=$p1
for _ in $(seq 1 1200); do
	p2=$(percent)
	[ -n "$p2" ] && awk -v a="$p2" -v b="$p1" 'BEGIN { exit !(a > b) }' && break
	sleep 0.1
done
awk -v a="$p2" -v b="$p1" 'BEGIN { exit !(a > b) }' || die "percent did not rise from $p1"
step "percent $p1% -> $p2%, open as $names"
print_capture PROGRESS

# 5. Into the background; status agrees; a new start shows the progress at once.
tmux_send "$srv" b
tmux_wait_exit "$srv" 60 || die "b did not quit the wizard"
[ "$(tmux_exit_status "$srv")" = 0 ] || die "b: exit status $(tmux_exit_status "$srv")"
tmux_capture "$srv" -J -S - | grep -qF "continues in the background" ||
	die "b did not say it continues"
st=$("$fdewiz" status /dev/vda2) || die "fdewiz status"
while read -r l; do echo "tui: status: $l"; done <<<"$st"
grep -qi running <<<"$st" || die "fdewiz status does not say running"
state=$("$fdewiz" status --json /dev/vda2 | jq -r '.conversions[0].state')
[ "$state" = running ] || die "status --json state is $state, not running"
step "left in the background; status: $state"

start
wait_for "Encrypting /dev/vda2" 120
shows "Choose a partition" && die "second start showed the disks, not the progress"
step "second start: progress screen"

# 6. The after-benchmark on the opened dm-crypt volume, then the results.
seen=
for _ in $(seq 1 12000); do
	if shows "Phase: benchmarking"; then
		seen=1
		break
	fi
	shows "Results for /dev/vda2" && break
	sleep 0.1
done
[ -n "$seen" ] || die "the after-benchmark phase was never shown"
step "after-benchmark running"
print_capture AFTER
wait_for "Results for /dev/vda2" 1800
step "results shown"
sleep 1
print_capture RESULTS
s=$(tmux_capture "$srv")
for want in "is encrypted (LUKS2" "SEQ1M Q1T1 read" "RND4K Q1T1 write" \
	"plain" "encrypted" "Saved: "; do
	grep -qF -- "$want" <<<"$s" || die "results: no '$want'"
done
grep -qE '[0-9]+\.[0-9]% (slower|faster)' <<<"$s" || die "results: no percent"
grep -qE 'measured +predicted$' <<<"$s" || die "results: no measured/predicted columns"
grep -qE 'encrypted .* [0-9.]+ (MB/s|IOPS) +[0-9.]+ (MB/s|IOPS)$' <<<"$s" ||
	die "results: no prediction beside a measured encrypted figure"
grep -qF "Predicted before the conversion: within" <<<"$s" ||
	die "results: no word on how far the prediction was"
grep -q "Only the baseline" <<<"$s" && die "results: the after-benchmark is missing"
tmux_send "$srv" q
tmux_wait_exit "$srv" 60 || die "q did not quit"
[ "$(tmux_exit_status "$srv")" = 0 ] || die "q: exit status $(tmux_exit_status "$srv")"
tmux_stop "$srv"

# 7. The record, then the data: a fresh open, fsck, every file.
job=$(ls "$FDEWIZ_STATE_DIR"/jobs/*.json)
read -r name before after predicted < \
	<(jq -r '"\(.active_name) \(.bench_before) \(.bench_after) \(.bench_predicted)"' "$job")
final=$("$fdewiz" status --json /dev/vda2 | jq -r '.conversions[0].state')
step "final state $final; before $before; after $after"
[ "$final" = complete ] || die "final state $final"
[ -s "$before" ] || die "the baseline was not saved"
[ -s "$after" ] || die "the after-benchmark was not saved"
[ -s "$predicted" ] || die "the prediction was not kept with the job"
[ "$(jq -r '.label' "$after")" = after ] || die "after label"
[ "$(jq -r '.label' "$before")" = before ] || die "baseline label"
[ -n "$(jq -r '.cipher' "$after")" ] || die "the after run does not name its cipher"
[ -n "$(jq -r '.kernel' "$after")" ] || die "the after run does not name its kernel"
grep -q /run/fdewiz/bench /proc/mounts && die "a benchmark mount was left behind"
# The command line's comparison of the two runs the wizard saved; the host reads the JSON
# from the console (the guest's root is read-only).
echo COMPARE-BEGIN
"$fdewiz" bench --compare "$before" "$after" || die "bench --compare"
echo COMPARE-END
"$fdewiz" bench --compare --json "$before" "$after" >/run/compare.json || die "compare --json"
echo "COMPARE-JSON $(jq -c . /run/compare.json)"
[ -b "/dev/mapper/$name" ] || die "no /dev/mapper/$name after completion"
cryptsetup close "$name" || die "close $name"
printf '%s' "$pass" >/tmp/key
cryptsetup open --key-file /tmp/key /dev/vda2 check || die "cryptsetup open with the key"
e2fsck -fn /dev/mapper/check >/dev/null 2>&1 || die "e2fsck"
mount -o ro /dev/mapper/check /mnt/vol
(cd /mnt/vol && sha256sum -c --quiet "$work/before.sha256") || die "files differ"
for f in /mnt/vol/* /mnt/vol/.[!.]*; do
	case ${f##*/} in docs | big | lost+found | '*' | '.[!.]*') ;; *) die "scratch file $f left" ;; esac
done
step "$(wc -l <"$work/before.sha256") files verified through dm-crypt"
umount /mnt/vol
cryptsetup close check
echo FDEWIZ-TUI-OK
