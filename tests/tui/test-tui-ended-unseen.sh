#!/bin/bash
# A conversion that ended while nobody watched is brought up when the wizard starts again.
# A. The wizard starts a conversion, pauses it and is left; `fdewiz resume` goes on in the
#    background and completes it. The next start opens on "Conversions since you last looked" with it,
#    complete; r says to press Enter; Enter shows its results. The start after that opens
#    on the disks: it has been seen.
# B. One image converted by `fdewiz encrypt --foreground` (watched to the end) and one by
#    `fdewiz encrypt` in the background (not watched): the wizard opened on both lists only
#    the second.
# Every volume is then decrypted by cryptsetup and checked with fsck and sha256.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup e2fsck sha256sum

srv=fdewiz-test-unseen-$$
img_test_init
state=$IMG_TMP/state
export FDEWIZ_STATE_DIR=$state
a=$IMG_TMP/a.img
fg=$IMG_TMP/fg.img
bg=$IMG_TMP/bg.img
img_worker_stop_at_exit "$state" "$a"
img_worker_stop_at_exit "$state" "$bg"
tmux_own "$srv"
pass="correct horse battery staple"
printf '%s' "$pass" >"$IMG_TMP/key"

for img in "$a" "$fg" "$bg"; do
	img_ext4_fixture "$img" 200 30
done

start()
{
	tmux_stop "$srv" 2>/dev/null || true
	tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 \
		${HOLD:+FDEWIZ_TEST_HOLD_AT=$HOLD} ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" "$FDEWIZ" "$@"
}

# A. Started in the wizard, left with b. Its worker is held at 5 % (FDEWIZ_TEST_HOLD_AT)
# until the wizard pauses it, so that it is unfinished then on any machine (a 1000 MiB
# volume, meant to outlast the pause, raced it); the resume below goes on past it.
HOLD=progress=5 start "$a"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $a:1" 30
# The benchmark box (focused first) turned off, to save time.
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter
tmux_passphrase_twice "$srv" "$pass"
tmux_send "$srv" -l YES
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Encrypting $a:1" 120
# Keys wait until the header is written and the worker runs.
tmux_wait_for "$srv" "State: running" 120
# Paused at once, so that it is still unfinished when the wizard is left; then resumed in the background, where nobody watches it end.
tmux_send "$srv" p
tmux_wait_for "$srv" "State: paused" 60
tmux_send "$srv" b
assert_true "A: the wizard leaves" tmux_wait_exit "$srv" 20
"$FDEWIZ" resume --key-file "$IMG_TMP/key" "$a:1" >"$IMG_TMP/resume.out" 2>&1 ||
	{ cat "$IMG_TMP/resume.out"; assert_fail "A: resume in the background"; }
assert_true "A: complete in the background" wait_job "$a:1" complete 300
assert_true "A: not marked as seen" \
	bash -c '! ls "$1"/jobs/*.seen >/dev/null 2>&1' - "$state"

start "$a"
assert_true "A: the start screen" tmux_wait_for "$srv" "Conversions since you last looked" 30
s=$(tmux_capture "$srv" -J)
assert_contains "A: listed" "$s" "> $a:1"
assert_contains "A: complete" "$s" "complete"
assert_contains "A: at 100 %" "$s" "100.0%"
assert_contains "A: keys" "$s" "Enter: open  r: resume"
tmux_send "$srv" r
assert_true "A: r points to Enter" \
	tmux_wait_for "$srv" "It is complete: press Enter to see its results." 10
tmux_send "$srv" Enter
assert_true "A: its results" tmux_wait_for "$srv" "Results for $a:1" 30
assert_contains "A: encrypted" "$(tmux_capture "$srv" -J)" "is encrypted (LUKS2"
tmux_send "$srv" q
assert_true "A: quits" tmux_wait_exit "$srv" 20
assert_eq "A: exit status" 0 "$(tmux_exit_status "$srv")"

start "$a"
assert_true "A again: the disks, not the start screen" \
	tmux_wait_for "$srv" "Choose a partition" 30
assert_not_contains "A again: not brought up" "$(tmux_capture "$srv")" "since you last looked"
tmux_send "$srv" q
tmux_wait_exit "$srv" 20 || true

# B. Watched in the foreground against left in the background.
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$IMG_TMP/key" \
	"$fg:1" >"$IMG_TMP/fg.out" 2>&1 || { cat "$IMG_TMP/fg.out"; assert_fail "B: foreground"; }
"$FDEWIZ" encrypt --yes --fast-pbkdf --no-bench --key-file "$IMG_TMP/key" \
	"$bg:1" >"$IMG_TMP/bg.out" 2>&1 || { cat "$IMG_TMP/bg.out"; assert_fail "B: background"; }
assert_true "B: background complete" wait_job "$bg:1" complete 300
start "$fg" "$bg"
assert_true "B: the start screen" tmux_wait_for "$srv" "Conversions since you last looked" 30
s=$(tmux_capture "$srv" -J)
assert_contains "B: the background one" "$s" "$bg:1"
assert_not_contains "B: not the one watched" "$s" "$fg:1"
assert_eq "B: one row" 1 "$(grep -c "^ *[> ] /" <<<"$s" || true)"
tmux_send "$srv" Enter
assert_true "B: its results" tmux_wait_for "$srv" "Results for $bg:1" 30
tmux_send "$srv" q
tmux_wait_exit "$srv" 20 || true
tmux_stop "$srv"

# Each volume: cryptsetup decrypts it (a new header file), then fsck and the file sums.
for img in "$a" "$fg" "$bg"; do
	n=$(basename "$img" .img)
	verify_decrypt --as "$n" --key "$IMG_TMP/key" "$img" 1
done
assert_finish
