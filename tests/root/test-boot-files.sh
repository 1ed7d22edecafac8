#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A /boot is a /boot whatever fstab says: partitions whose boot files no readable fstab
# names are refused by what they hold, in list, list --json, encrypt (any strategy, a dry
# run, --at-restart) and erase-encrypt's confirmation, with whose /boot it is where its
# boot loader's configuration tells; every image's sha256 unchanged. Cases:
#   A. Debian's encrypted install: ESP, /boot (ext4), the root in a closed LUKS2;
#   B. a lone /boot (ext4) whose root is on no disk given, free space after it;
#   C. boot files under boot/ of a partition that is no root; a control partition with a
#      folder named boot and a config-* file only (still eligible); RHEL's XFS /boot whose
#      GRUB names its LUKS2 root by UUID; a FAT partition (no esp flag) holding Windows'
#      boot manager; a root with /boot inside (still the root's case).
# Cost: about 15 s (three small images, nothing converted).
. "$(dirname "$0")/../lib/start.sh" fake-system boot-files-images
require_cmds mkfs.ext4 mkfs.xfs mkfs.vfat mmd mcopy debugfs jq sha256sum parted python3 \
	cryptsetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'boot files test key' >"$key"
schema=${FDEWIZ_SCHEMA:-$FDEWIZ_SRCDIR/data/fdewiz-list.schema.json}

# list_json IMG: list --json of IMG into $IMG_TMP/NAME.json, checked against the schema.
list_json()
{
	local out=$IMG_TMP/$(basename "$1").json rc=0

	"$FDEWIZ" list --json "$1" >"$out"
	python3 "$FDEWIZ_SRCDIR/tests/lib/check-list-schema.py" "$out" "$schema" || rc=$?
	assert_eq "list --json of $(basename "$1") matches the schema" 0 "$rc"
	echo "$out"
}
p() { echo ".disks[0].partitions[] | select(.number == $1)"; }

# refused IMG N TEXT [ENCRYPT OPTIONS]: encrypt IMG:N is refused, says TEXT and that
# nothing changed, and writes no header; unchanged() then checks every byte of IMG.
declare -A sums=()
refused()
{
	local img=$1 n=$2 text=$3 out rc=0

	shift 3
	out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
		--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/b.hdr" "$@" "$img:$n" 2>&1) ||
		rc=$?
	assert_true "encrypt $(basename "$img"):$n $* is refused (exit $rc)" test "$rc" -eq 1
	assert_contains "encrypt $(basename "$img"):$n $* says why" "$out" "$text"
	assert_contains "encrypt $(basename "$img"):$n $* says nothing changed" "$out" \
		"Nothing was changed"
	assert_true "encrypt $(basename "$img"):$n $*: no header backup" test ! -e "$IMG_TMP/b.hdr"
}

# unchanged IMG: every byte of IMG is as it was when it was made (its sha256 in sums[IMG]).
# Once an image, after all that was tried on it: hashing one takes a second or two.
unchanged()
{
	assert_eq "$(basename "$1") is unchanged after all of it" "${sums[$1]}" "$(sha256sum <"$1")"
}

# A. Debian's encrypted install: its /boot is the closed root's.
a=$IMG_TMP/encrypted-install.img
encrypted_install_image "$a"
sums[$a]=$(sha256sum <"$a")
j=$(list_json "$a")
assert_json "$j" "$(p 2) | .verdict.reason" boot-files
assert_json "$j" "$(p 2) | .verdict.eligible" false
assert_json "$j" "$(p 2) | .verdict.strategies" "[]"
assert_json "$j" "$(p 2) | .boot_files.found" '["kernels","initramfs","kernel-files","grub"]'
assert_json "$j" "$(p 2) | .boot_files.where" top
assert_json "$j" "$(p 2) | .boot_files.root" "$a:3"
assert_json "$j" "$(p 2) | .belongs_to" null
whose="The /boot of the encrypted system on $a:3 (LUKS2): it holds kernels, initramfs \
images, kernel configurations and GRUB's files, which its boot loader reads before any \
passphrase can be asked for"
assert_json "$j" "$(p 2) | .verdict.message | startswith(\"$whose\")" true
assert_json "$j" "$(p 3) | .verdict.reason" already-luks
table=$("$FDEWIZ" list "$a" 2>&1)
assert_contains "list A: /boot is refused with whose it is" "$table" \
	"The /boot of the encrypted system on $a:3 (LUKS2)"
