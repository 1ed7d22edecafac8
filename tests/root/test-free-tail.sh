#!/bin/bash
# A filesystem smaller than its partition by at least the header room is converted as it
# is: strategy free-tail, no resize and nothing grown back; the plan says so. ext4 and XFS,
# each decrypted back by the cryptsetup program, checked with fsck and sha256 of every file,
# and its size compared with the size before.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq cryptsetup e2fsck dumpe2fs xfs_repair xfs_db sha256sum

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'free tail key' >"$key"

# fs_blocks TYPE DEV: the filesystem's own size in blocks, from its superblock.
fs_blocks()
{
	if [ "$1" = ext4 ]; then
		dumpe2fs -h "$2" 2>/dev/null | sed -n 's/^Block count: *//p'
	else
		xfs_db -r -c 'sb 0' -c 'p dblocks' "$2" | sed 's/.* = //'
	fi
}

# one TYPE PART_MIB FS_MIB
one()
{
	local type=$1 img=$IMG_TMP/$1.img out=$IMG_TMP/out json=$IMG_TMP/list.json dev
	local blocks_before blocks_after

	CASE="$type of $3 MiB on a $2 MiB partition"
	img_new "$img" $(($2 + 2))
	img_gpt "$img"
	img_part "$img" Data 1 end
	dev=$(img_loop "$img" 1)
	if [ "$type" = ext4 ]; then
		mkfs.ext4 -q -F -b 4096 "$dev" "$(($3 * 1024))k"
	else
		mkfs.xfs -q -f -d size="$3m" "$dev"
	fi
	blocks_before=$(fs_blocks "$type" "$dev")
	img_unloop "$dev"
	img_fill "$img" 1 40

	"$FDEWIZ" list --json "$img" >"$json"
	assert_json "$json" '.disks[0].partitions[0].verdict.strategy' free-tail
	assert_json "$json" '.disks[0].partitions[0].verdict.eligible' true
	assert_json "$json" '.disks[0].partitions[0].verdict.message |
		test("without resizing")' true
	assert_json "$json" '.disks[0].partitions[0].verdict.strategies | index("shrink")' null

	"$FDEWIZ" encrypt --dry-run --key-file "$key" "$img:1" >"$out" 2>&1 ||
		assert_fail "$CASE: dry run failed: $(cat "$out")"
	assert_contains "$CASE: plan strategy" "$(cat "$out")" "strategy:        free-tail"
	assert_contains "$CASE: plan says no resize" "$(cat "$out")" "resize:          none"

	"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
		--header-backup "$IMG_TMP/$type.hdr" "$img:1" >"$out" 2>&1 ||
		assert_fail "$CASE: encrypt failed: $(tail -3 "$out")"
	assert_not_contains "$CASE: nothing shrunk" "$(cat "$out")" "Shrinking"
	assert_json "$(ls "$FDEWIZ_STATE_DIR"/jobs/*.json | head -1)" '.fs_to_grow' ""

	verify_decrypt --as "$CASE" --fs "$type" "$img" 1
	dev=$(img_loop "$img" 1)
	blocks_after=$(fs_blocks "$type" "$dev")
	assert_eq "$CASE: filesystem size in blocks (not resized)" "$blocks_before" "$blocks_after"
	img_unloop "$dev"
	echo "$CASE: free-tail, $blocks_after blocks before and after, files verified"
	rm -rf "$FDEWIZ_STATE_DIR" "$img"
}

one ext4 300 250
one xfs 400 320
assert_finish
