#!/bin/bash
# Guest half of test-vm-system-restart.sh, in a live VM after the last boot: the root
# volume (ROOT, /dev/vda2 unless given) opened with the passphrase, its filesystem checked
# in full (e2fsck -f, or btrfs check; an LVM PV's volume "root"); and a /boot partition
# (BOOT, when given).
set -uo pipefail
work=$1
root=${2:-/dev/vda2}
boot=${3:-}
say() { echo "system-restart: $*"; }
cryptsetup luksDump "$root" | grep -q 'online-reencrypt' && say "REENCRYPT-LEFT yes" ||
	say "REENCRYPT-LEFT no"
cryptsetup open --key-file "$work/key" "$root" rootchk || { say "OPEN failed"; exit 1; }
rc=0
fs=/dev/mapper/rootchk
type=$(blkid -o value -s TYPE $fs)
# An LVM PV: its volume group inside, and its volume "root" checked.
vg=
if [ "$type" = LVM2_member ]; then
	# The live system's LVM, without udev: nodes under /dev/mapper made by LVM itself.
	mkdir -p /run/lvm
	vg=$(pvs --noheadings -o vg_name $fs 2>/dev/null | tr -d ' ')
	vgchange -a y "$vg" >/dev/null 2>&1 || say "VGCHANGE failed"
	say "LVS $(lvs --noheadings --units m -o lv_name,lv_size "$vg" 2>/dev/null | tr -s ' ' | tr '\n' ' ')"
	for lv in $(lvs --noheadings -o lv_name "$vg" 2>/dev/null); do
		node=/dev/mapper/$(echo "$vg" | sed 's/-/--/g')-$(echo "$lv" | sed 's/-/--/g')
		[ "$lv" != root ] || fs=$node
		[ "$(blkid -o value -s TYPE "$node")" != swap ] || say "SWAP-UUID $(blkid -o value -s UUID "$node")"
	done
	type=$(blkid -o value -s TYPE "$fs")
fi
if [ "$type" = btrfs ]; then
	btrfs check --readonly $fs >/run/fsck.log 2>&1 || rc=$?
else
	e2fsck -fn "$fs" >/run/fsck.log 2>&1 || rc=$?
fi
say "FSCK rc=$rc"
[ "$rc" = 0 ] || tail -n 20 /run/fsck.log
[ -z "$vg" ] || vgchange -a n "$vg" >/dev/null 2>&1
cryptsetup close rootchk
if [ -n "$boot" ]; then
	rc=0
	e2fsck -fn "$boot" >/run/fsck-boot.log 2>&1 || rc=$?
	say "FSCK-BOOT rc=$rc"
fi
