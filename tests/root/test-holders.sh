#!/bin/bash
# Holders found by identity, not by name: for each kind of loop device that can sit over a
# partition's bytes (attached through a bind-mounted path, through a path deleted and made
# again, over a loop device used as the disk, with -o over that whole disk, stacked on the
# target loop device), bare and mounted read-only: 'list' says in use and names it, 'encrypt'
# and 'resume' refuse, and the image's sha256 is unchanged.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup parted mkfs.ext4 sha256sum losetup mount jq

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'holders test key' >"$key"
mkdir -p "$IMG_TMP/dir" "$IMG_TMP/bind" "$IMG_TMP/mnt"

# A: a plain ext4 partition (for list and encrypt). B: a conversion cryptsetup began and
# left unfinished (for resume).
A=$IMG_TMP/dir/a.img
B=$IMG_TMP/dir/b.img
img_ext4_fixture "$A" 200 8
img_new "$B" 200
img_gpt "$B"
img_part "$B" Data 1 199
loop=$(img_loop "$B" 1)
run_quiet cryptsetup reencrypt --encrypt --init-only --reduce-device-size 32M --batch-mode \
	--key-file "$key" "${IMG_LUKS_PBKDF[@]}" "$loop"
img_unloop "$loop"
off=$(img_part_offset "$A" 1)
size=$(img_part_size "$A" 1)

# attach NAME ARGS...: losetup, recorded for cleanup; the device in $dev.
attach()
{
	dev=$(losetup --find --show "$@")
	img_register loop "$dev"
}

# Loop devices whose backing is another loop device: img_loop_is_ours does not know them.
detach()
{
	losetup -d "$1"
	img_unregister loop "$1"
	for _ in $(seq 1 100); do
		losetup "$1" >/dev/null 2>&1 || return 0
		sleep 0.05
	done
}

# expect_held CASE LIST_PATH NUMBER ADDRESS HOLDER [MOUNTPOINT] IMAGE
expect_list()
{
	local what=$1 path=$2 num=$3 holder=$4 mnt=$5 out=$IMG_TMP/list.json

	"$FDEWIZ" list --json "$path" >"$out" 2>"$out.err" || true
	json_load "$out" ".disks[0].partitions[] | select(.number == $num)"
	assert_field "$what: list" verdict.eligible false
	assert_contains "$what: list names the holder" "${JSON[holders]-}" "\"${holder#/dev/}\""
	if [ -n "$mnt" ]; then
		assert_contains "$what: list names the mount" "${JSON[mountpoints]-}" "\"$mnt\""
		assert_field "$what: list" verdict.reason mounted
	else
		assert_field "$what: list" verdict.reason has-holders
	fi
	"$FDEWIZ" list "$path" >"$out.txt" 2>&1 || true
	assert_contains "$what: the table says why" "$(cat "$out.txt")" "${holder#/dev/}"
}

# expect_encrypt_refused CASE ADDRESS HOLDER IMAGE
expect_encrypt_refused()
{
	local sum

	sum=$(sha256sum <"$4")
	rm -f "$IMG_TMP/h"
	run_cmd "$IMG_TMP/enc" "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
		--key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/h" "$2"
	assert_eq "$1: encrypt refuses" 1 "$RUN_RC"
	assert_contains "$1: encrypt names the holder" "$(cat "$IMG_TMP/enc.err")" "${3#/dev/}"
	assert_contains "$1: encrypt says nothing changed" "$(cat "$IMG_TMP/enc.err")" \
		"Nothing was changed"
	assert_eq "$1: encrypt left the image as it was" "$sum" "$(sha256sum <"$4")"
}

# expect_resume_refused CASE ADDRESS HOLDER IMAGE
expect_resume_refused()
{
	local sum

	sum=$(sha256sum <"$4")
	run_cmd "$IMG_TMP/res" "$FDEWIZ" resume --foreground --key-file "$key" "$2"
	assert_eq "$1: resume refuses" 1 "$RUN_RC"
	assert_contains "$1: resume names the holder" "$(cat "$IMG_TMP/res.err")" "${3#/dev/}"
	assert_contains "$1: resume says nothing changed" "$(cat "$IMG_TMP/res.err")" \
		"Nothing was changed"
	assert_eq "$1: resume left the image as it was" "$sum" "$(sha256sum <"$4")"
}

# with_ro_mount CASE LIST_PATH NUMBER ADDRESS HOLDER: mount the holder read-only, check.
with_ro_mount()
{
	mount -o ro "$5" "$IMG_TMP/mnt"
	img_register mount "$IMG_TMP/mnt"
	expect_list "$1, mounted read-only" "$2" "$3" "$5" "$IMG_TMP/mnt"
	expect_encrypt_refused "$1, mounted read-only" "$4" "$5" "$A"
	umount "$IMG_TMP/mnt"
	img_unregister mount "$IMG_TMP/mnt"
}

# 0. The control: nothing holds A or B, so list says it can be encrypted, resume reaches
# the passphrase (and the holder check did not stop it).
"$FDEWIZ" list --json "$A" >"$IMG_TMP/idle.json"
json_load "$IMG_TMP/idle.json" '.disks[0].partitions[0]'
assert_field "idle: list" verdict.eligible true
assert_field "idle: list" holders '[]'

# 1. Attached through a bind mount of the image's folder: the kernel names the bind path.
mount --bind "$IMG_TMP/dir" "$IMG_TMP/bind"
img_register mount "$IMG_TMP/bind"
for img in "$A" "$B"; do
	attach -o "$off" --sizelimit "$size" "$IMG_TMP/bind/$(basename "$img")"
	eval "held_$(basename "$img" .img)=$dev"
