#!/bin/bash
# The other two ways to make room for the header: growing the partition into free space
# (filesystem untouched) and a detached header for XFS, which cannot shrink. Each result
# is decrypted by the cryptsetup program and checked with fsck and sha256 of every file.
set -euo pipefail

lib=$(dirname "$0")/../lib
. "$lib/assert.sh"
. "$lib/images.sh"
require_root
require_cmds jq parted losetup mkfs.ext4 mkfs.xfs dumpe2fs e2fsck xfs_repair cryptsetup blkid \
	sha256sum
require_fdewiz
img_test_init
work=$IMG_TMP
export FDEWIZ_STATE_DIR=$work/state
loop=""
fail() { echo "FAIL: $*" >&2; exit 1; }
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
check_files() {
	img_mount "$loop" "$work/mnt" ro
	(cd "$work/mnt" && sha256sum -c --quiet "$work/sums") || fail "$1: checksums differ"
	img_umount "$work/mnt"
}

# 1. Grow: a GPT partition with 64 MiB free after it; the filesystem must not be resized.
truncate -s 400M "$work/disk.img"
parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 300MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/disk.img" $((299 * 1024))k
read -r start size < <(part_geom)
attach "$start" "$size"
blocks_before=$(dumpe2fs -h "$loop" 2>/dev/null | sed -n 's/^Block count: *//p')
detach
[ "$("$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.strategy')" = grow ] ||
	fail "grow: auto strategy is not grow"
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--header-backup "$work/grow.hdr" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; fail "grow: encrypt failed"; }
grep -q "Growing the partition" "$work/out" || fail "grow: partition not grown"
grep -q "Shrinking" "$work/out" && fail "grow: the filesystem was shrunk"
read -r start2 size2 < <(part_geom)
[ "$start2" = "$start" ] || fail "grow: partition start moved ($start -> $start2)"
[ "$size2" -eq $((size + 32 * mib)) ] || fail "grow: size $size -> $size2, expected +32 MiB"
attach "$start2" "$size2"
cryptsetup reencrypt --decrypt --header "$work/dec.hdr" --key-file "$work/key" --batch-mode \
	"$loop" >/dev/null || fail "grow: cryptsetup could not decrypt"
e2fsck -fn "$loop" >/dev/null 2>&1 || fail "grow: fsck"
blocks_after=$(dumpe2fs -h "$loop" 2>/dev/null | sed -n 's/^Block count: *//p')
[ "$blocks_after" = "$blocks_before" ] || fail "grow: filesystem resized ($blocks_before -> $blocks_after)"
check_files grow
detach
echo "PASS: grow: partition +32 MiB at the same start, filesystem untouched, $(wc -l <"$work/sums") files equal"

# 2. Detached header on XFS without free space: the data does not move.
rm -f "$work/disk.img" "$work/dec.hdr"
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
	fail "detached: XFS without space should be no-room"
# Without a header file name, auto is refused and nothing changes.
before=$(sha256sum <"$work/disk.img")
rc=0; "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	"$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "Nothing was changed" "$work/out" || { cat "$work/out"; fail "detached: auto not refused"; }
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || fail "detached: refused run changed the image"
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--strategy "detached-header=$work/media.luks" --header-backup "$work/media.bak" \
	"$work/disk.img:1" >"$work/out" 2>&1 || { cat "$work/out"; fail "detached: encrypt failed"; }
[ -s "$work/media.luks" ] || fail "detached: no header file"
[ "$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')" = complete ] ||
	fail "detached: status is not complete"
# The header file is never overwritten.
hdr_sum=$(sha256sum <"$work/media.luks")
rc=0; "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--strategy "detached-header=$work/media.luks" "$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "detached: a second run exited $rc"
[ "$(sha256sum <"$work/media.luks")" = "$hdr_sum" ] || fail "detached: header file overwritten"
attach "$start" "$size"
[ -z "$(blkid -p -o value -s TYPE "$loop" || true)" ] || fail "detached: the device still shows a filesystem in clear"
cryptsetup open --test-passphrase --header "$work/media.luks" --key-file "$work/key" "$loop" ||
	fail "detached: the header does not open the device"
cryptsetup reencrypt --decrypt --header "$work/media.luks" --key-file "$work/key" --batch-mode \
	"$loop" >/dev/null || fail "detached: cryptsetup could not decrypt"
xfs_repair -n "$loop" >/dev/null 2>&1 || fail "detached: xfs_repair -n"
check_files detached
detach
echo "PASS: detached header on XFS: decrypted by cryptsetup, xfs_repair clean, files equal"
