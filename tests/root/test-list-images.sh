#!/bin/bash
# fdewiz list --json on GPT, MBR and table-less images: every field matches what was built.
. "$(dirname "$0")/../lib/start.sh"
FDEWIZ_SCHEMA=${FDEWIZ_SCHEMA:-$FDEWIZ_SRCDIR/data/fdewiz-list.schema.json}
require_cmds jq parted blkid losetup mkfs.ext4 mkfs.xfs mkfs.btrfs mkfs.vfat mkswap \
	cryptsetup dumpe2fs xfs_db btrfs fsck.fat

img_test_init

MiB=$((1024 * 1024))

# jq selector of partition N of the only disk in a list; 0 is the only entry of a disk
# without a partition table (its number is checked on its own).
part()
{
	if [ "$1" = 0 ]; then
		echo ".disks[0].partitions[0]"
	else
		echo ".disks[0].partitions[] | select(.number == $1)"
	fi
}

# One field of partition N as `parted -m unit B print` shows it (units stripped).
parted_field()
{
	parted -m -s "$1" unit B print 2>/dev/null |
		awk -F: -v n="$2" -v f="$3" '$1 == n { sub(/B$/, "", $f); sub(/;$/, "", $f); print $f }'
}

# Bytes of the free regions that start right where partition N ends, from `parted print
# free` (free space inside an extended partition is not "after" the extended one).
parted_free_after()
{
	parted -m -s "$1" unit B print free 2>/dev/null | awk -F: -v n="$2" '
		{ sub(/B$/, "", $2); sub(/B$/, "", $3); sub(/B$/, "", $4) }
		$5 !~ /^free/ && $1 == n { next_start = $3 + 1; next }
		$5 ~ /^free/ && next_start != "" && $2 + 0 == next_start { sum += $4; next_start = $3 + 1 }
		END { print sum + 0 }'
}

# parted's flags of partition N that the schema knows, sorted, comma-separated.
parted_flags()
{
	parted_field "$1" "$2" 7 | tr -d ' ' | tr ',' '\n' |
		grep -xE 'esp|bios_grub|boot|raid|lvm|swap' | sort | paste -sd, || true
}

# One blkid tag of the partition at OFFSET/SIZE in the image, "null" when absent.
blkid_tag()
{
	local v

	v=$(blkid -p -o value -s "$4" -O "$2" -S "$3" "$1" 2>/dev/null || true)
	echo "${v:-null}"
}

# A "Key: value" line of dumpe2fs -h.
e2_field()
{
	dumpe2fs -h "$1" 2>/dev/null | awk -F: -v k="$2" '$1 == k { gsub(/ /, "", $2); print $2 }'
}

# Start, size, name, flags, free space after, and what blkid finds: the same for all types.
check_layout()
{
	local img=$1 json=$2 n=$3 off size w="p$3"

	off=$(img_part_offset "$img" "$n")
	size=$(img_part_size "$img" "$n")
	json_load "$json" "$(part "$n") | . + {flags_sorted: (.flags | sort | join(\",\"))}"
	assert_field "$w" start "$off"
	assert_field "$w" size "$size"
	assert_field "$w" address "$(realpath "$img"):$n"
	assert_field "$w" node null
	if [ "$(img_table "$img")" = gpt ]; then
		assert_field "$w" name "$(parted_field "$img" "$n" 6)"
	else
		assert_field "$w" name null
	fi
	assert_field "$w" flags_sorted "$(parted_flags "$img" "$n")"
	assert_field "$w" free_after "$(parted_free_after "$img" "$n")"
	assert_field "$w" mountpoints "[]"
	assert_field "$w" holders "[]"
	assert_field "$w" swap_active false
	assert_field "$w" read_only false
	[ "${JSON[verdict.reason]-}" != extended ] || return 0
	assert_field "$w" fstype "$(blkid_tag "$img" "$off" "$size" TYPE)"
	assert_field "$w" fsversion "$(blkid_tag "$img" "$off" "$size" VERSION)"
	assert_field "$w" label "$(blkid_tag "$img" "$off" "$size" LABEL)"
	assert_field "$w" uuid "$(blkid_tag "$img" "$off" "$size" UUID)"
}

