#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A partition that holds an installed system (its etc/fstab mounts it at /) is recognised,
# read without mounting, described in list and list --json, and refused by encrypt with
# every byte of the image unchanged when its initramfs cannot open LUKS: converting it would
# leave a machine that cannot start, or when its /boot is inside it (GRUB would have to open
# LUKS2). A system whose boot fdewiz can set up is offered, with the boot steps in its plan.
# A data partition beside them is still offered.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds mkfs.ext4 debugfs jq sha256sum parted python3

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/laptop.img
key=$IMG_TMP/key
printf 'installed system test key' >"$key"

# A tree that looks like an installed Debian 12 with initramfs-tools and GRUB for BIOS,
# without cryptsetup-initramfs; /boot inside, one swap line.
make_root() # DIR UUID [boot-separate] [with-cryptroot]
{
	local d=$1
	mkdir -p "$d/etc/initramfs-tools/conf.d" "$d/usr/lib/grub/i386-pc" "$d/usr/sbin" \
		"$d/boot/grub" "$d/home/user" "$d/usr/share/initramfs-tools/hooks"
	{
		echo "# /etc/fstab: static file system information."
		echo "UUID=$2 / ext4 errors=remount-ro 0 1"
		[ "${3:-}" = boot-separate ] && echo "UUID=0b0e-1234 /boot ext2 defaults 0 2"
		echo "PARTUUID=11111111-2222 none swap sw 0 0"
		echo "/dev/sr0 /media/cdrom0 udf,iso9660 user,noauto 0 0"
	} >"$d/etc/fstab"
	printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n' >"$d/usr/lib/os-release"
	ln -s ../usr/lib/os-release "$d/etc/os-release"
	printf '#!/bin/sh\n' >"$d/usr/sbin/update-initramfs"
	printf 'RESUME=none\n' >"$d/etc/initramfs-tools/conf.d/resume"
	if [ "${3:-}" != boot-separate ]; then
		head -c 4096 /dev/urandom >"$d/boot/vmlinuz-6.1.0-13-amd64"
		head -c 4096 /dev/urandom >"$d/boot/initrd.img-6.1.0-13-amd64"
	fi
	[ "${4:-}" = with-cryptroot ] && printf '#!/bin/sh\n' >"$d/usr/share/initramfs-tools/hooks/cryptroot"
	for i in $(seq 1 50); do head -c $((i * 97)) /dev/urandom >"$d/home/user/f$i"; done
}

root_uuid=5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d
other_uuid=7c2d4e6f-1a2b-4c3d-8e9f-0a1b2c3d4e5f
make_root "$IMG_TMP/root" "$root_uuid"
make_root "$IMG_TMP/root2" "$other_uuid" boot-separate with-cryptroot
mkdir -p "$IMG_TMP/data"
for i in $(seq 1 20); do head -c $((i * 131)) /dev/urandom >"$IMG_TMP/data/d$i"; done

img_new "$img" 700
img_gpt "$img"
img_part "$img" Root 1 257
img_part "$img" Data 257 449
img_part "$img" Other 449 end
mkfs_at() # N DIR UUID
{
	local off size
	off=$(img_part_offset "$img" "$1")
	size=$(img_part_size "$img" "$1")
	mkfs.ext4 -q -F -b 4096 -U "$3" -d "$2" -E offset="$off" "$img" $((size / 1024))k
}
mkfs_at 1 "$IMG_TMP/root" "$root_uuid"
mkfs_at 2 "$IMG_TMP/data" "$(cat /proc/sys/kernel/random/uuid)"
mkfs_at 3 "$IMG_TMP/root2" "$other_uuid"
before=$(sha256sum <"$img")

# 1. list --json: what is inside, and the verdict.
"$FDEWIZ" list --json "$img" >"$IMG_TMP/list.json"
assert_list_schema "$IMG_TMP/list.json"
p() { echo ".disks[0].partitions[] | select(.number == $1)"; }
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.name" "Debian GNU/Linux 12 (bookworm)"
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.fstab_names_it" true
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.boot_separate" false
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.has_kernels" true
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.boot_loader" grub-bios
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.initramfs" initramfs-tools
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.luks_in_initramfs" false
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.hibernates" false
assert_json "$IMG_TMP/list.json" "$(p 1) | .installed_system.swaps" 1
assert_json "$IMG_TMP/list.json" "$(p 1) | .verdict.eligible" false
assert_json "$IMG_TMP/list.json" "$(p 1) | .verdict.reason" installed-system
msg=$(jq -r "$(p 1) | .verdict.message" "$IMG_TMP/list.json")
assert_contains "the verdict names the system" "$msg" "Debian GNU/Linux 12 (bookworm) (/, /boot inside)"
assert_contains "the verdict says why" "$msg" "unable to start"
assert_contains "the verdict says what to do" "$msg" "install cryptsetup-initramfs"
# The data partition beside it: nothing installed, still offered.
assert_json "$IMG_TMP/list.json" "$(p 2) | .installed_system" null
assert_json "$IMG_TMP/list.json" "$(p 2) | .verdict.eligible" true
# Another system (/boot elsewhere, LUKS in its initramfs, GRUB): the pre-flight on what is
# inside passes, so the verdict offers it and the plan lists the boot steps. encrypt
# still refuses before anything changes: its /boot is on no disk here, and a partition
# of an image file is no disk the system boots from.
assert_json "$IMG_TMP/list.json" "$(p 3) | .installed_system.fstab_names_it" true
assert_json "$IMG_TMP/list.json" "$(p 3) | .installed_system.boot_separate" true
assert_json "$IMG_TMP/list.json" "$(p 3) | .installed_system.has_kernels" false
assert_json "$IMG_TMP/list.json" "$(p 3) | .installed_system.luks_in_initramfs" true
assert_json "$IMG_TMP/list.json" "$(p 3) | .verdict.reason" ok
assert_json "$IMG_TMP/list.json" "$(p 3) | .verdict.eligible" true
plan=$("$FDEWIZ" encrypt --dry-run --key-file "$key" "$img:3" 2>&1)
assert_contains "the plan names the system" "$plan" "/boot on another partition"
assert_contains "the plan lists the crypttab step" "$plan" "to its etc/crypttab"
assert_contains "the plan lists the initramfs step" "$plan" "rebuild its initramfs in a chroot"
rc=0
out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/p3.hdr" "$img:3" 2>&1) || rc=$?
assert_true "encrypt of the other system's root refuses (exit $rc)" test "$rc" -ne 0
assert_contains "it says why" "$out" "image file"
assert_contains "it says nothing changed" "$out" "Nothing was changed"
assert_true "no header backup was written" test ! -e "$IMG_TMP/p3.hdr"
assert_eq "the image is unchanged after that refusal" "$before" "$(sha256sum <"$img")"

