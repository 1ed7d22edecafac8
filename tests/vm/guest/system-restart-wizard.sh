#!/bin/bash
# Part of test-vm-system-restart.sh's guest, run by system-restart-drive.sh inside the
# installed Debian (plain, fdewiz installed): the wizard, driven in tmux, prepares the
# encryption of this system's own root at the next restart (the disks pane offers the
# running root, its plan, the passphrase, the typed YES, the recovery key shown, what is
# prepared); opened again it shows that preparation, and q leaves it prepared, saying how
# to undo it. This preparation is the one the restart carries out: its exit status and
# seconds go to the drive's arm.result and the recovery key shown to its recovery file, as
# the command line's do. (Its cancel is not run here: a cancel costs one more
# preparation, a minute and a half of the emulated machine, to go on with the restart.)
# Each screen the host checks is printed as "FDW-DRIVE CAPTURE-NAME | ..."; results as
# "FDW-DRIVE WIZ..."; with the file "bench" the baseline benchmark is left ticked.
set -u
d=/run/fdw-drive
export TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/tmux
# shellcheck disable=SC1091 # on the test's drive
. $d/tmux.sh
srv=restart-wizard
pass=$(cat $d/key)
rootdev=$(cat $d/root)
say() { echo "FDW-DRIVE $*"; }
# capture NAME [capture-pane options]: the screen, each line marked for the host.
capture()
{
	local name=$1
	shift
	tmux_capture "$srv" "$@" | sed "s/^/FDW-DRIVE CAPTURE-$name | /"
}
fail()
{
	say "WIZ-FAIL $*"
	capture FAIL
	tmux_stop "$srv"
	exit 1
}
wait_for() { tmux_wait_for "$srv" "$1" "$2" >/dev/null || fail "'$1' did not appear within $2 s"; }
trap 'tmux_stop "$srv"' EXIT

# 1. The disks pane: the running root, Enter, its plan (the benchmark switched off, unless
# the host asks for it: the file "bench").
tmux_start "$srv" 100 34 env FDEWIZ_TEST_FAST_PBKDF=1 fdewiz /dev/vda
wait_for "Choose a partition" 120
tmux_select "$srv" " ${rootdev#/dev/vda} .*mounted-root" || fail "$rootdev cannot be selected"
capture DISKS
tmux_send "$srv" Enter
wait_for "Encrypt at the next restart" 60
wait_for "[x] Measure the speed" 10
if [ ! -e $d/bench ]; then
	tmux_send "$srv" b
	wait_for "[ ] Measure the speed" 10
fi
capture PLAN
tmux_send "$srv" Enter

# 2. The passphrase, the typed YES, the preparation, the recovery key shown once.
tmux_passphrase_twice "$srv" "$pass" || fail "the passphrase screens"
wait_for "Type YES" 10
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
wait_for "Preparing" 30
t0=$(date +%s)
wait_for "Recovery key" 900
seconds=$(($(date +%s) - t0))
capture RECOVERY
# The key as shown, for the final boot's test (cryptroot's prompt).
tmux_capture "$srv" -J | grep -o '[A-Z0-9]\{6\}\(-[A-Z0-9]\{6\}\)\{7\}' | head -n1 >$d/recovery
tmux_send "$srv" Enter
wait_for "Prepared: $rootdev is encrypted at the next restart" 30
capture PREPARED
tmux_send "$srv" q
tmux_wait_exit "$srv" 30 || fail "the wizard did not quit"
echo "$(tmux_exit_status "$srv") $seconds" >$d/arm.result
tmux_stop "$srv"

# 3. Opened again: it shows the preparation; q leaves it so, saying how to undo it.
tmux_start "$srv" 100 34 fdewiz /dev/vda
wait_for "Prepared: $rootdev" 120
capture REOPENED
tmux_send "$srv" q
tmux_wait_exit "$srv" 30 || fail "the wizard did not quit"
# What it printed as it quit, with the pane's history (as test-tui-interrupt.sh reads it):
# the visible screen alone came back blank once in four runs.
capture FAREWELL -J -S -
say "WIZ-REOPENED-EXIT $(tmux_exit_status "$srv")"
say "WIZ-DONE"