# Size, usage and block size against the filesystem's own tools.
check_usage()
{
	local img=$1 json=$2 n=$3 type=$4 w="p$3" dev bc fb bs db fdb lb
	local total used mnt df_used

	json_load "$json" "$(part "$n")"
	dev=$(img_loop "$img" "$n")
	case $type in
	ext4)
		bc=$(e2_field "$dev" "Block count")
		fb=$(e2_field "$dev" "Free blocks")
		bs=$(e2_field "$dev" "Block size")
		assert_field "$w" fs_block_size "$bs"
		assert_field "$w" fs_size "$((bc * bs))"
		assert_field "$w" fs_used "$(((bc - fb) * bs))"
		assert_field "$w" fs_free "$((fb * bs))"
		;;
	xfs)
		read -r db fdb bs lb < <(xfs_db -r -c 'sb 0' \
			-c 'p dblocks fdblocks blocksize logblocks' "$dev" |
			awk '{ print $3 }' | paste -sd' ')
		assert_field "$w" fs_block_size "$bs"
		assert_field "$w" fs_size "$((db * bs))"
		assert_field "$w" fs_used "$(((db - fdb) * bs))"
		# df leaves out the internal log and a small reserve; with the log back in it
		# must agree to within a few MiB. Read-only: a writable mount reserves more.
		mnt=$IMG_TMP/mnt.$n
		img_mount "$dev" "$mnt" ro
		df_used=$(df -B1 --output=used "$mnt" | tail -1)
		img_umount "$mnt"
		assert_near "$w xfs fs_used vs df + log" "$((df_used + lb * bs))" \
			"${JSON[fs_used]-}" $((4 * MiB))
		;;
	btrfs)
		read -r total used bs < <(btrfs inspect-internal dump-super "$dev" |
			awk '$1 == "total_bytes" { t = $2 } $1 == "bytes_used" { u = $2 }
				$1 == "sectorsize" { s = $2 } END { print t, u, s }')
		assert_field "$w" fs_block_size "$bs"
		assert_field "$w" fs_size "$total"
		assert_field "$w" fs_used "$used"
		;;
	vfat)
		bs=$(fsck.fat -n -v "$dev" | awk '$2 == "bytes" && $4 == "cluster" { print $1 }')
		assert_field "$w" fs_block_size "$bs"
		;;
	luks2)
		assert_field "$w" luks.version \
			"$(cryptsetup luksDump "$dev" | awk '$1 == "Version:" { print $2 }')"
		assert_field "$w" luks.version 2
		assert_field "$w" luks.reencrypt_unfinished false
		;;
	esac
	[ "$type" = luks2 ] || assert_field "$w" luks null
	img_unloop "$dev"
}

# check_verdict JSON N REASON ELIGIBLE STRATEGY STRATEGIES
check_verdict()
{
	json_load "$1" "$(part "$2")"
	assert_field "p$2" verdict.reason "$3"
	assert_field "p$2" verdict.eligible "$4"
	assert_field "p$2" verdict.strategy "$5"
	assert_field "p$2" verdict.strategies "$6"
}

check_disk()
{
	local img=$1 json=$2 table=$3

	json_load "$json" '{version: .fdewiz_list_version, errors, disks: (.disks | length)} +
		(.disks[0] | del(.partitions))'
	assert_field list version 1
	assert_field list errors '[]'
	assert_field list disks 1
	assert_field disk path "$(realpath "$img")"
	assert_field disk kind image
	assert_field disk size "$(stat -c %s "$img")"
	assert_field disk table "$table"
	assert_field disk logical_sector_size 512
	assert_field disk read_only false
}

# List IMAGE as JSON into FILE and validate it; a non-zero exit or invalid JSON fails.
list_json()
{
	local rc=0

	"$FDEWIZ" list --json "$1" >"$2" 2>"$2.err" || rc=$?
	assert_eq "fdewiz list --json $(basename "$1"): exit status" 0 "$rc"
	[ ! -s "$2.err" ] || { echo "stderr of fdewiz list --json:"; cat "$2.err"; }
	assert_true "$(basename "$2") matches the schema" \
		/usr/bin/python3 "$lib/check-list-schema.py" "$2" "$FDEWIZ_SCHEMA"
}

# The table names every partition and has one verdict sentence per partition.
check_table()
{
	local img=$1 json=$2 out rc=0 name count msg

	out=$("$FDEWIZ" list "$img" 2>"$IMG_TMP/table.err") || rc=$?
	assert_eq "fdewiz list $(basename "$img"): exit status" 0 "$rc"
	printf '%s\n' "$out"
	while read -r name; do
		assert_contains "table of $(basename "$img")" "$out" "$name"
	done < <(jq -r '.disks[0].partitions[] | .name // empty' "$json")
	while read -r count msg; do
		assert_eq "table lines saying '$msg'" "$count" \
			"$(sed 's/^ *//' <<<"$out" | grep -cxF -- "$msg" || true)"
	done < <(jq -r '.disks[0].partitions[].verdict.message' "$json" | sort | uniq -c)
}

# (a) GPT: one partition for each verdict this layout can produce.
gpt=$IMG_TMP/gpt.img
img_new "$gpt" 1600
img_gpt "$gpt"
img_part "$gpt" ESP 1 65
img_flag "$gpt" 1 esp
img_part "$gpt" Root 65 321
# mkfs.xfs refuses filesystems under 300 MB, so both XFS partitions get 320 MiB.
img_part "$gpt" Media 321 641
# 641..705: 64 MiB left free for Media to grow into
img_part "$gpt" Btrfs 705 961
img_part "$gpt" Swap 961 1025
img_part "$gpt" Vault 1025 1153
img_part "$gpt" Full 1153 1281
img_part "$gpt" Tight 1281 end
img_mkfs "$gpt" 1 vfat ESP
img_mkfs "$gpt" 2 ext4 root
img_mkfs "$gpt" 3 xfs media
img_mkfs "$gpt" 4 btrfs tank
img_mkfs "$gpt" 5 swap swap0
img_mkfs "$gpt" 6 luks2 vault
img_mkfs "$gpt" 7 ext4 full
img_mkfs "$gpt" 8 xfs tight
img_fill "$gpt" 2 8
img_fill "$gpt" 3 20
img_fill "$gpt" 7 90

