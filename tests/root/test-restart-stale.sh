#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The step at a restart acts only while its preparation is still in the system: an
# initramfs that still carries fdewiz's step after 'fdewiz cancel' (an old copy, say one
# the old GRUB still loads from /boot inside the root after a failed move of /boot) must
# change nothing. Here the step runs as the initramfs runs it (a stage record and a
# prepared header beside it, the passphrase on its standard input, its own /run) on the
# partition of an image whose root has no stage record (cancelled), then one whose stage
# record belongs to another preparation: each time it refuses, says why and what to do,
# and the filesystem and its files are unchanged. The same on a btrfs whose root is the
# subvolume @rootfs, looked at from its top level with no log replayed: refused with no stage
# record in @rootfs (one at the top level, outside the root, does not count) and with
# another preparation's there, not a byte of the partition changed; with its own there, the
# step is not refused as cancelled. (An LVM PV's step activates its volume group, which
# needs device-mapper: test-vm-system-lvm.sh checks it there.) First a passphrase that does
# not open the prepared header: the boot script is told to ask again. Each time the step
# leaves the started system why it did not begin (its /run), and status there says the root
# is still prepared and why this start is plain.
# Cost: about 15 s.
. "$(dirname "$0")/../lib/start.sh"
require_cmds parted sha256sum losetup unshare cryptsetup mkfs.ext4 mkfs.btrfs btrfs blkid

img_test_init
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
img=$IMG_TMP/disk.img
img_ext4_fixture "$img" 96 8
printf 'restart passphrase, stale initramfs' >"$IMG_TMP/key"
loop=$(img_loop "$img" 1)
fs_uuid=$(blkid -s UUID -o value "$loop")

# What the initramfs carries: the stage record and the header prepared with the passphrase.
carried=$IMG_TMP/fdewiz-restart
mkdir -p "$carried"
uuid=0b7e3a55-1f2d-4c8e-9a61-5d2f8e4c7b10
# stage UUID [DEVICE FS_UUID LINES]: the record of a root on DEVICE (default the ext4's), with
# LINES at its end.
stage()
{
	printf 'device=%s\naddress=%s\nuuid=%s\nfs_uuid=%s\nname=root_crypt\nboot_mib=0\n' \
		"${2:-$loop}" "${2:-$loop}" "$1" "${3:-$fs_uuid}"
	printf 'home=/var/lib/fdewiz/restart\n%s' "${4:-}"
}
stage "$uuid" >"$carried/stage"
truncate -s 16M "$carried/header"
cryptsetup luksFormat --type luks2 --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--header "$carried/header" --key-file "$IMG_TMP/key" "$loop"
before=$(dd if="$loop" bs=1M count=16 status=none | sha256sum)

# step [DIR [KEY]]: the boot script's call on the stage record in DIR (default $carried), the
# passphrase in the file KEY (default $IMG_TMP/key), in a mount namespace with a /run of its
# own; what it left there for the started system (why it did not begin) in step.failed, and
# what `status` says then of the root prepared in $IMG_TMP/system (its state folder) in
# step.status.
step()
{
	local rc=0
	rm -f "$IMG_TMP/step.failed" "$IMG_TMP/step.status"
	unshare -m bash -c "mount --make-rprivate / && mount -t tmpfs tmpfs /run && {
		rc=0
		\"$FDEWIZ\" restart-step \"${1:-$carried}/stage\" <\"${2:-$IMG_TMP/key}\" || rc=\$?
		cat /run/fdewiz-restart/step-failed >\"$IMG_TMP/step.failed\" 2>/dev/null || :
		FDEWIZ_STATE_DIR=\"$IMG_TMP/system\" \"$FDEWIZ\" status \"$loop\" \
			>\"$IMG_TMP/step.status\" 2>&1 || :
		exit \$rc
	}" >"$IMG_TMP/step.out" 2>"$IMG_TMP/step.err" || rc=$?
	echo "$rc"
}
# The started system's own preparation of the same root (its stage record).
mkdir -p "$IMG_TMP/system/restart"
stage "$uuid" >"$IMG_TMP/system/restart/stage"

# 0. A passphrase that does not open the prepared header (typed wrong three times at the
# start): the boot script's "try again" status; the started system is left why.
printf 'not the passphrase' >"$IMG_TMP/wrong-key"
rc=$(step "$carried" "$IMG_TMP/wrong-key")
assert_eq "wrong passphrase: the step asks again (exit 3)" 3 "$rc"
assert_contains "wrong passphrase: the started system is left why" \
	"$(cat "$IMG_TMP/step.failed")" "the passphrase typed at the start did not open the prepared header"
assert_eq "wrong passphrase: its first 16 MiB unchanged" "$before" \
	"$(dd if="$loop" bs=1M count=16 status=none | sha256sum)"
# What the started system's status says: still prepared, and why this start is plain.
echo "status at that start: $(cat "$IMG_TMP/step.status")"
assert_contains "wrong passphrase: status says the root is still prepared" \
	"$(tr -s ' \n' ' ' <"$IMG_TMP/step.status")" "prepared: encrypted at the next restart"
assert_contains "wrong passphrase: status says why this start is plain" \
	"$(tr -s ' \n' ' ' <"$IMG_TMP/step.status")" \
	"At this start its step did not begin: the passphrase typed at the start did not open"

# 1. Cancelled: the system's root has no stage record any more.
rc=$(step)
assert_eq "cancelled: the step refuses" 1 "$rc"
assert_contains "cancelled: says why" "$(cat "$IMG_TMP/step.err")" \
	"the encryption was cancelled in the system ('fdewiz cancel')"
