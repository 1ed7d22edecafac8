#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The step at a restart acts only while its preparation is still in the system: an
# initramfs that still carries fdewiz's step after 'fdewiz cancel' (an old copy, say one
# the old GRUB still loads from /boot inside the root after a failed move of /boot) must
# change nothing. Here the step runs as the initramfs runs it (a stage record and a
# prepared header beside it, the passphrase on its standard input, its own /run) on the
# partition of an image whose root has no stage record (cancelled), then one whose stage
# record belongs to another preparation: each time it refuses, says why and what to do,
# and the filesystem and its files are unchanged.
# Cost: about 10 s.
set -euo pipefail

. "$(dirname "$0")/../lib/assert.sh"
. "$(dirname "$0")/../lib/images.sh"
require_root
require_cmds parted sha256sum losetup unshare cryptsetup mkfs.ext4 blkid
require_fdewiz

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
stage()
{
	printf 'device=%s\naddress=%s\nuuid=%s\nfs_uuid=%s\nname=root_crypt\nboot_mib=0\nhome=/var/lib/fdewiz/restart\n' \
		"$loop" "$loop" "$1" "$fs_uuid"
}
stage "$uuid" >"$carried/stage"
truncate -s 16M "$carried/header"
cryptsetup luksFormat --type luks2 --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--header "$carried/header" --key-file "$IMG_TMP/key" "$loop"
before=$(dd if="$loop" bs=1M count=16 status=none | sha256sum)

# step: the boot script's call, in a mount namespace with a /run of its own.
step()
{
	local rc=0
	unshare -m bash -c "mount --make-rprivate / && mount -t tmpfs tmpfs /run &&
		\"$FDEWIZ\" restart-step \"$carried/stage\" <\"$IMG_TMP/key\"" \
		>"$IMG_TMP/step.out" 2>"$IMG_TMP/step.err" || rc=$?
	echo "$rc"
}

# 1. Cancelled: the system's root has no stage record any more.
rc=$(step)
assert_eq "cancelled: the step refuses" 1 "$rc"
assert_contains "cancelled: says why" "$(cat "$IMG_TMP/step.err")" \
	"the encryption was cancelled in the system ('fdewiz cancel')"
assert_contains "cancelled: says nothing was changed and what to do" \
	"$(cat "$IMG_TMP/step.err")" "nothing was changed; make its initramfs again (update-initramfs -u)"
assert_eq "cancelled: no mapping to mount" "" "$(cat "$IMG_TMP/step.out")"
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
assert_finish
