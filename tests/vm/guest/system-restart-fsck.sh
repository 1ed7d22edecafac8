#!/bin/bash
# Guest half of test-vm-system-restart.sh, in a live VM after the last boot: the root
# volume (ROOT, /dev/vda2 unless given) opened with the passphrase, its filesystem checked
# in full (e2fsck -f, or btrfs check); and a /boot partition (BOOT, when given).
set -uo pipefail
work=$1
root=${2:-/dev/vda2}
boot=${3:-}
say() { echo "system-restart: $*"; }
cryptsetup luksDump "$root" | grep -q 'online-reencrypt' && say "REENCRYPT-LEFT yes" ||
	say "REENCRYPT-LEFT no"
cryptsetup open --key-file "$work/key" "$root" rootchk || { say "OPEN failed"; exit 1; }
rc=0
if [ "$(blkid -o value -s TYPE /dev/mapper/rootchk)" = btrfs ]; then
	btrfs check --readonly /dev/mapper/rootchk >/run/fsck.log 2>&1 || rc=$?
else
	e2fsck -fn /dev/mapper/rootchk >/run/fsck.log 2>&1 || rc=$?
fi
say "FSCK rc=$rc"
[ "$rc" = 0 ] || tail -n 20 /run/fsck.log
cryptsetup close rootchk
if [ -n "$boot" ]; then
	rc=0
	e2fsck -fn "$boot" >/run/fsck-boot.log 2>&1 || rc=$?
	say "FSCK-BOOT rc=$rc"
fi
