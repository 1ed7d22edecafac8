#!/bin/bash
# Guest half of test-vm-unreadable.sh: make a disk whose every read fails (dm "error"),
# then run `fdewiz list` and the wizard on all disks and print what they say.
set -euo pipefail
fdewiz=$1
work=$2
srcdir=$3
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
export TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/tmux
# shellcheck disable=SC1091 # the source tree is an argument
. "$srcdir/tests/lib/tmux.sh"
srv="fdewiz-vm-unreadable"
step() { echo "unreadable: $*"; }
die()
{
	echo "unreadable: FAIL: $*"
	tmux_capture "$srv" 2>/dev/null | sed 's/^/    | /' || true
	exit 1
}
trap 'tmux_stop "$srv"' EXIT

dmsetup create broken --table "0 409600 error" || die "dmsetup create"
dev=/dev/$(basename "$(readlink -f /dev/mapper/broken)")
[ -b "$dev" ] || dev=/dev/mapper/broken
dd if="$dev" of=/dev/null bs=4096 count=1 2>/dev/null && die "$dev can be read"
step "$dev fails every read"

rc=0
"$fdewiz" list >/run/list.out 2>/run/list.err || rc=$?
cat /run/list.out /run/list.err
[ "$rc" = 1 ] || die "list exit $rc with an unreadable disk"
grep -q "Data .*ext4" /run/list.out || die "list lost the readable disk: $(cat /run/list.out)"
line=$(grep -F "Nothing was changed" /run/list.err | grep -F -e broken -e "$dev" || true)
[ -n "$line" ] || die "list did not name the unreadable disk"
# "fdewiz: PATH: WHY. Nothing was changed." -> "PATH: WHY."
words=$(sed -E 's/^[^:]*: //; s/ Nothing was changed\.$//' <<<"$line")
step "list said: $words"
"$fdewiz" list --json >/run/list.json 2>/dev/null || true
jq -e '.errors | length == 1' /run/list.json >/dev/null ||
	die "list --json errors: $(jq -c .errors /run/list.json)"

tmux_start "$srv" 120 30 env FDEWIZ_STATE_DIR="$FDEWIZ_STATE_DIR" DM_DISABLE_UDEV=1 "$fdewiz"
tmux_wait_for "$srv" "Choose a partition" 120 || die "the wizard did not start"
sleep 1
echo "CAPTURE-DISKS-BEGIN"
tmux_capture "$srv"
echo "CAPTURE-DISKS-END"
tmux_capture "$srv" -J | tr -s ' \n' ' ' | grep -qF "$words" ||
	die "the wizard does not say '$words'"
tmux_stop "$srv"
dmsetup remove broken || true
echo FDEWIZ-UNREADABLE-OK
