#!/bin/bash
# fdewiz list sees what is in use: mounts, loop holders, active swap, unfinished LUKS2 conversions.
. "$(dirname "$0")/../lib/start.sh"
FDEWIZ_SCHEMA=${FDEWIZ_SCHEMA:-$FDEWIZ_SRCDIR/data/fdewiz-list.schema.json}
require_cmds jq parted losetup mount swapon swapoff mkfs.ext4 mkswap e2fsck resize2fs \
	cryptsetup

img_test_init

MiB=$((1024 * 1024))

# list PATH NAME: list PATH as JSON into $IMG_TMP/NAME.json (path left in $json), check
# exit status and schema. Not run in $(...): the checks must count in this shell.
list()
{
	local out=$IMG_TMP/$2.json rc=0

	"$FDEWIZ" list --json "$1" >"$out" 2>"$out.err" || rc=$?
	assert_eq "fdewiz list --json $1 ($2): exit status" 0 "$rc"
	[ ! -s "$out.err" ] || { echo "stderr of fdewiz list ($2):"; cat "$out.err"; }
	assert_true "$2.json matches the schema" \
		/usr/bin/python3 "$lib/check-list-schema.py" "$out" "$FDEWIZ_SCHEMA"
	json=$out
}

# load JSON N: fields of partition N of the only disk into JSON[].
load()
{
	json_load "$1" ".disks[0].partitions[] | select(.number == $2)"
	[ -n "${JSON[number]-}" ] || assert_fail "$(basename "$1"): no partition $2 in the list"
}

# Nothing uses partition N: the control case, and the state after each use ends.
check_idle()
{
	load "$1" "$2"
	assert_field "$3 p$2" mountpoints '[]'
	assert_field "$3 p$2" holders '[]'
	assert_field "$3 p$2" swap_active false
	assert_field "$3 p$2" verdict.reason ok
	assert_field "$3 p$2" verdict.eligible true
}

# One image, five partitions: each gets put to a different use at the same time.
img=$IMG_TMP/disk.img
img_new "$img" 720
img_gpt "$img"
img_part "$img" Mnt 1 129
img_part "$img" Held 129 257
img_part "$img" Swp 257 321
img_part "$img" Conv 321 577
img_part "$img" Idle 577 705
img_mkfs "$img" 1 ext4 mnt
img_mkfs "$img" 2 ext4 held
img_mkfs "$img" 3 swap swp
img_mkfs "$img" 4 ext4 conv
img_mkfs "$img" 5 ext4 idle
img_fill "$img" 4 16

list "$img" before
for n in 1 2 4 5; do
	check_idle "$json" "$n" before
done
load "$json" 3
assert_field "before p3" verdict.reason swap

# p1: mounted through a loop device; data written after mounting must count, so the
# usage has to come from the kernel, not from the (stale) superblock.
loop_mnt=$(img_loop "$img" 1)
mnt=$IMG_TMP/mnt1
img_mount "$loop_mnt" "$mnt"
head -c $((24 * MiB)) /dev/urandom >"$mnt/data"
sync -f "$mnt/data"
# Mounted, the size is still the filesystem's own (superblock: blocks x block size, with
# metadata and journal), and free space is the kernel's live count, so "used" means
# the same as for an unmounted filesystem: everything not free.
sb() { dumpe2fs -h "$loop_mnt" 2>/dev/null | awk -F: -v k="$1" '$1 == k { gsub(/ /, "", $2); print $2 }'; }
fs_bytes=$(( $(sb "Block count") * $(sb "Block size") ))
df_free=$(( $(stat -f -c '%f*%S' "$mnt") ))
df_used=$((fs_bytes - df_free))

# p2: held by a loop device nobody mounted.
loop_held=$(img_loop "$img" 2)

# p3: active swap through a loop device.
loop_swap=$(img_loop "$img" 3)
img_swapon "$loop_swap"

# p4: an in-place encryption started but not finished: shrink the filesystem by the
# header room, then let cryptsetup write its reencryption metadata and stop there.
loop_conv=$(img_loop "$img" 4)
run_quiet e2fsck -f -y "$loop_conv"
run_quiet resize2fs "$loop_conv" $(($(img_part_size "$img" 4) / MiB - 32))M
cryptsetup reencrypt --encrypt --type luks2 --reduce-device-size 32M --init-only \
	--batch-mode --key-file "$(img_keyfile)" "${IMG_LUKS_PBKDF[@]}" "$loop_conv"
