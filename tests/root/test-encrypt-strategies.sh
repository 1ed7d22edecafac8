#!/bin/bash
# The other two ways to make room for the header: growing the partition into free space
# (filesystem untouched) and a detached header for XFS, which cannot shrink. Each result
# is decrypted by the cryptsetup program and checked with fsck and sha256 of every file.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup mkfs.ext4 mkfs.xfs dumpe2fs e2fsck xfs_repair cryptsetup blkid \
	sha256sum
img_test_init
work=$IMG_TMP
export FDEWIZ_STATE_DIR=$work/state
loop=""
mib=1048576

mkdir -p "$work/tree/a" "$work/tree/b" "$work/mnt"
for i in $(seq 1 800); do head -c $((i * 53 % 7919 + 1)) /dev/urandom >"$work/tree/a/f$i"; done
for i in $(seq 1 6); do head -c $((i * 4 * mib)) /dev/urandom >"$work/tree/b/big$i"; done
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
printf 'strategies test key' >"$work/key"

attach()
{
	loop=$(losetup -f --show -o "$1" --sizelimit "$2" "$work/disk.img")
	img_register loop "$loop"
}
detach() { img_unloop "$loop"; loop=""; }
# partition 1's start and size in bytes, as the table says now
part_geom() { parted -m -s "$work/disk.img" unit B print 2>/dev/null | awk -F: '$1 == 1 { sub("B","",$2); sub("B","",$4); print $2, $4 }'; }

# 1. Grow: a GPT partition with 64 MiB free after it; the filesystem must not be resized.
truncate -s 400M "$work/disk.img"
parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 300MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/disk.img" $((299 * 1024))k
read -r start size < <(part_geom)
attach "$start" "$size"
blocks_before=$(dumpe2fs -h "$loop" 2>/dev/null | sed -n 's/^Block count: *//p')
detach
[ "$("$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.strategy')" = grow ] ||
	assert_stop "grow: auto strategy is not grow"
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--header-backup "$work/grow.hdr" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; assert_stop "grow: encrypt failed"; }
grep -q "Growing the partition" "$work/out" || assert_stop "grow: partition not grown"
grep -q "Shrinking" "$work/out" && assert_stop "grow: the filesystem was shrunk"
read -r start2 size2 < <(part_geom)
[ "$start2" = "$start" ] || assert_stop "grow: partition start moved ($start -> $start2)"
[ "$size2" -eq $((size + 32 * mib)) ] || assert_stop "grow: size $size -> $size2, expected +32 MiB"
assert_reached "grow: partition +32 MiB at the same start, the filesystem not shrunk"
attach "$start2" "$size2"
verify_decrypt --as grow --key "$work/key" --sums "$work/sums" "$loop"
blocks_after=$(dumpe2fs -h "$loop" 2>/dev/null | sed -n 's/^Block count: *//p')
[ "$blocks_after" = "$blocks_before" ] || assert_stop "grow: filesystem resized ($blocks_before -> $blocks_after)"
detach
assert_reached "grow: filesystem untouched ($blocks_after blocks)"

# 2. Detached header on XFS without free space: the data does not move.
rm -f "$work/disk.img"
truncate -s 400M "$work/disk.img"
parted -s "$work/disk.img" mklabel gpt mkpart Media xfs 1MiB 399MiB 2>/dev/null
read -r start size < <(part_geom)
attach "$start" "$size"
mkfs.xfs -q -f "$loop"
img_mount "$loop" "$work/mnt"
cp -a "$work/tree/." "$work/mnt/"
img_umount "$work/mnt"
detach
[ "$("$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.reason')" = no-room ] ||
	assert_stop "detached: XFS without space should be no-room"
# Without a header file name, auto is refused and nothing changes.
before=$(sha256sum <"$work/disk.img")
rc=0; "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	"$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "Nothing was changed" "$work/out" || { cat "$work/out"; assert_stop "detached: auto not refused"; }
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || assert_stop "detached: refused run changed the image"
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--strategy "detached-header=$work/media.luks" --header-backup "$work/media.bak" \
	"$work/disk.img:1" >"$work/out" 2>&1 || { cat "$work/out"; assert_stop "detached: encrypt failed"; }
[ -s "$work/media.luks" ] || assert_stop "detached: no header file"
[ "$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')" = complete ] ||
	assert_stop "detached: status is not complete"
# The header file is never overwritten.
hdr_sum=$(sha256sum <"$work/media.luks")
rc=0; "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--strategy "detached-header=$work/media.luks" "$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || assert_stop "detached: a second run exited $rc"
[ "$(sha256sum <"$work/media.luks")" = "$hdr_sum" ] || assert_stop "detached: header file overwritten"
attach "$start" "$size"
[ -z "$(blkid -p -o value -s TYPE "$loop" || true)" ] || assert_stop "detached: the device still shows a filesystem in clear"
cryptsetup open --test-passphrase --header "$work/media.luks" --key-file "$work/key" "$loop" ||
	assert_stop "detached: the header does not open the device"
assert_reached "detached: header file kept, nothing in clear, the header opens the device"
verify_decrypt --as detached --header "$work/media.luks" --fs xfs --key "$work/key" \
	--sums "$work/sums" "$loop"
detach
assert_finish
