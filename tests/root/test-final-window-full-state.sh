#!/bin/bash
# A power cut in libcryptsetup's last step (the end window, test point "last-hotzone") with
# the state folder on a small filesystem of its own, as on a machine whose /var/lib is
# small. The end-window repair keeps two copies of the header (16 MiB each) beside the
# header backup; refreshing that backup afterwards then found no room ("Cannot write header
# backup file ...header.new") and status still named the stale backup, which describes the
# volume before conversion.
#  A. 56 MiB tmpfs: the repair's copies go when the refresh does not fit, and the backup
#     then describes the finished volume (cryptsetup reads the same header in both);
#  B. the refresh fails anyway (FDEWIZ_TEST_FAIL_AT=header-backup-refresh, -ENOSPC):
#     resume, status and status --json say there is no valid header backup and how to make
#     one; making one with 'fdewiz header-backup' makes the record name it.
# Every volume is then decrypted by the cryptsetup program, checked by e2fsck, and the
# sha256 of every file compared.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup mkfs.ext4 e2fsck cryptsetup sha256sum mount umount mountpoint

img_test_init
work=$IMG_TMP
mib=1048576
part_mib=80
res=$work/res

detach_killed() {
	local f
	for f in "$work"/disk-*.img; do
		[ ! -e "$f" ] || img_detach_all "$f"
	done
}
at_exit detach_killed

mkdir -p "$work/tree/small" "$work/tree/big" "$work/mnt"
for i in $(seq 1 100); do head -c $((i * 71 % 6007 + 1)) /dev/urandom >"$work/tree/small/s$i"; done
for i in 1 2; do head -c $((i * 5 * mib)) /dev/urandom >"$work/tree/big/b$i"; done
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
printf 'full state folder passphrase' >"$work/key"
truncate -s $((part_mib + 2))M "$work/template.img"
parted -s "$work/template.img" mklabel gpt mkpart Data ext4 1MiB $((part_mib + 1))MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/template.img" $((part_mib * 1024))k

part_loop() {
	local dev
	dev=$(losetup -f --show -o $mib --sizelimit $((part_mib * mib)) "$1")
	img_register loop "$dev"
	echo "$dev"
}

# kill_in_window NAME: encrypt a fresh copy (header backup in the state folder, as by
# default) and SIGKILL it after the last hotzone's commit.
kill_in_window() {
	local img=$work/disk-$1.img rc=0

	cp --sparse=always "$work/template.img" "$img"
	FDEWIZ_TEST_KILL_AT=last-hotzone "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf \
		--no-bench --key-file "$work/key" "$img:1" >"$work/$1.out" 2>&1 </dev/null || rc=$?
	assert_eq "$1: killed at last-hotzone (exit status)" 137 "$rc"
	[ "$rc" = 137 ] || { tail -20 "$work/$1.out"; assert_finish; }
}

# verify NAME: cryptsetup decrypts the volume (through a new header file), e2fsck, sha256.
verify() {
	verify_decrypt --as "$1" --key "$work/key" --sums "$work/sums" "$work/disk-$1.img" 1
}

# --- A: a 56 MiB state folder --------------------------------------------------------
export FDEWIZ_STATE_DIR=$work/state-A
mkdir -m 700 "$FDEWIZ_STATE_DIR"
mount -t tmpfs -o size=56m,mode=0700 fdewiz-state "$FDEWIZ_STATE_DIR"
at_exit umount -l "$FDEWIZ_STATE_DIR"
kill_in_window A
backup=$(jq -r .header_backup "$FDEWIZ_STATE_DIR"/jobs/*.json)
assert_true "A: the header backup is in the small state folder" \
	test "${backup%/*}" = "$FDEWIZ_STATE_DIR"
uuid=$(cryptsetup luksUUID "$backup")
rc=0
"$FDEWIZ" resume --foreground --key-file "$work/key" "$work/disk-A.img:1" >"$res.out" \
	2>"$res.err" || rc=$?
cat "$res.out" "$res.err" >"$res.all"
assert_eq "A: resume exit status" 0 "$rc"
assert_contains "A: resume finished the end window" "$(cat "$res.all")" \
	"header was not finalised"
assert_contains "A: resume finished" "$(cat "$res.all")" "is now encrypted"
assert_true "A: no 'Cannot write header backup'" \
	eval '! grep -q "Cannot write header backup" "$res.all"'
assert_true "A: no 'could not refresh the header backup'" \
	eval '! grep -q "could not refresh the header backup" "$res.all"'
assert_true "A: no 'No valid header backup'" eval '! grep -q "No valid header backup" "$res.all"'
for f in "$uuid-final-window.hdr" "$uuid-final.hdr" "${backup##*/}.new"; do
	assert_true "A: $f is not left in the state folder" test ! -e "$FDEWIZ_STATE_DIR/$f"
