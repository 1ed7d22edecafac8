#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# An installed system's LVM physical volume, read by list and the plan with LVM's real
# tools (pvs, lvs) on a loop device; nothing is activated (this host has no device-mapper:
# the volumes are made with --driverloaded n, their file systems written at their extents).
# Its volume group holds root (a stand-in Debian: initramfs-tools with cryptsetup-initramfs,
# GRUB for EFI, /boot apart, fstab by /dev/mapper names) and swap_1 at its end, no free
# extents. list offers the PV and says the swap volume gives the header's room (its sizes);
# the plan lists the room's steps and the boot steps with the volume group; with free
# extents at the end instead, only pvresize; with a data volume there, "no" with how much
# is in use and by which volume; a volume group on two PVs stays "encrypt a logical volume
# instead". list --json matches the schema. Nothing is written to the PV by fdewiz.
# Cost: about 10 s.
. "$(dirname "$0")/../lib/start.sh"
require_cmds pvcreate vgcreate lvcreate pvs mkfs.ext4 mkswap jq python3 losetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
vg=fdwtest-$$-vg
vgm=${vg//-/--}
lvm_q() { "$@" --driverloaded n -q 2>&1 | grep -v -e 'leaked on' -e 'Activation disabled' -e 'not zeroed' >&2 || true; }
cleanup_lvm()
{
	vgremove --driverloaded n -f -q "$vg" >/dev/null 2>&1 || true
	rm -f "/etc/lvm/backup/$vg" /etc/lvm/archive/"$vg"_*.vg
}
at_exit cleanup_lvm

# The PV on a whole loop device (300 MiB): 1 MiB of metadata, 74 extents of 4 MiB.
truncate -s 300M "$IMG_TMP/pv.img"
pv=$(losetup --find --show "$IMG_TMP/pv.img")
img_register loop "$pv"
lvm_q pvcreate -ff -y "$pv"
lvm_q vgcreate "$vg" "$pv"
lvm_q lvcreate -an -Zn -Wn -n root -L 176M "$vg"
lvm_q lvcreate -an -Zn -Wn -n swap_1 -l 100%FREE "$vg"
assert_eq "the volume group has no free extents" 0 \
	"$(vgs --driverloaded n --noheadings -o vg_free_count "$vg" 2>/dev/null | tr -d ' ')"

r=$IMG_TMP/root
mkdir -p "$r/etc/initramfs-tools/conf.d" "$r/usr/lib/grub/x86_64-efi" "$r/usr/sbin" \
	"$r/usr/share/initramfs-tools/hooks" "$r/boot"
cat >"$r/etc/fstab" <<EOF2
/dev/mapper/$vgm-root / ext4 errors=remount-ro 0 1
UUID=0b0e1234-5678-4abc-8def-0123456789ab /boot ext4 defaults 0 2
UUID=1234-ABCD /boot/efi vfat umask=0077 0 1
/dev/mapper/$vgm-swap_1 none swap sw 0 0
EOF2
printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n' >"$r/usr/lib/os-release"
printf '#!/bin/sh\n' >"$r/usr/sbin/update-initramfs"
printf '#!/bin/sh\n' >"$r/usr/share/initramfs-tools/hooks/cryptroot"
printf 'RESUME=/dev/mapper/%s-swap_1\n' "$vgm" >"$r/etc/initramfs-tools/conf.d/resume"
mkfs.ext4 -q -F -b 4096 -d "$r" "$IMG_TMP/root.fs" 176M
mkswap -q "$IMG_TMP/swap.fs" 120M 2>/dev/null || { truncate -s 120M "$IMG_TMP/swap.fs"; mkswap -q "$IMG_TMP/swap.fs"; }
dd if="$IMG_TMP/root.fs" of="$pv" bs=1M seek=1 conv=notrunc status=none
dd if="$IMG_TMP/swap.fs" of="$pv" bs=1M seek=177 conv=notrunc status=none

p0() { echo ".disks[0].partitions[0]"; }
"$FDEWIZ" list --json "$pv" >"$IMG_TMP/list.json"
assert_list_schema "$IMG_TMP/list.json"
assert_json "$IMG_TMP/list.json" "$(p0) | .verdict.reason" ok
assert_json "$IMG_TMP/list.json" "$(p0) | .verdict.strategy" free-tail
assert_json "$IMG_TMP/list.json" "$(p0) | .installed_system.boot_loader" grub-efi
msg=$(jq -r "$(p0) | .verdict.message" "$IMG_TMP/list.json")
assert_contains "list names the system" "$msg" "Holds Debian GNU/Linux 12 (bookworm)"
assert_contains "list says the swap volume at the end gives the room" "$msg" \
	"from the swap volume swap_1 at its end, which shrinks from 120 MiB to 88 MiB"
printf 'lvm list test passphrase' >"$IMG_TMP/key"
"$FDEWIZ" encrypt --dry-run --key-file "$IMG_TMP/key" "$pv" >"$IMG_TMP/plan.txt" 2>&1 || { cat "$IMG_TMP/plan.txt"; exit 1; }
plan=$(cat "$IMG_TMP/plan.txt")
assert_contains "the plan: the room's steps first" "$plan" \
	"shrink its swap volume swap_1 from 120 MiB to 88 MiB (lvreduce) and make its swap area again with the same UUID"
assert_contains "the plan: pvresize" "$plan" "end the physical volume that much earlier (pvresize)"
assert_contains "the plan: the root volume mounted from the volume group" "$plan" \
	"activate volume group $vg on it, mount its root /dev/mapper/$vgm-root"
assert_contains "the plan: no benchmark, and why" "$plan" \
	"none: an LVM physical volume holds no filesystem fdewiz mounts"

# Free extents at the end instead of the swap volume: the PV only ends earlier.
lvm_q lvremove -f "$vg/swap_1"
"$FDEWIZ" list --json "$pv" >"$IMG_TMP/list.json"
assert_json "$IMG_TMP/list.json" "$(p0) | .verdict.reason" ok
assert_contains "free extents at the end: pvresize only" \
	"$(jq -r "$(p0) | .verdict.message" "$IMG_TMP/list.json")" "made to end 32 MiB earlier (pvresize)"

# A data volume at the end: no room, with how much is in use there and by which volume.
lvm_q lvcreate -an -Zn -Wn -n data -l 100%FREE "$vg"
"$FDEWIZ" list --json "$pv" >"$IMG_TMP/list.json"
assert_json "$IMG_TMP/list.json" "$(p0) | .verdict.reason" lvm-no-room
assert_json "$IMG_TMP/list.json" "$(p0) | .verdict.eligible" false
assert_contains "no room: how much and by which volume" \
	"$(jq -r "$(p0) | .verdict.message" "$IMG_TMP/list.json")" "32 MiB of it are in use (by data"
rc=0
"$FDEWIZ" encrypt --dry-run --key-file "$IMG_TMP/key" "$pv" >"$IMG_TMP/plan.txt" 2>&1 || rc=$?
assert_eq "encrypt refuses it" 1 "$rc"

# A volume group on two PVs: a PV like any other.
truncate -s 64M "$IMG_TMP/pv2.img"
pv2=$(losetup --find --show "$IMG_TMP/pv2.img")
img_register loop "$pv2"
lvm_q pvcreate -ff -y "$pv2"
lvm_q vgextend "$vg" "$pv2"
"$FDEWIZ" list --json "$pv" >"$IMG_TMP/list.json"
assert_json "$IMG_TMP/list.json" "$(p0) | .verdict.reason" lvm-member
cleanup_lvm
assert_eq "fdewiz wrote nothing to the PV's data (the root and swap areas)" \
	"$(dd if="$IMG_TMP/root.fs" bs=1M status=none | sha256sum)" \
	"$(dd if="$pv" bs=1M skip=1 count=176 status=none | sha256sum)"
assert_finish