done
expect_list "bind path" "$A" 1 "$held_a" ""
expect_encrypt_refused "bind path" "$A:1" "$held_a" "$A"
expect_resume_refused "bind path" "$B:1" "$held_b" "$B"
with_ro_mount "bind path" "$A" 1 "$A:1" "$held_a"
detach "$held_a"
detach "$held_b"
umount "$IMG_TMP/bind"
img_unregister mount "$IMG_TMP/bind"

# 2. Attached through a path that was deleted and made again. The loop device keeps the
# inode it was given: its bytes are those of a.img's other name (keep.img), which is held;
# the new file at the old path is other bytes, and nothing holds it.
ln "$A" "$IMG_TMP/dir/keep.img"
ln "$B" "$IMG_TMP/dir/keepb.img"
attach -o "$off" --sizelimit "$size" "$A"
held_a=$dev
attach -o "$off" --sizelimit "$size" "$B"
held_b=$dev
for img in "$A" "$B"; do
	rm "$img"
	cp --sparse=always "$IMG_TMP/dir/keep$([ "$img" = "$B" ] && echo b).img" "$img"
done
assert_contains "the kernel's name for it says deleted" \
	"$(cat /sys/block/"${held_a#/dev/}"/loop/backing_file)" "(deleted)"
keep=$IMG_TMP/dir/keep.img
expect_list "deleted path, same inode" "$keep" 1 "$held_a" ""
expect_encrypt_refused "deleted path, same inode" "$keep:1" "$held_a" "$keep"
expect_resume_refused "deleted path, same inode" "$IMG_TMP/dir/keepb.img:1" "$held_b" \
	"$IMG_TMP/dir/keepb.img"
mount -o ro "$held_a" "$IMG_TMP/mnt"
img_register mount "$IMG_TMP/mnt"
expect_list "deleted path, mounted read-only" "$keep" 1 "$held_a" "$IMG_TMP/mnt"
expect_encrypt_refused "deleted path, mounted read-only" "$keep:1" "$held_a" "$keep"
umount "$IMG_TMP/mnt"
img_unregister mount "$IMG_TMP/mnt"
"$FDEWIZ" list --json "$A" >"$IMG_TMP/new.json"
json_load "$IMG_TMP/new.json" '.disks[0].partitions[0]'
assert_field "the new file at the old path" holders '[]'
assert_field "the new file at the old path" verdict.eligible true
detach "$held_a"
detach "$held_b"
rm "$IMG_TMP/dir/keep.img" "$IMG_TMP/dir/keepb.img"

# 3. A loop device as the disk (no partition nodes here) and a second loop device over
# partition 1's byte range of it: a loop device over a block device, never a holder in sysfs.
attach "$A"
disk_a=$dev
attach "$B"
disk_b=$dev
attach -o "$off" --sizelimit "$size" "$disk_a"
held_a=$dev
attach -o "$off" --sizelimit "$size" "$disk_b"
held_b=$dev
expect_list "loop over a partition" "$disk_a" 1 "$held_a" ""
expect_encrypt_refused "loop over a partition" "$disk_a:1" "$held_a" "$A"
expect_resume_refused "loop over a partition" "$disk_b:1" "$held_b" "$B"
with_ro_mount "loop over a partition" "$disk_a" 1 "$disk_a:1" "$held_a"
detach "$held_a"
detach "$held_b"

# 4. losetup -o over the whole disk: starts before the partition, has no size limit.
attach -o 512 "$disk_a"
held_a=$dev
attach -o 512 "$disk_b"
held_b=$dev
expect_list "losetup -o over the disk" "$disk_a" 1 "$held_a" ""
expect_encrypt_refused "losetup -o over the disk" "$disk_a:1" "$held_a" "$A"
expect_resume_refused "losetup -o over the disk" "$disk_b:1" "$held_b" "$B"
detach "$held_a"
detach "$held_b"
detach "$disk_a"
detach "$disk_b"

# 5. A loop device stacked on the target, itself a loop device over the partition and named
# as the device to encrypt; the stacked one mounted read-only too.
tgt_a=$(img_loop "$A" 1)
tgt_b=$(img_loop "$B" 1)
attach "$tgt_a"
held_a=$dev
attach "$tgt_b"
held_b=$dev
expect_list "stacked loop" "$tgt_a" 0 "$held_a" ""
expect_encrypt_refused "stacked loop" "$tgt_a" "$held_a" "$A"
expect_resume_refused "stacked loop" "$tgt_b" "$held_b" "$B"
with_ro_mount "stacked loop" "$tgt_a" 0 "$tgt_a" "$held_a"
detach "$held_a"
detach "$held_b"
img_unloop "$tgt_a"
img_unloop "$tgt_b"

# 6. Nothing holds them any more: list says A can be encrypted; resume of B gets past the
# holder check to the passphrase (a wrong one here), and A's files are all intact.
"$FDEWIZ" list --json "$A" >"$IMG_TMP/end.json"
json_load "$IMG_TMP/end.json" '.disks[0].partitions[0]'
assert_field "after: list" verdict.eligible true
printf 'wrong' >"$IMG_TMP/wrong"
run_cmd "$IMG_TMP/res" "$FDEWIZ" resume --foreground --key-file "$IMG_TMP/wrong" "$B:1"
assert_contains "after: resume reaches the passphrase" "$(cat "$IMG_TMP/res.err")" \
	"passphrase is wrong"
assert_true "every file of A intact" img_verify "$A" 1
assert_finish
