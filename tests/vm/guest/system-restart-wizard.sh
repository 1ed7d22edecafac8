#!/bin/bash
# Part of test-vm-system-restart.sh's guest, run by system-restart-drive.sh inside the
# installed Debian (plain, fdewiz installed): the wizard, driven in tmux, prepares the
# encryption of this system's own root at the next restart (the disks pane offers the
# running root, its plan, the passphrase, the typed YES, the recovery key shown, what is
# prepared); opened again it shows that preparation, and cancels it there. Each screen
# the host checks is printed as "FDW-DRIVE CAPTURE-NAME | ..."; results as "FDW-DRIVE WIZ...".
set -u
d=/run/fdw-drive
export TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/tmux
# shellcheck disable=SC1091 # on the test's drive
. $d/tmux.sh
srv=restart-wizard
pass=$(cat $d/key)
rootdev=$(cat $d/root)
initrd=/boot/initrd.img-$(uname -r)
say() { echo "FDW-DRIVE $*"; }
capture() { tmux_capture "$srv" | sed "s/^/FDW-DRIVE CAPTURE-$1 | /"; }
fail()
{
	say "WIZ-FAIL $*"
	capture FAIL
	tmux_stop "$srv"
	exit 1
}
wait_for() { tmux_wait_for "$srv" "$1" "$2" >/dev/null || fail "'$1' did not appear within $2 s"; }
trap 'tmux_stop "$srv"' EXIT

# 1. The disks pane: the running root, Enter, its plan (the benchmark switched off here).
tmux_start "$srv" 100 34 env FDEWIZ_TEST_FAST_PBKDF=1 fdewiz /dev/vda
wait_for "Choose a partition" 120
tmux_select "$srv" " ${rootdev#/dev/vda} .*mounted-root" || fail "$rootdev cannot be selected"
capture DISKS
tmux_send "$srv" Enter
wait_for "Encrypt at the next restart" 60
wait_for "[x] Measure the speed" 10
tmux_send "$srv" b
wait_for "[ ] Measure the speed" 10
capture PLAN
tmux_send "$srv" Enter

# 2. The passphrase, the typed YES, the preparation, the recovery key shown once.
tmux_passphrase_twice "$srv" "$pass" || fail "the passphrase screens"
wait_for "Type YES" 10
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
wait_for "Preparing" 30
wait_for "Recovery key" 900
capture RECOVERY
tmux_send "$srv" Enter
wait_for "Prepared: $rootdev is encrypted at the next restart" 30
capture PREPARED
say "WIZ-INITRD-STEP $(lsinitramfs "$initrd" | grep -c 'fdewiz-restart/stage$\|fdewiz-restart/header$\|sbin/fdewiz$\|local-top/fdewiz-restart$\|sbin/resize2fs$')"
say "WIZ-SERVICE $(systemctl is-enabled fdewiz-restart.service 2>&1)"
tmux_send "$srv" q
tmux_wait_exit "$srv" 30 || fail "the wizard did not quit"
say "WIZ-EXIT $(tmux_exit_status "$srv")"
tmux_stop "$srv"

# 3. Opened again: it shows the preparation, and c (twice) cancels it.
tmux_start "$srv" 100 34 fdewiz /dev/vda
wait_for "Prepared: $rootdev" 120
tmux_send "$srv" c
wait_for "Press c again" 10
tmux_send "$srv" c
wait_for "The initramfs no longer carries" 300
capture CANCELLED
say "WIZ-CANCELLED-INITRD-STEP $(lsinitramfs "$initrd" | grep -c 'fdewiz-restart')"
say "WIZ-CANCELLED-FILES $(ls /var/lib/fdewiz/restart /etc/initramfs-tools/hooks/fdewiz-restart /etc/systemd/system/fdewiz-restart.service 2>/dev/null | wc -l)"
tmux_send "$srv" Enter
wait_for "Choose a partition" 60
tmux_send "$srv" q
tmux_wait_exit "$srv" 30 || fail "the wizard did not quit"
say "WIZ-DONE"