assert_contains "cancelled: says nothing was changed and what to do" \
	"$(cat "$IMG_TMP/step.err")" "nothing was changed; make its initramfs again (update-initramfs -u)"
assert_eq "cancelled: no mapping to mount" "" "$(cat "$IMG_TMP/step.out")"
assert_contains "cancelled: the started system is left why" "$(cat "$IMG_TMP/step.failed")" \
	"the encryption was cancelled in the system ('fdewiz cancel')"
assert_eq "cancelled: still ext4, no LUKS header" ext4 "$(blkid -p -s TYPE -o value "$loop")"
assert_eq "cancelled: its first 16 MiB unchanged" "$before" \
	"$(dd if="$loop" bs=1M count=16 status=none | sha256sum)"

# 2. The system's stage record is another preparation's (cancelled, then prepared again).
mnt=$IMG_TMP/root
img_mount "$loop" "$mnt"
mkdir -p "$mnt/var/lib/fdewiz/restart"
stage 7d1c2f00-5e4b-4a3c-9b2a-0123456789ab >"$mnt/var/lib/fdewiz/restart/stage"
img_umount "$mnt"
before=$(dd if="$loop" bs=1M count=16 status=none | sha256sum)
rc=$(step)
assert_eq "another preparation's: the step refuses" 1 "$rc"
assert_contains "another preparation's: says why" "$(cat "$IMG_TMP/step.err")" \
	"the encryption was cancelled in the system"
assert_eq "another preparation's: its first 16 MiB unchanged" "$before" \
	"$(dd if="$loop" bs=1M count=16 status=none | sha256sum)"
img_unloop "$loop"
rc=0
img_verify "$img" 1 || rc=$?
assert_eq "every file checks out" 0 "$rc"

# 3. A btrfs root in the subvolume @rootfs, as Debian's installer makes it.
bimg=$IMG_TMP/btrfs.img
img_new "$bimg" 200
img_gpt "$bimg"
img_part "$bimg" Root 1 199
bloop=$(img_loop "$bimg" 1)
mkfs.btrfs -q -f "$bloop" >/dev/null
bfs_uuid=$(blkid -s UUID -o value "$bloop")
bcarried=$IMG_TMP/fdewiz-restart-btrfs
mkdir -p "$bcarried"
bstage() # UUID
{
	stage "$1" "$bloop" "$bfs_uuid" $'fstype=btrfs\nsubvol=@rootfs\n'
}
bstage "$uuid" >"$bcarried/stage"
truncate -s 16M "$bcarried/header"
cryptsetup luksFormat --type luks2 --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--header "$bcarried/header" --key-file "$IMG_TMP/key" "$bloop"
bmnt=$IMG_TMP/btrfs
img_mount "$bloop" "$bmnt"
btrfs subvolume create "$bmnt/@rootfs" >/dev/null
mkdir -p "$bmnt/@rootfs/var/lib/fdewiz/restart" "$bmnt/var/lib/fdewiz/restart"
# This preparation's record outside the root's subvolume: not the system's.
bstage "$uuid" >"$bmnt/var/lib/fdewiz/restart/stage"
img_umount "$bmnt"
before=$(sha256sum <"$bloop")
rc=$(step "$bcarried")
assert_eq "btrfs, cancelled: the step refuses" 1 "$rc"
assert_contains "btrfs, cancelled: says why" "$(cat "$IMG_TMP/step.err")" \
	"the encryption was cancelled in the system ('fdewiz cancel')"
assert_contains "btrfs, cancelled: says nothing was changed and what to do" \
	"$(cat "$IMG_TMP/step.err")" "nothing was changed; make its initramfs again (update-initramfs -u)"
assert_eq "btrfs, cancelled: no mapping to mount" "" "$(cat "$IMG_TMP/step.out")"
assert_eq "btrfs, cancelled: not a byte of the partition changed" "$before" \
	"$(sha256sum <"$bloop")"

# 4. The record in @rootfs is another preparation's.
img_mount "$bloop" "$bmnt"
bstage 7d1c2f00-5e4b-4a3c-9b2a-0123456789ab >"$bmnt/@rootfs/var/lib/fdewiz/restart/stage"
img_umount "$bmnt"
before=$(sha256sum <"$bloop")
rc=$(step "$bcarried")
assert_eq "btrfs, another preparation's: the step refuses" 1 "$rc"
assert_contains "btrfs, another preparation's: says why" "$(cat "$IMG_TMP/step.err")" \
	"the encryption was cancelled in the system"
assert_eq "btrfs, another preparation's: not a byte of the partition changed" "$before" \
	"$(sha256sum <"$bloop")"

# 5. This preparation's record in @rootfs: the step goes past this check, and past e2fsck's,
# which is an ext root's only. (The encrypt flow's plan comes next, and refuses this
# partition as too small to shrink a btrfs in beside the header, which is not this test's
# concern.)
img_mount "$bloop" "$bmnt"
bstage "$uuid" >"$bmnt/@rootfs/var/lib/fdewiz/restart/stage"
img_umount "$bmnt"
step "$bcarried" >/dev/null
assert_not_contains "btrfs, its own record: not refused as cancelled" \
	"$(cat "$IMG_TMP/step.err")" "the encryption was cancelled in the system"
assert_not_contains "btrfs, its own record: no e2fsck on a btrfs" \
	"$(cat "$IMG_TMP/step.err")" "e2fsck -p"
img_unloop "$bloop"
assert_finish
