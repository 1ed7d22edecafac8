#!/bin/bash
# fdewiz header-backup / header-restore: a backup never overwrites a file; with both copies of
# the on-disk binary header destroyed the volume no longer opens, and restoring the backup
# makes it open again with every file intact (cryptsetup decrypts, fsck, sha256). Another
# volume's backup, a backup taken mid-conversion, a wrong confirmation and a running
# conversion are refused with the device byte for byte unchanged.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds cryptsetup parted mkfs.ext4 e2fsck sha256sum losetup flock

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/pass
printf 'header test passphrase' >"$key"

img_ext4_fixture "$img" 200 24
encrypt_ok enc "$img:1"
# fdewiz refuses a partition that a loop device holds: attach one only around each check.
part_sum() {
	dd if="$1" iflag=skip_bytes,count_bytes skip="$(img_part_offset "$1" 1)" \
		count="$(img_part_size "$1" 1)" bs=1M status=none | sha256sum
}
on_loop() {
	local l rc=0
	l=$(img_loop "$1" 1)
	shift
	"$@" "$l" || rc=$?
	img_unloop "$l"
	return $rc
}
opens() { cryptsetup open --test-passphrase --key-file "$key" "$1" 2>/dev/null; }
luks_uuid() { cryptsetup luksUUID "$1" 2>/dev/null || true; }
uuid=$(on_loop "$img" luks_uuid)

# 1. Backup: a LUKS2 header file of this volume; never over an existing file.
bak=$IMG_TMP/disk.hdr
run_cmd "$IMG_TMP/b1" "$FDEWIZ" header-backup "$img:1" "$bak"
assert_eq "backup: exit" 0 "$RUN_RC"
assert_eq "backup: UUID of the file" "$uuid" "$(cryptsetup luksUUID "$bak" 2>&1)"
assert_eq "backup: no temporary file left" "" "$(ls "$IMG_TMP" | grep fdewiz-tmp || true)"
bsum=$(sha256sum <"$bak")
run_cmd "$IMG_TMP/b2" "$FDEWIZ" header-backup "$img:1" "$bak"
assert_eq "backup over a file: exit" 1 "$RUN_RC"
assert_contains "backup over a file: message" "$(cat "$IMG_TMP/b2.err")" "already exists"
assert_eq "backup over a file: file unchanged" "$bsum" "$(sha256sum <"$bak")"
run_cmd "$IMG_TMP/b3" "$FDEWIZ" header-backup "$img:1" "$IMG_TMP/no/such/dir/x.hdr"
assert_eq "backup into a missing directory: exit" 1 "$RUN_RC"

# Another volume and its backup.
img2=$IMG_TMP/other.img
img_new "$img2" 100
img_gpt "$img2"
img_part "$img2" Other 1 99
img_mkfs "$img2" 1 luks2
other=$IMG_TMP/other.hdr
run_cmd "$IMG_TMP/b4" "$FDEWIZ" header-backup "$img2:1" "$other"
assert_eq "backup of the other volume: exit" 0 "$RUN_RC"

# 2. Another volume's backup onto an intact header: refused, nothing written.
before=$(part_sum "$img")
run_cmd "$IMG_TMP/r1" "$FDEWIZ" header-restore --yes "$img:1" "$other"
assert_eq "other volume's backup: exit" 1 "$RUN_RC"
assert_contains "other volume's backup: message" "$(cat "$IMG_TMP/r1.err")" "belongs to another volume"
assert_eq "other volume's backup: device unchanged" "$before" "$(part_sum "$img")"

# 3. Destroy both binary headers (primary at 0, secondary at the header size).
# The binary header size is in the header itself (big-endian at byte 8).
off=$(img_part_offset "$img" 1)
hdr_size=$((16#$(dd if="$img" iflag=skip_bytes skip=$((off + 8)) bs=8 count=1 status=none |
	od -An -tx1 | tr -d ' \n')))
assert_eq "binary header size" 16384 "$hdr_size"
for at in 0 "$hdr_size"; do
	head -c 4096 /dev/urandom | dd of="$img" bs=4096 seek=$(((off + at) / 4096)) \
		conv=notrunc,fsync status=none
done
rc=0; on_loop "$img" opens || rc=$?
assert_true "damaged: the volume no longer opens (cryptsetup exit $rc)" test "$rc" -ne 0
assert_eq "damaged: no LUKS UUID" "" "$(on_loop "$img" luks_uuid)"
damaged=$(part_sum "$img")

# 4. Another volume's backup onto the damaged header: refused (its digests differ).
run_cmd "$IMG_TMP/r2" "$FDEWIZ" header-restore --yes "$img:1" "$other"
assert_eq "other backup on damaged: exit" 1 "$RUN_RC"
assert_contains "other backup on damaged: message" "$(cat "$IMG_TMP/r2.err")" "nothing left on it shows"
assert_eq "other backup on damaged: device unchanged" "$damaged" "$(part_sum "$img")"

