#!/bin/bash
# Guest half of test-vm-system-restart.sh, in a live VM after the last boot: the root
# volume (/dev/vda2) opened with the passphrase, its filesystem checked in full.
set -uo pipefail
work=$1
say() { echo "system-restart: $*"; }
cryptsetup luksDump /dev/vda2 | grep -q 'online-reencrypt' && say "REENCRYPT-LEFT yes" ||
	say "REENCRYPT-LEFT no"
cryptsetup open --key-file "$work/key" /dev/vda2 rootchk || { say "OPEN failed"; exit 1; }
rc=0
e2fsck -fn /dev/mapper/rootchk >/run/fsck.log 2>&1 || rc=$?
say "FSCK rc=$rc"
[ "$rc" = 0 ] || tail -n 20 /run/fsck.log
cryptsetup close rootchk
