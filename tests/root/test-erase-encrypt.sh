#!/bin/bash
# fdewiz erase-encrypt: the typed confirmation names the partition and what is on it; a wrong
# answer, a mounted or in-use partition, the EFI partition and (without device-mapper) a
# filesystem that would need the volume opened are refused with the image byte for byte
# unchanged; the right answer makes a LUKS2 volume that cryptsetup opens with the passphrase,
# and the partition next to it is untouched.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup parted mkfs.ext4 e2fsck sha256sum losetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/pass
printf 'erase test passphrase' >"$key"

img_new "$img" 300
img_gpt "$img"
img_part "$img" EFI 1 65
img_flag "$img" 1 esp
img_part "$img" Data 65 200
img_part "$img" Keep 200 299
img_mkfs "$img" 1 vfat EFI
img_mkfs "$img" 2 ext4 Data
img_mkfs "$img" 3 ext4 Keep
img_fill "$img" 2 8
img_fill "$img" 3 8
part_sum() {
	dd if="$img" iflag=skip_bytes,count_bytes skip="$(img_part_offset "$img" "$1")" \
		count="$(img_part_size "$img" "$1")" bs=1M status=none | sha256sum
}
on_loop() { img_on_loop "$img" "$@"; }
opens() { cryptsetup open --test-passphrase --key-file "$key" "$1" 2>/dev/null; }
have_dm() { grep -q ' device-mapper$' /proc/misc 2>/dev/null && [ -e /dev/mapper/control ]; }
whole=$(sha256sum <"$img")
keep=$(part_sum 3)

# 1. A wrong answer: refused, nothing written.
run_cmd "$IMG_TMP/e1" bash -c "printf '%s\n' '$img:3' | '$FDEWIZ' erase-encrypt --fs none \
	--fast-pbkdf --key-file '$key' '$img:2'"
assert_eq "wrong answer: exit" 1 "$RUN_RC"
assert_contains "prompt names the partition and its contents" "$(cat "$IMG_TMP/e1.out")" \
	"This destroys all data on $img:2 (ext4 'Data', 135 MiB)."
assert_contains "prompt asks for the address" "$(cat "$IMG_TMP/e1.out")" \
	"Type the partition's address ($img:2) to continue:"
assert_contains "wrong answer: message" "$(cat "$IMG_TMP/e1.err")" "Nothing was changed"
assert_eq "wrong answer: image unchanged" "$whole" "$(sha256sum <"$img")"
run_cmd "$IMG_TMP/e1b" bash -c "'$FDEWIZ' erase-encrypt --fs none --key-file '$key' '$img:2' </dev/null"
assert_eq "no answer (end of input): exit" 1 "$RUN_RC"
assert_eq "no answer: image unchanged" "$whole" "$(sha256sum <"$img")"

# 2. In use: mounted through a loop device; refused, unchanged.
loop=$(img_loop "$img" 2)
img_mount "$loop" "$IMG_TMP/mnt" ro,noload
run_cmd "$IMG_TMP/e2" "$FDEWIZ" erase-encrypt --fs none --yes-destroy-data --key-file "$key" "$img:2"
img_umount "$IMG_TMP/mnt"
img_unloop "$loop"
assert_eq "mounted: exit" 1 "$RUN_RC"
assert_contains "mounted: message" "$(cat "$IMG_TMP/e2.err")" "cannot erase $img:2"
assert_contains "mounted: nothing changed" "$(cat "$IMG_TMP/e2.err")" "Nothing was changed"
assert_eq "mounted: image unchanged" "$whole" "$(sha256sum <"$img")"

# 3. The EFI system partition; a label too long; an unknown filesystem.
run_cmd "$IMG_TMP/e3" "$FDEWIZ" erase-encrypt --fs none --yes-destroy-data --key-file "$key" "$img:1"
assert_eq "EFI partition: exit" 1 "$RUN_RC"
assert_contains "EFI partition: message" "$(cat "$IMG_TMP/e3.err")" "EFI system partition"
run_cmd "$IMG_TMP/e4" "$FDEWIZ" erase-encrypt --fs vfat --label TWELVECHARSX --yes-destroy-data \
	--key-file "$key" "$img:2"