# 5. A wrong confirmation, and a running conversion (its lock held): refused.
run_cmd "$IMG_TMP/r3" bash -c "echo yes | '$FDEWIZ' header-restore '$img:1' '$bak'"
assert_eq "lower-case yes: exit" 1 "$RUN_RC"
assert_contains "lower-case yes: prompt" "$(cat "$IMG_TMP/r3.out")" "Type YES to continue"
assert_contains "lower-case yes: message" "$(cat "$IMG_TMP/r3.err")" "Nothing was changed"
assert_eq "lower-case yes: device unchanged" "$damaged" "$(part_sum "$img")"
read -r dev ino < <(stat -c '%d %i' "$img")
mkdir -p /run/fdewiz
# Hold the lock as a converting fdewiz would (the key: the image file and the offset).
exec 9>"/run/fdewiz/img-$dev-$ino-$(img_part_offset "$img" 1).lock"
flock -n 9
run_cmd "$IMG_TMP/r4" "$FDEWIZ" header-restore --yes "$img:1" "$bak"
exec 9>&-
assert_eq "while converting: exit" 1 "$RUN_RC"
assert_contains "while converting: message" "$(cat "$IMG_TMP/r4.err")" "another fdewiz is converting"
assert_eq "while converting: device unchanged" "$damaged" "$(part_sum "$img")"

# 6. The right backup, confirmed: the volume opens again and the data verifies.
t0=$(date +%s.%N)
run_cmd "$IMG_TMP/r5" bash -c "echo YES | '$FDEWIZ' header-restore '$img:1' '$bak'"
t1=$(date +%s.%N)
assert_eq "restore: exit" 0 "$RUN_RC"
cat "$IMG_TMP/r5.err" >&2
assert_contains "restore: message" "$(cat "$IMG_TMP/r5.out")" "was restored from"
assert_true "restored: the passphrase opens it" on_loop "$img" opens
assert_eq "restored: UUID" "$uuid" "$(on_loop "$img" luks_uuid)"
echo "header-restore took $(echo "$t1 - $t0" | bc) s"
# The backup `encrypt` wrote (replaced by the final header once converted) restores too.
run_cmd "$IMG_TMP/r5b" "$FDEWIZ" header-restore --yes "$img:1" "$IMG_TMP/enc.hdr"
assert_eq "encrypt's own backup: exit" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || cat "$IMG_TMP/r5b.err" >&2
assert_true "encrypt's own backup: the passphrase opens it" on_loop "$img" opens
verify_decrypt --as restored "$img" 1

# 7. A backup taken mid-conversion is refused (the data has moved since).
img3=$IMG_TMP/conv.img
img_new "$img3" 100
img_gpt "$img3"
img_part "$img3" Data 1 99
img_mkfs "$img3" 1 ext4 Data
loop=$(img_loop "$img3" 1)
run_quiet cryptsetup reencrypt --encrypt --init-only --reduce-device-size 32M \
	"${IMG_LUKS_PBKDF[@]}" --key-file "$key" --batch-mode "$loop"
run_quiet cryptsetup luksHeaderBackup --header-backup-file "$IMG_TMP/conv.hdr" "$loop"
img_unloop "$loop"
before=$(part_sum "$img3")
run_cmd "$IMG_TMP/r6" "$FDEWIZ" header-restore --yes "$img3:1" "$IMG_TMP/conv.hdr"
assert_eq "mid-conversion backup: exit" 1 "$RUN_RC"
assert_contains "mid-conversion backup: message" "$(cat "$IMG_TMP/r6.err")" "being converted"
assert_eq "mid-conversion backup: device unchanged" "$before" "$(part_sum "$img3")"
run_cmd "$IMG_TMP/b5" "$FDEWIZ" header-backup "$img3:1" "$IMG_TMP/conv2.hdr"
assert_eq "backup mid-conversion: exit" 1 "$RUN_RC"
assert_true "backup mid-conversion: no file" test ! -e "$IMG_TMP/conv2.hdr"

# 8. Not a header file; not a LUKS partition.
head -c 65536 /dev/urandom >"$IMG_TMP/junk"
run_cmd "$IMG_TMP/r7" "$FDEWIZ" header-restore --yes "$img2:1" "$IMG_TMP/junk"
assert_eq "junk file: exit" 1 "$RUN_RC"
assert_contains "junk file: message" "$(cat "$IMG_TMP/r7.err")" "not a LUKS2 header backup"
run_cmd "$IMG_TMP/b6" "$FDEWIZ" header-backup "$img:1" "$IMG_TMP/plain.hdr"
assert_eq "plain partition: exit" 1 "$RUN_RC"
assert_contains "plain partition: message" "$(cat "$IMG_TMP/b6.err")" "no LUKS2 header"

assert_finish