refused "$a" 2 "$whose"
refused "$a" 2 "$whose" --strategy "detached-header=$IMG_TMP/hdr"
assert_true "no detached header was written" test ! -e "$IMG_TMP/hdr"
rc=0
out=$("$FDEWIZ" encrypt --dry-run "$a:2" 2>&1) || rc=$?
assert_eq "encrypt --dry-run A:2 is refused" 1 "$rc"
assert_contains "encrypt --dry-run A:2 says whose" "$out" "$whose"
rc=0
out=$("$FDEWIZ" encrypt --at-restart --yes --fast-pbkdf --key-file "$key" "$a:2" 2>&1) || rc=$?
assert_true "encrypt --at-restart A:2 is refused (exit $rc)" test "$rc" -ne 0
assert_contains "encrypt --at-restart A:2 says nothing changed" "$out" "Nothing was changed"
# erase-encrypt: allowed (a reinstall may mean it), but the confirmation says in words what
# stops starting; a wrong answer changes nothing.
rc=0
out=$(echo no | "$FDEWIZ" erase-encrypt --fs none --key-file "$key" "$a:2" 2>&1) || rc=$?
assert_eq "erase-encrypt A:2 with a wrong answer stops" 1 "$rc"
assert_contains "erase-encrypt A:2 says whose /boot and what stops" "$out" \
	"It is the /boot of the encrypted system on $a:3 (it holds kernels, initramfs images, \
kernel configurations and GRUB's files): that system will no longer start."
assert_contains "erase-encrypt A:2 asks for the typed answer" "$out" \
	"Type the partition's address ($a:2) to continue"
unchanged "$a"

# B. A lone /boot, its root on no disk given; free space after it (grow would work).
b=$IMG_TMP/lone-boot.img
boot_tree "$IMG_TMP/lone" root=UUID=5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d
img_new "$b" 200
img_msdos "$b"
img_part "$b" primary 1 129
fake_system_mkfs "$b" 1 "$IMG_TMP/lone" "$(cat /proc/sys/kernel/random/uuid)"
sums[$b]=$(sha256sum <"$b")
j=$(list_json "$b")
assert_json "$j" "$(p 1) | .verdict.reason" boot-files
assert_json "$j" "$(p 1) | .boot_files.root" null
lone="Holds kernels, initramfs images, kernel configurations and GRUB's files: a boot \
loader reads this partition before any passphrase can be asked for"
assert_json "$j" "$(p 1) | .verdict.message | startswith(\"$lone\")" true
assert_json "$j" "$(p 1) | .verdict.message | contains(\"erase and encrypt it\")" true
refused "$b" 1 "$lone"
refused "$b" 1 "$lone" --strategy grow
unchanged "$b"

# C. Boot files by content elsewhere; what is not a boot stays eligible.
c=$IMG_TMP/others.img
u=$IMG_TMP/under
mkdir -p "$u/photos"
boot_tree "$u/boot" root=/dev/sda2
head -c 65536 /dev/urandom >"$u/photos/p1.jpg"
ctl=$IMG_TMP/control
mkdir -p "$ctl/boot"
echo "notes on booting" >"$ctl/boot/notes.txt"
echo "a user's file" >"$ctl/config-backup.txt"
luks_uuid=4277daac-c5d5-4a6d-8870-8ff6e50292fe
rt=$IMG_TMP/root-inside
mkdir -p "$rt/etc" "$rt/usr/lib" "$rt/boot/grub"
rt_uuid=$(cat /proc/sys/kernel/random/uuid)
echo "UUID=$rt_uuid / ext4 errors=remount-ro 0 1" >"$rt/etc/fstab"
printf 'PRETTY_NAME="Test Linux"\n' >"$rt/usr/lib/os-release"
head -c 4096 /dev/urandom >"$rt/boot/vmlinuz-6.1.0-13-amd64"
echo 'menuentry "x" { linux /boot/vmlinuz-6.1.0-13-amd64 }' >"$rt/boot/grub/grub.cfg"
img_new "$c" 642
img_gpt "$c"
img_part "$c" Under 1 65
img_part "$c" Control 65 129
img_part "$c" RhelBoot 129 449
img_part "$c" Crypt 449 513
img_part "$c" WinBoot 513 577
img_part "$c" RootInside 577 end
fake_system_mkfs "$c" 1 "$u" "$(cat /proc/sys/kernel/random/uuid)"
fake_system_mkfs "$c" 2 "$ctl" "$(cat /proc/sys/kernel/random/uuid)"
img_mkfs "$c" 3 xfs
dev=$(img_loop "$c" 3)
img_mount "$dev" "$IMG_TMP/mnt"
mkdir -p "$IMG_TMP/mnt/grub2"
head -c 8192 /dev/urandom >"$IMG_TMP/mnt/vmlinuz-6.5.6-300.fc39.x86_64"
head -c 8192 /dev/urandom >"$IMG_TMP/mnt/initramfs-6.5.6-300.fc39.x86_64.img"
printf 'menuentry "RHEL" {\n\tlinux /vmlinuz-6.5.6 root=/dev/mapper/rhel-root rd.luks.uuid=luks-%s\n}\n' \
	"$luks_uuid" >"$IMG_TMP/mnt/grub2/grub.cfg"