done
loop=$(part_loop "$work/disk-A.img")
cryptsetup luksDump --dump-json-metadata "$loop" | jq -S . >"$work/A-device.json"
img_unloop "$loop"
cryptsetup luksDump --dump-json-metadata "$backup" | jq -S . >"$work/A-backup.json"
assert_eq "A: the backup has no requirement left (describes the finished volume)" 0 \
	"$(jq '.config.requirements // {} | .mandatory // [] | length' "$work/A-backup.json")"
assert_true "A: the backup holds the device's header" cmp -s "$work/A-device.json" \
	"$work/A-backup.json"
"$FDEWIZ" status --json "$work/disk-A.img:1" >"$res.json"
assert_json "$res.json" '.conversions[0].state' complete
assert_json "$res.json" '.conversions[0].header_backup' "$backup"
assert_json "$res.json" '.conversions[0].header_backup_stale' null
verify A

# --- B: the refresh fails anyway ------------------------------------------------------
export FDEWIZ_STATE_DIR=$work/state-B
kill_in_window B
backup=$(jq -r .header_backup "$FDEWIZ_STATE_DIR"/jobs/*.json)
rc=0
FDEWIZ_TEST_FAIL_AT=header-backup-refresh "$FDEWIZ" resume --foreground \
	--key-file "$work/key" "$work/disk-B.img:1" >"$res.out" 2>"$res.err" || rc=$?
cat "$res.out" "$res.err" >"$res.all"
assert_eq "B: resume exit status (the volume is complete)" 0 "$rc"
assert_contains "B: resume finished" "$(cat "$res.all")" "is now encrypted"
assert_contains "B: resume says there is no valid backup" "$(tr -s ' \n' ' ' <"$res.all")" \
	"No valid header backup: $backup still describes the volume before conversion"
assert_contains "B: resume says how to make one" "$(tr -s ' \n' ' ' <"$res.all")" \
	"fdewiz header-backup $work/disk-B.img:1 FILE"
run_cmd "$res" "$FDEWIZ" status "$work/disk-B.img:1"
assert_eq "B: status exit status" 0 "$RUN_RC"
assert_contains "B: status says there is no valid backup" "$(cat "$res.out")" \
	"No valid header backup: $backup"
assert_contains "B: status says how to make one" "$(cat "$res.out")" "fdewiz header-backup"
"$FDEWIZ" status --json "$work/disk-B.img:1" >"$res.json"
assert_json "$res.json" '.conversions[0].state' complete
assert_json "$res.json" '.conversions[0].header_backup' null
assert_json "$res.json" '.conversions[0].header_backup_stale' "$backup"
# The stale file is refused by header-restore, as before; a new backup is made and named.
run_cmd "$res" "$FDEWIZ" header-backup "$work/disk-B.img:1" "$work/B-new.hdr"
assert_eq "B: header-backup exit status" 0 "$RUN_RC"
"$FDEWIZ" status --json "$work/disk-B.img:1" >"$res.json"
assert_json "$res.json" '.conversions[0].header_backup' "$work/B-new.hdr"
assert_json "$res.json" '.conversions[0].header_backup_stale' null
run_cmd "$res" "$FDEWIZ" status "$work/disk-B.img:1"
assert_true "B: status no longer warns" eval '! grep -q "No valid header backup" "$res.out"'
verify B

assert_finish
