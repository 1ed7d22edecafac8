#!/bin/bash
# fdewiz erase-encrypt, what becomes of the new volume: --crypttab --root gives it its entry
# in an installer's target root (the engine's flow the wizard uses too); --crypttab for this
# system's own root on an image file's partition, and --open without device-mapper, are
# refused before anything is written, with the image byte for byte unchanged.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup parted mkfs.ext4 sha256sum losetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/pass
root=$IMG_TMP/target
printf 'erase after passphrase' >"$key"
mkdir -p "$root/etc"
printf '# target crypttab\nold UUID=1111 none luks\n' >"$root/etc/crypttab"

img_new "$img" 200
img_gpt "$img"
img_part "$img" Data 1 120
img_part "$img" Keep 120 199
img_mkfs "$img" 1 ext4 Data
img_mkfs "$img" 2 ext4 Keep
img_fill "$img" 2 4
have_dm() { grep -q ' device-mapper$' /proc/misc 2>/dev/null && [ -e /dev/mapper/control ]; }
whole=$(sha256sum <"$img")

# 1. This system's crypttab for an image file's partition: refused, nothing written.
run_cmd "$IMG_TMP/c1" "$FDEWIZ" erase-encrypt --fs none --fast-pbkdf --yes-destroy-data \
	--key-file "$key" --crypttab "$img:1"
assert_eq "crypttab of / for an image: exit" 1 "$RUN_RC"
assert_contains "crypttab of / for an image: why" "$(cat "$IMG_TMP/c1.err")" \
	"Not for a partition of an image file"
assert_contains "crypttab of / for an image: nothing changed" "$(cat "$IMG_TMP/c1.err")" \
	"Nothing was changed"
assert_eq "crypttab of / for an image: image unchanged" "$whole" "$(sha256sum <"$img")"

# 2. --open without device-mapper: refused the same way.
if have_dm; then
	echo "note: this kernel has device-mapper; --open is not refused here"
else
	run_cmd "$IMG_TMP/c2" "$FDEWIZ" erase-encrypt --fs none --fast-pbkdf --yes-destroy-data \
		--key-file "$key" --open "$img:1"
	assert_eq "--open without device-mapper: exit" 1 "$RUN_RC"
	assert_contains "--open without device-mapper: why" "$(cat "$IMG_TMP/c2.err")" \
		"no device-mapper"
	assert_eq "--open without device-mapper: image unchanged" "$whole" "$(sha256sum <"$img")"
fi

# 3. Usage: --root without --crypttab, --open with --crypttab.
run_cmd "$IMG_TMP/c3" "$FDEWIZ" erase-encrypt --root "$root" --key-file "$key" "$img:1"
assert_eq "--root alone: usage" 2 "$RUN_RC"
run_cmd "$IMG_TMP/c4" "$FDEWIZ" erase-encrypt --open --crypttab --key-file "$key" "$img:1"
assert_eq "--open --crypttab: usage" 2 "$RUN_RC"
assert_eq "usage errors: image unchanged" "$whole" "$(sha256sum <"$img")"

# 4. The target root's crypttab gets the entry; its old line stays, the old file is kept.
keep=$(dd if="$img" iflag=skip_bytes,count_bytes skip="$(img_part_offset "$img" 2)" \
	count="$(img_part_size "$img" 2)" bs=1M status=none | sha256sum)
run_cmd "$IMG_TMP/c5" "$FDEWIZ" erase-encrypt --fs none --fast-pbkdf --yes-destroy-data \
	--key-file "$key" --crypttab --root "$root" --name newroot "$img:1"
cat "$IMG_TMP/c5.err" >&2
assert_eq "crypttab under a root: exit" 0 "$RUN_RC"
l=$(img_loop "$img" 1)
uuid=$(cryptsetup luksUUID "$l")
assert_true "the passphrase opens it" cryptsetup open --test-passphrase --key-file "$key" "$l"
img_unloop "$l"
assert_eq "the entry is the last line" "newroot UUID=$uuid none luks" \
	"$(tail -n1 "$root/etc/crypttab")"
assert_eq "the old lines stay" "old UUID=1111 none luks" "$(sed -n 2p "$root/etc/crypttab")"
assert_true "the old file is kept" ls "$root"/etc/crypttab.fdewiz-*.bak
assert_contains "the report says so" "$(cat "$IMG_TMP/c5.out")" \
	"$root/etc/crypttab opens it at boot as /dev/mapper/newroot."
assert_eq "the next partition is untouched" "$keep" \
	"$(dd if="$img" iflag=skip_bytes,count_bytes skip="$(img_part_offset "$img" 2)" \
		count="$(img_part_size "$img" 2)" bs=1M status=none | sha256sum)"
assert_true "the next partition's files verify" img_verify "$img" 2
assert_finish