# 2. The table says it too.
table=$("$FDEWIZ" list "$img" 2>&1)
assert_contains "list shows the refusal" "$table" "Holds Debian GNU/Linux 12 (bookworm) (/, /boot inside)"

# 3. encrypt refuses, with any strategy; nothing changes.
for strategy in auto "detached-header=$IMG_TMP/hdr"; do
	rc=0
	out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
		--strategy "$strategy" --work-dir "$IMG_TMP" "$img:1" 2>&1) || rc=$?
	assert_true "encrypt --strategy $strategy refuses (exit $rc)" test "$rc" -ne 0
	assert_contains "encrypt --strategy $strategy says why" "$out" "unable to start"
	assert_contains "encrypt --strategy $strategy says nothing changed" "$out" "Nothing was changed"
	assert_true "no header file was written for $strategy" test ! -e "$IMG_TMP/hdr"
done
assert_eq "the image is unchanged" "$before" "$(sha256sum <"$img")"
assert_true "no loop device is left over the image" test -z "$(losetup -j "$img")"

# 3b. /boot inside the root of a system that could open LUKS at boot (cryptsetup-initramfs
# there): its /boot would first become a partition of its own, with GRUB reinstalled on the
# disk, which an image file is not (tests/vm/test-vm-system-carve.sh does it on a disk).
# Refused by the verdict and by encrypt with the reason; nothing changes.
inside_uuid=3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7
make_root "$IMG_TMP/root4" "$inside_uuid" inside with-cryptroot
inside=$IMG_TMP/inside.img
img_new "$inside" 300
img_gpt "$inside"
img_part "$inside" Root 1 end
off=$(img_part_offset "$inside" 1)
size=$(img_part_size "$inside" 1)
mkfs.ext4 -q -F -b 4096 -U "$inside_uuid" -d "$IMG_TMP/root4" -E offset="$off" "$inside" \
	$((size / 1024))k
inside_sum=$(sha256sum <"$inside")
"$FDEWIZ" list --json "$inside" >"$IMG_TMP/inside.json"
assert_json "$IMG_TMP/inside.json" "$(p 1) | .installed_system.luks_in_initramfs" true
assert_json "$IMG_TMP/inside.json" "$(p 1) | .installed_system.boot_separate" false
assert_json "$IMG_TMP/inside.json" "$(p 1) | .verdict.eligible" false
assert_json "$IMG_TMP/inside.json" "$(p 1) | .verdict.reason" installed-system
msg=$(jq -r "$(p 1) | .verdict.message" "$IMG_TMP/inside.json")
assert_contains "/boot inside: the verdict names the layout" "$msg" "(/, /boot inside)"
assert_contains "/boot inside: the verdict says why" "$msg" \
	"makes a /boot of its own for it only on a real disk"
rc=0
out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/inside.hdr" "$inside:1" 2>&1) || rc=$?
assert_true "/boot inside: encrypt refuses (exit $rc)" test "$rc" -ne 0
assert_contains "/boot inside: encrypt says why" "$out" \
	"where GRUB is reinstalled to read it, not inside an image file"
assert_contains "/boot inside: encrypt says nothing changed" "$out" "Nothing was changed"
assert_true "/boot inside: no header backup was written" test ! -e "$IMG_TMP/inside.hdr"
assert_eq "/boot inside: the image is unchanged" "$inside_sum" "$(sha256sum <"$inside")"
assert_true "/boot inside: no loop device is left" test -z "$(losetup -j "$inside")"
rm -f "$inside"

# 4. The data partition still converts; its neighbour stays as it was.
root_sum=$(dd if="$img" bs=1M skip=1 count=256 status=none | sha256sum)
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/data.hdr" "$img:2" >"$IMG_TMP/enc.out" 2>&1 ||
	{ cat "$IMG_TMP/enc.out" >&2; assert_fail "encrypting the data partition failed"; }
assert_eq "the installed system's bytes are unchanged" "$root_sum" \
	"$(dd if="$img" bs=1M skip=1 count=256 status=none | sha256sum)"
# Every file as it was written into the partition (at the root of its filesystem).
(cd "$IMG_TMP/data" && sha256sum -- *) >"$IMG_TMP/data.sha256"
verify_decrypt --as "the data partition" --sums "$IMG_TMP/data.sha256" "$img" 2

assert_finish
