#!/bin/bash
# Guest half of test-vm-system-wizard.sh, the "live" system: /dev/vda is the installed
# Debian's disk (its /home, partition 4, is encrypted here first), /dev/vdb a
# persistent disk for fdewiz's state (a USB stick), /dev/vdc1 that system's /data (encrypted
# last, its root unlocked), /dev/vdd becomes another LUKS volume of that system with
# another passphrase. The wizard,
# driven in tmux, encrypts the installed system's root (/dev/vda2) in place and sets up its
# boot; the screens the host checks are printed between marker lines. Then the same checks
# as test-vm-system-boot.sh's guest (system-boot.sh, mode "check") run on the result.
set -euo pipefail
fdewiz=$1
work=$2
srcdir=$3
here=$(dirname "$(readlink -f "$0")")
export DM_DISABLE_UDEV=1 TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/cryptsetup /run/tmux /mnt/state
# shellcheck disable=SC1091 # the source tree is an argument
. "$srcdir/tests/lib/tmux.sh"
srv="fdewiz-vm-system-wizard"
pass=$(cat "$work/key")
t0=$(date +%s)
step() { echo "system-wizard: [$(($(date +%s) - t0)) s] $*"; }
die()
{
	echo "system-wizard: FAIL: $*"
	echo "system-wizard: the screen:"
	tmux_capture "$srv" 2>/dev/null | sed 's/^/    | /' || true
	tail -n 30 /mnt/state/fdewiz/jobs/*.log 2>/dev/null || true
	exit 1
}
wait_for() { tmux_wait_for "$srv" "$1" "$2" || die "'$1' did not appear within $2 s"; }
shows() { tmux_capture "$srv" -J | grep -qF -- "$1"; }
print_capture()
{
	echo "CAPTURE-$1-BEGIN"
	tmux_capture "$srv"
	echo "CAPTURE-$1-END"
}
trap 'tmux_stop "$srv"' EXIT

mount /dev/vdb /mnt/state
# encrypt_data NAME DEVICE: one of that system's data partitions with the command line (as
# from a live USB stick), with the passphrase of its root; its output printed as NAME.
encrypt_data()
{
	local rc=0 m

	FDEWIZ_STATE_DIR=/mnt/state/fdewiz "$fdewiz" encrypt --yes --foreground --no-bench \
		--fast-pbkdf --key-file /dev/stdin --header-backup "/mnt/state/$1.hdr" "$2" \
		<"$work/key" >"/run/$1.log" 2>&1 || rc=$?
	echo "system-wizard: ${1^^} rc=$rc"
	sed "s/^/system-wizard: $1: /" "/run/$1.log"
	[ "$rc" = 0 ] || die "encrypting $2"
	# An online conversion leaves its volume open: closed, as a person would.
	for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
		cryptsetup close "$m" || die "cannot close $m"
	done
	step "its /$1 encrypted"
}
# Its /home first: that system's crypttab and fstab.
encrypt_data home /dev/vda4
# Another encrypted volume of that system (a disk of its own, absent at its boot: nofail)
# with another passphrase, which fdewiz must leave asking for its own; and a /data on a
# disk of its own (/dev/vdc1), converted after the root (below), with its files' sums for
# the system's check unit (its /srv holds the image's own data files).
printf 'another passphrase 34' >/run/other.key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-file /run/other.key /dev/vdd
mkdir -p /mnt/sysroot
mount /dev/vda2 /mnt/sysroot
echo "other_crypt UUID=$(cryptsetup luksUUID /dev/vdd) none luks,nofail" \
	>>/mnt/sysroot/etc/crypttab
echo "UUID=$(blkid -p -s UUID -o value /dev/vdc1) /data ext4 defaults 0 2" >>/mnt/sysroot/etc/fstab
mkdir -p /mnt/sysroot/data
mount -o ro /dev/vdc1 /mnt/sysroot/data
(cd /mnt/sysroot && find data -type f ! -path 'data/lost+found/*' -print0 | sort -z |
	xargs -0 sha256sum) >/run/data-sums
umount /mnt/sysroot/data
cp /run/data-sums /mnt/sysroot/var/lib/fdw-check/data-sums
umount /mnt/sysroot
# The system was booted since its last check: resize2fs wants a fresh e2fsck first.
rc=0
e2fsck -f -p /dev/vda2 >/run/fsck0.log 2>&1 || rc=$?
e2fsck -f -p /dev/vda1 >>/run/fsck0.log 2>&1 || rc=$((rc | $?))
[ "$rc" -le 1 ] || { cat /run/fsck0.log; die "e2fsck before (rc $rc)"; }

# 1. The disks: the root partition says what system it holds, and is offered.
step "start the wizard on /dev/vda"
tmux_start "$srv" 120 40 env FDEWIZ_STATE_DIR=/mnt/state/fdewiz FDEWIZ_TEST_FAST_PBKDF=1 \
	DM_DISABLE_UDEV=1 "$fdewiz" /dev/vda
wait_for "Choose a partition" 180
tmux_select "$srv" ' 2 .*yes \(' || die "partition 2 is not offered"
wait_for "Holds Debian GNU/Linux 12" 30
print_capture DISKS
tmux_send "$srv" Enter

# 2. The plan lists the boot steps; the benchmark is switched off (not this test's subject).
wait_for "Plan for /dev/vda2" 300
wait_for "Boot setup" 30
print_capture PLAN
if shows "[x] Measure the speed"; then
	tmux_send "$srv" Space
	wait_for "[ ] Measure the speed" 20
fi
shows "[x] Open this volume at boot" && die "the live system's crypttab box is ticked"
step "plan shown with the boot steps"
tmux_send "$srv" Enter

# 3. The passphrase twice, then the typed confirmation.
wait_for "Choose the passphrase" 60
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
shows "$pass" && die "the passphrase is on the screen"
tmux_send "$srv" Enter
wait_for "Type YES" 60
print_capture CONFIRM
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter

# 4. The conversion, then the boot step (the initramfs rebuilt in a chroot: minutes).
wait_for "State: running" 600
step "conversion running"
seen=
for _ in $(seq 1 1800); do
	if shows "setting up the boot"; then
		seen=1
		break
	fi
	shows "Results for /dev/vda2" && break
	sleep 1
done
[ -n "$seen" ] || die "the boot step's phase was never shown"
step "boot step running"
print_capture BOOTSTEP
wait_for "Results for /dev/vda2" 2400
step "results shown"
sleep 1
print_capture RESULTS
shows "The installed system's boot is set up" || die "results: the boot step is not said done"
tmux_send "$srv" q
tmux_wait_exit "$srv" 60 || die "q did not quit"
[ "$(tmux_exit_status "$srv")" = 0 ] || die "q: exit status $(tmux_exit_status "$srv")"
tmux_stop "$srv"
final=$(FDEWIZ_STATE_DIR=/mnt/state/fdewiz "$fdewiz" status --json /dev/vda2 |
	jq -r '.conversions[0].state')
step "final state $final"
[ "$final" = complete ] || die "final state $final"

# 5. Its /data after its root: the root, encrypted now, unlocked here so that fdewiz can read
# it; /data gets that system's crypttab and a key file inside the encrypted root.
for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
	cryptsetup close "$m" || die "cannot close $m"
done
cryptsetup open --key-file "$work/key" /dev/vda2 sysroot || die "cryptsetup open the root"
encrypt_data data /dev/vdc1
umount /mnt/state

# 6. The volume and the system's files, as system-boot.sh checks them after the CLI.
exec bash "$here/system-boot.sh" "$fdewiz" "$work" check
