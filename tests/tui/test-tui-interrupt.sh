#!/bin/bash
# Ctrl-C in the wizard while the header is being written: the step finishes (nothing is
# half-written), the conversion goes on in the background, the terminal is restored, and
# the data verifies after cryptsetup decrypts it (fsck + sha256).
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds tmux jq parted losetup mkfs.ext4 cryptsetup e2fsck sha256sum blkid

tmux_test_init intr intr.img
pass="correct horse battery staple"
img_ext4_fixture "$img" 400 60

# shellcheck disable=SC2016 # expanded by the pane's shell
tmux_start "$srv" 100 30 sh -c 'trap : INT; "$@"; rc=$?; echo "exit=$rc"
	echo "modes: $(stty -a | tr " ;" "\n\n" | grep -xE -- "-?(icanon|echo|isig)" |
		tr "\n" " ")"; exit $rc' sh \
	env FDEWIZ_STATE_DIR="$state" FDEWIZ_TEST_FAST_PBKDF=1 "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 20
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:1" 20
# Without the baseline benchmark: the header steps come at once.
tmux_send "$srv" Space
tmux_wait_for "$srv" "[ ] Measure the speed" 10
tmux_send "$srv" Enter
tmux_passphrase_twice "$srv" "$pass"
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Phase: " 20
tmux_send "$srv" C-c
tmux_wait_exit "$srv" 120
s=$(tmux_capture "$srv" -J -S -)
assert_eq "exit status after Ctrl-C" 130 "$(tmux_exit_status "$srv")"
assert_contains "says it goes on" "$s" "continues in the background"
assert_contains "terminal modes restored" "$s" "modes: isig icanon echo"
assert_not_contains "curses screen left behind" "$s" "Phase: "

# The worker finishes on its own.
FDEWIZ_STATE_DIR=$state wait_job "$img:1" complete 300 || true
assert_eq "conversion state" complete "$JOB_STATE"

verify_encrypted "$img" "$pass"
assert_finish
