#!/bin/bash
# fdewiz VM tests: the wizard's whole flow online on a real kernel. Driven in tmux, it
# encrypts a plain ext4 partition with the volume open as /dev/mapper/fdewiz-*, measures
# before and after (the after-run on the dm-crypt volume), goes to the background and
# back, and shows the comparison; 'bench --compare' pairs the two saved runs (every I/O
# test and the build steps: test-vm-bench.sh's checks, which ran the same engine flow from
# the command line in a VM of its own); the data verifies through a fresh mapping. (The same
# screens in Russian and Japanese are test-tui-predict's, on the host: 2.5 minutes less
# here, where every start of the wizard is emulated.)
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-tui
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq tmux ncurses-base

vm_find_fdewiz
srcdir=$(realpath -m "${FDEWIZ_SRCDIR:-$VM_HERE/../..}")

MiB=$((1024 * 1024))
img=$VM_WORK/tui.img
truncate -s 450M "$img"
vm_parted "$img" mklabel gpt mkpart Boot ext4 1MiB 33MiB mkpart Data ext4 33MiB 449MiB
mkdir -p "$VM_WORK/data/docs"
for i in $(seq 1 200); do
	head -c $((i * 53 % 12000 + 1)) /dev/urandom >"$VM_WORK/data/docs/d$i"
done
head -c $((16 * MiB)) /dev/urandom >"$VM_WORK/data/big"
(cd "$VM_WORK/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) \
	>"$VM_WORK/before.sha256"
mkfs.ext4 -q -F -b 4096 -E "offset=$((33 * MiB)),nodiscard" -L data -d "$VM_WORK/data" \
	"$img" 416M

# A sanitizer build needs the options make check gives it (libparted trips ASan's strchr).
envs=(--env "ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0:detect_leaks=0}")
[ -z "${LSAN_OPTIONS:-}" ] || envs+=(--env "LSAN_OPTIONS=$LSAN_OPTIONS")

start=$(date +%s)
vm_run --timeout 3000 "${envs[@]}" --disk "$img" "$VM_HERE/guest/tui.sh" "$FDEWIZ" "$VM_WORK" \
	"$srcdir"
echo "test-vm-tui: the VM ran $(($(date +%s) - start)) s"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-TUI-OK" grep -q '^FDEWIZ-TUI-OK' "$VM_LOG"

capture()
{
	sed -n "/^CAPTURE-$1-BEGIN/,/^CAPTURE-$1-END/p" "$VM_LOG" | sed '1d;$d' | tr -d '\r'
}
plan=$(capture PLAN)
progress=$(capture PROGRESS)
results=$(capture RESULTS)
vm_check "plan capture: the prediction" grep -qE 'SEQ1M Q8T1 read +[0-9]+ -> [0-9]+ MB/s' \
	<<<"$plan"
vm_check "plan capture: the cipher list" grep -qF "Adiantum (XChaCha12, AES), 256-bit key" \
	<<<"$plan"
vm_check "results capture: measured and predicted columns" \
	grep -qE 'measured +predicted$' <<<"$results"
vm_check "results capture: predicted beside measured" \
	grep -qE 'encrypted .* [0-9.]+ (MB/s|IOPS) +[0-9.]+ (MB/s|IOPS)$' <<<"$results"
vm_check "progress capture: running" grep -qF "State: running" <<<"$progress"
vm_check "progress capture: a percent" grep -qE '[0-9]+\.[0-9]%' <<<"$progress"
vm_check "results capture: the title" grep -qF "Results for /dev/vda2" <<<"$results"
vm_check "results capture: a test with its plain row" \
	grep -qE 'SEQ1M Q1T1 read +plain ' <<<"$results"
vm_check "results capture: its encrypted row with a percent" \
	grep -qE '[0-9]+\.[0-9]% (slower|faster)( \([a-z]+\))? +encrypted ' <<<"$results"
vm_check "results capture: more I/O rows" grep -qF "RND4K Q1T1 read" <<<"$results"
# The command line's comparison of the wizard's two runs, every I/O test paired: the
# default set (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1 and RND4K Q1T1, each read and write,
# and RND4K Q32T1 mix 70/30) and the build steps, plain against dm-crypt.
cmp=$VM_WORK/compare.json
sed -n 's/^COMPARE-JSON //p' "$VM_LOG" | tr -d '\r' >"$cmp"
vm_check "comparison printed as JSON" jq -e '.tests | length > 0' "$cmp"
n=$(jq '[.tests[] | select(.id | startswith("io."))] | length' "$cmp" 2>/dev/null || echo 0)
vm_check "9 I/O tests compared plain against encrypted (got $n)" [ "$n" = 9 ]
n=$(jq '[.tests[] | select(.id | startswith("build."))] | length' "$cmp" 2>/dev/null || echo 0)
vm_check "build steps compared (got $n)" [ "$n" -ge 3 ]
if [ -n "${FDEWIZ_TUI_CAPTURES:-}" ]; then
	printf '%s\n' "$plan" >"$FDEWIZ_TUI_CAPTURES/vm-plan-predict.txt"
	printf '%s\n' "$results" >"$FDEWIZ_TUI_CAPTURES/vm-results-predict.txt"
fi
echo "plan screen in the VM:"
printf '%s\n' "$plan"
echo "progress screen in the VM:"
printf '%s\n' "$progress"
echo "results screen in the VM:"
printf '%s\n' "$results"
vm_finish