assert_eq "long vfat label: exit" 1 "$RUN_RC"
assert_contains "long vfat label: message" "$(cat "$IMG_TMP/e4.err")" "at most 11 bytes"
run_cmd "$IMG_TMP/e5" "$FDEWIZ" erase-encrypt --fs ntfs --yes-destroy-data --key-file "$key" "$img:2"
assert_eq "unknown filesystem: exit" 2 "$RUN_RC"
assert_eq "refusals: image unchanged" "$whole" "$(sha256sum <"$img")"

# 4. A filesystem inside needs device-mapper: without it, a clear no and nothing changed.
if have_dm; then
	echo "note: this kernel has device-mapper; --fs ext4 is checked in tests/vm instead"
else
	run_cmd "$IMG_TMP/e6" "$FDEWIZ" erase-encrypt --fs ext4 --yes-destroy-data \
		--key-file "$key" "$img:2"
	assert_eq "ext4 without device-mapper: exit" 1 "$RUN_RC"
	assert_contains "ext4 without device-mapper: message" "$(cat "$IMG_TMP/e6.err")" \
		"no device-mapper"
	assert_contains "ext4 without device-mapper: what to do" "$(cat "$IMG_TMP/e6.err")" \
		"use --fs none"
	assert_eq "ext4 without device-mapper: image unchanged" "$whole" "$(sha256sum <"$img")"
fi

# 5. The right answer, then the passphrase, both on stdin.
t0=$(date +%s.%N)
run_cmd "$IMG_TMP/e7" bash -c "printf '%s\n%s' '$img:2' 'stdin passphrase' | '$FDEWIZ' \
	erase-encrypt --fs none --fast-pbkdf --key-file - '$img:2'"
t1=$(date +%s.%N)
assert_eq "erase: exit" 0 "$RUN_RC"
cat "$IMG_TMP/e7.err" >&2
assert_contains "erase: message" "$(cat "$IMG_TMP/e7.out")" "is now an empty LUKS2 volume"
printf 'stdin passphrase' >"$IMG_TMP/stdin.key"
dump=$(on_loop 2 cryptsetup luksDump)
assert_contains "luksDump: LUKS2" "$dump" "Version:       	2"
assert_contains "luksDump: cipher" "$dump" "aes-xts-plain64"
uuid=$(on_loop 2 cryptsetup luksUUID)
assert_contains "the UUID is reported" "$(cat "$IMG_TMP/e7.out")" "(UUID $uuid)"
assert_true "the passphrase from stdin opens it" on_loop 2 cryptsetup open --test-passphrase \
	--key-file "$IMG_TMP/stdin.key"
assert_eq "list sees LUKS" crypto_LUKS \
	"$("$FDEWIZ" list --json "$img" | jq -r '.disks[0].partitions[1].fstype')"
assert_eq "the next partition is untouched" "$keep" "$(part_sum 3)"
assert_true "the next partition's files verify" img_verify "$img" 3
echo "erase-encrypt --fs none took $(echo "$t1 - $t0" | bc) s"

# 6. --yes-destroy-data skips the question; a LUKS volume can be erased again (new UUID).
run_cmd "$IMG_TMP/e8" "$FDEWIZ" erase-encrypt --fs none --fast-pbkdf --yes-destroy-data \
	--cipher aes-cbc-essiv:sha256 --key-size 256 --key-file "$key" "$img:2"
assert_eq "again: exit" 0 "$RUN_RC"
assert_not_contains "again: no question" "$(cat "$IMG_TMP/e8.out")" "Type the partition"
assert_true "again: the new passphrase opens it" on_loop 2 opens
assert_true "again: a new UUID" test "$(on_loop 2 cryptsetup luksUUID)" != "$uuid"
assert_contains "again: the cipher asked for" "$(on_loop 2 cryptsetup luksDump)" "aes-cbc-essiv:sha256"
assert_eq "again: the next partition is untouched" "$keep" "$(part_sum 3)"

assert_finish