img_umount "$IMG_TMP/mnt"
img_unloop "$dev"
dev=$(img_loop "$c" 4)
cryptsetup luksFormat --type luks2 --batch-mode --key-file "$(img_keyfile)" \
	"${IMG_LUKS_PBKDF[@]}" --uuid "$luks_uuid" "$dev"
img_unloop "$dev"
dev=$(img_loop "$c" 5)
mkfs.vfat -n WINBOOT "$dev" >/dev/null
head -c 4096 /dev/urandom >"$IMG_TMP/bootmgfw.efi"
MTOOLS_SKIP_CHECK=1 mmd -i "$dev" ::/EFI ::/EFI/Microsoft ::/EFI/Microsoft/Boot 2>/dev/null
MTOOLS_SKIP_CHECK=1 mcopy -i "$dev" "$IMG_TMP/bootmgfw.efi" ::/EFI/Microsoft/Boot/ 2>/dev/null
img_unloop "$dev"
fake_system_mkfs "$c" 6 "$rt" "$rt_uuid"
sums[$c]=$(sha256sum <"$c")
j=$(list_json "$c")
assert_json "$j" "$(p 1) | .verdict.reason" boot-files
assert_json "$j" "$(p 1) | .boot_files.where" boot
assert_json "$j" "$(p 1) | .boot_files.found | index(\"kernels\") != null" true
assert_json "$j" "$(p 1) | .verdict.message | contains(\"in its boot folder, and no system of its own\")" true
assert_json "$j" "$(p 2) | .verdict.reason" ok
assert_json "$j" "$(p 2) | .verdict.eligible" true
assert_json "$j" "$(p 2) | .boot_files" null
assert_json "$j" "$(p 3) | .fstype" xfs
assert_json "$j" "$(p 3) | .verdict.reason" boot-files
assert_json "$j" "$(p 3) | .boot_files.found" '["kernels","initramfs","grub"]'
assert_json "$j" "$(p 3) | .boot_files.root" "$c:4"
# Where this kernel mounts FAT, Windows' boot manager is seen; where it cannot, the
# partition is refused as not looked into. Either way it is not converted.
modprobe -q vfat 2>/dev/null || true
if grep -qw vfat /proc/filesystems; then
	assert_json "$j" "$(p 5) | .verdict.reason" other-os-boot
	assert_json "$j" "$(p 5) | .boot_files.found | index(\"windows-boot\") != null" true
	win="Holds Windows' boot manager"
else
	assert_json "$j" "$(p 5) | .verdict.reason" not-looked-inside
	assert_json "$j" "$(p 5) | .boot_files.looked" false
	win="could not look inside its vfat filesystem (this kernel has no driver for it"
fi
assert_json "$j" "$(p 6) | .installed_system.name" "Test Linux"
assert_json "$j" "$(p 6) | .boot_files" null
assert_json "$j" "$(p 6) | .verdict.reason != \"boot-files\"" true
refused "$c" 1 "in its boot folder, and no system of its own"
refused "$c" 3 "The /boot of the encrypted system on $c:4 (LUKS2)"
refused "$c" 3 "The /boot of the encrypted system on $c:4 (LUKS2)" --strategy \
	"detached-header=$IMG_TMP/hdr3"
refused "$c" 5 "$win"
unchanged "$c"
assert_true "no loop device is left over the images" \
	test -z "$(losetup -j "$a")$(losetup -j "$b")$(losetup -j "$c")"

assert_finish