# The layout must be what the verdicts below assume, or the test proves nothing.
dev=$(img_loop "$gpt" 2)
assert_true "Root has >= 64 MiB free" \
	test $(($(e2_field "$dev" "Free blocks") * 4096)) -ge $((64 * MiB))
img_unloop "$dev"
dev=$(img_loop "$gpt" 7)
assert_true "Full has < 64 MiB free" \
	test $(($(e2_field "$dev" "Free blocks") * 4096)) -lt $((64 * MiB))
img_unloop "$dev"

json=$IMG_TMP/gpt.json
list_json "$gpt" "$json"
check_disk "$gpt" "$json" gpt
assert_json "$json" '[.disks[0].partitions[].number]' '[1,2,3,4,5,6,7,8]'
for n in 1 2 3 4 5 6 7 8; do
	check_layout "$gpt" "$json" "$n"
done
assert_json "$json" "$(part 3) | .free_after" $((64 * MiB))
assert_json "$json" "$(part 1) | .flags | index(\"esp\") != null" true
check_usage "$gpt" "$json" 1 vfat
check_usage "$gpt" "$json" 2 ext4
check_usage "$gpt" "$json" 3 xfs
check_usage "$gpt" "$json" 4 btrfs
check_usage "$gpt" "$json" 5 swap
check_usage "$gpt" "$json" 6 luks2
check_usage "$gpt" "$json" 7 ext4
check_usage "$gpt" "$json" 8 xfs
check_verdict "$json" 1 efi-system false null '[]'
check_verdict "$json" 2 ok true shrink '["shrink","detached-header"]'
check_verdict "$json" 3 ok true grow '["grow","detached-header"]'
# A 256 MiB btrfs: the kernel resizes none below 256 MiB, so the header's room is not there.
check_verdict "$json" 4 full false null '["detached-header"]'
assert_json "$json" "$(part 4) | .verdict.message | contains(\"cannot be made smaller than 256 MiB\")" true
check_verdict "$json" 5 swap false null '[]'
check_verdict "$json" 6 already-luks false null '[]'
check_verdict "$json" 7 full false null '["detached-header"]'
check_verdict "$json" 8 no-room false null '["detached-header"]'
check_table "$gpt" "$json"

# (b) MBR: a primary, and a logical inside an extended with free space after it.
mbr=$IMG_TMP/mbr.img
img_new "$mbr" 400
img_msdos "$mbr"
img_part "$mbr" primary 1 129
img_part "$mbr" extended 129 end
img_part "$mbr" logical 130 258
img_mkfs "$mbr" 1 ext4 first
img_mkfs "$mbr" 5 ext4 inner
json=$IMG_TMP/mbr.json
list_json "$mbr" "$json"
check_disk "$mbr" "$json" msdos
assert_json "$json" '[.disks[0].partitions[].number]' '[1,2,5]'
for n in 1 2 5; do
	check_layout "$mbr" "$json" "$n"
done
assert_json "$json" "$(part 2) | .fstype" null
assert_true "logical partition has >= 32 MiB free after it" \
	test "$(jq -r "$(part 5) | .free_after" "$json")" -ge $((32 * MiB))
check_usage "$mbr" "$json" 1 ext4
check_usage "$mbr" "$json" 5 ext4
check_verdict "$json" 1 ok true shrink '["shrink","detached-header"]'
check_verdict "$json" 2 extended false null '[]'
check_verdict "$json" 5 ok true grow '["shrink","grow","detached-header"]'
check_table "$mbr" "$json"

# (c) A filesystem directly on the file, no partition table: one entry, number 0.
plain=$IMG_TMP/plain.img
img_new "$plain" 200
mkfs.ext4 -q -F -b 4096 -L plain "$plain"
json=$IMG_TMP/plain.json
list_json "$plain" "$json"
check_disk "$plain" "$json" none
assert_json "$json" '[.disks[0].partitions[].number]' '[0]'
json_load "$json" "$(part 0)"
assert_field p0 start 0
assert_field p0 size "$(stat -c %s "$plain")"
assert_field p0 address "$(realpath "$plain")"
assert_field p0 name null
assert_field p0 flags '[]'
assert_field p0 free_after 0
assert_field p0 fstype ext4
assert_field p0 label plain
assert_field p0 uuid "$(blkid -p -o value -s UUID "$plain")"
check_usage "$plain" "$json" 0 ext4
check_verdict "$json" 0 ok true shrink '["shrink","detached-header"]'
check_table "$plain" "$json"

assert_finish