img_unloop "$loop_conv"

list "$img" busy

load "$json" 1
assert_field "mounted p1" mountpoints "[\"$mnt\"]"
assert_field "mounted p1" holders "[\"${loop_mnt#/dev/}\"]"
assert_field "mounted p1" verdict.reason mounted
assert_field "mounted p1" verdict.eligible false
assert_field "mounted p1" verdict.strategy null
assert_contains "mounted p1 verdict message" "${JSON[verdict.message]-}" "$mnt"
assert_near "mounted p1 fs_used vs statfs free" "$df_used" "${JSON[fs_used]-}" "$MiB"
assert_eq "mounted p1 fs_size vs superblock" "$fs_bytes" "${JSON[fs_size]-}"

load "$json" 2
assert_field "held p2" mountpoints '[]'
assert_field "held p2" holders "[\"${loop_held#/dev/}\"]"
assert_field "held p2" verdict.reason has-holders
assert_field "held p2" verdict.eligible false
assert_contains "held p2 verdict message" "${JSON[verdict.message]-}" "${loop_held#/dev/}"

load "$json" 3
assert_field "swap p3" swap_active true
assert_field "swap p3" holders "[\"${loop_swap#/dev/}\"]"
assert_field "swap p3" verdict.reason active-swap
assert_field "swap p3" verdict.eligible false

load "$json" 4
assert_field "converting p4" fstype crypto_LUKS
assert_field "converting p4" luks.version 2
assert_field "converting p4" luks.reencrypt_unfinished true
assert_field "converting p4" verdict.reason luks-unfinished
assert_field "converting p4" verdict.eligible false

# Loop devices over p1..p3 must not spill over onto their neighbour.
check_idle "$json" 5 busy

# The table says the same in words.
out=$("$FDEWIZ" list "$img" 2>/dev/null) || assert_fail "fdewiz list $img failed"
printf '%s\n' "$out"
assert_contains "table" "$out" "Mounted at $mnt"
assert_contains "table" "$out" "In use by ${loop_held#/dev/}"
assert_contains "table" "$out" "Active swap space"
assert_contains "table" "$out" "conversion on it is unfinished"

# Once each use ends, the partition is free again: nothing is remembered.
img_umount "$mnt"
img_unloop "$loop_mnt"
img_unloop "$loop_held"
swapoff "$loop_swap"
img_unregister swap "$loop_swap"
img_unloop "$loop_swap"
list "$img" after
for n in 1 2 5; do
	check_idle "$json" "$n" after
done
load "$json" 3
assert_field "after p3" swap_active false
assert_field "after p3" verdict.reason swap

# A whole loop device over a filesystem image (no partition table): one entry, number 0.
plain=$IMG_TMP/plain.img
img_new "$plain" 200
mkfs.ext4 -q -F -b 4096 -L plain "$plain"
loop_plain=$(img_loop "$plain" 0)
list "$loop_plain" block
json_load "$json" '.disks[0] | del(.partitions) + {parts: (.partitions | length)}'
assert_field "loop disk" path "$loop_plain"
assert_field "loop disk" kind block
assert_field "loop disk" size $((200 * MiB))
assert_field "loop disk" table none
assert_field "loop disk" parts 1
json_load "$json" '.disks[0].partitions[0]'
assert_field "loop disk entry" number 0
assert_field "loop disk entry" node "$loop_plain"
assert_field "loop disk entry" address "$loop_plain"
assert_field "loop disk entry" start 0
assert_field "loop disk entry" size $((200 * MiB))
assert_field "loop disk entry" fstype ext4
assert_field "loop disk entry" label plain
assert_field "loop disk entry" mountpoints '[]'
assert_field "loop disk entry" verdict.reason ok

# The image file behind it is held by that loop device.
list "$plain" plain-held
json_load "$json" '.disks[0].partitions[0]'
assert_field "plain image" holders "[\"${loop_plain#/dev/}\"]"
assert_field "plain image" verdict.reason has-holders

mnt=$IMG_TMP/mnt-plain
img_mount "$loop_plain" "$mnt"
list "$loop_plain" block-mounted
json_load "$json" '.disks[0].partitions[0]'
assert_field "mounted loop disk" mountpoints "[\"$mnt\"]"
assert_field "mounted loop disk" verdict.reason mounted
assert_field "mounted loop disk" verdict.eligible false

assert_finish
