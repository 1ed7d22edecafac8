#!/bin/bash
# A passphrase fdewiz rates weak protects nothing: `encrypt --yes` and `erase-encrypt
# --yes-destroy-data` refuse it (saying why and what to do, the image byte for byte as it
# was); --accept-weak-passphrase, given on purpose, uses it, and the volume then decrypts
# with the cryptsetup program to the same files. An empty passphrase is always refused.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup mkfs.ext4 e2fsck cryptsetup sha256sum timeout

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
res=$IMG_TMP/res
weak=$IMG_TMP/weak.key
printf 'password1' >"$weak"
empty=$IMG_TMP/empty.key
: >"$empty"
t0=$SECONDS

img=$IMG_TMP/disk.img
img_new "$img" 202
img_gpt "$img"
img_part "$img" Data 1 100
img_part "$img" Spare 100 end
img_mkfs "$img" 1 ext4 data
img_mkfs "$img" 2 ext4 spare
img_fill "$img" 1 40
img_fill "$img" 2 8

sum_of() { sha256sum <"$1" | cut -d' ' -f1; }

# refused WHAT KEYFILE NEEDLE CMD...: refused with exit 1, NEEDLE in the message, the
# image unchanged, and no job recorded.
refused()
{
	local what=$1 needle=$3 before

	shift 3
	before=$(sum_of "$img")
	fdw "$@"
	assert_eq "$what: exit status" 1 "$RUN_RC"
	assert_contains "$what: message" "$(cat "$res.err")" "$needle"
	assert_contains "$what: message" "$(cat "$res.err")" "Nothing was changed"
	assert_eq "$what: image unchanged (sha256)" "$before" "$(sum_of "$img")"
	echo "    $(head -c 400 "$res.err" | tr '\n' ' ')"
}

step_begin "encrypt --yes with a weak passphrase is refused"
refused "$STEP" "$weak" "rated weak" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$weak" --work-dir "$IMG_TMP" "$img:1"
assert_contains "$STEP: what to do" "$(cat "$res.err")" "--accept-weak-passphrase"
assert_contains "$STEP: why" "$(cat "$res.err")" "could guess it"
fdw status --json "$img:1"
assert_eq "$STEP: no conversion recorded" 1 "$RUN_RC"
fdw list --json "$img"
assert_json "$res.out" '.disks[0].partitions[0].fstype' ext4
assert_json "$res.out" '.disks[0].partitions[0].verdict.eligible' true
step_end

step_begin "erase-encrypt --yes-destroy-data with a weak passphrase is refused"
refused "$STEP" "$weak" "rated weak" erase-encrypt --fs none --yes-destroy-data --fast-pbkdf \
	--key-file "$weak" "$img:2"
assert_contains "$STEP: what to do" "$(cat "$res.err")" "--accept-weak-passphrase"
assert_true "$STEP: the spare partition's files" img_verify "$img" 2
step_end

step_begin "an empty passphrase is refused even with --accept-weak-passphrase"
refused "$STEP" "$empty" "empty" encrypt --foreground --yes --accept-weak-passphrase \
	--fast-pbkdf --no-bench --key-file "$empty" --work-dir "$IMG_TMP" "$img:1"
step_end

step_begin "encrypt --yes --accept-weak-passphrase uses it"
fdw encrypt --foreground --yes --accept-weak-passphrase --fast-pbkdf --no-bench \
	--key-file "$weak" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/b.hdr" "$img:1"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_contains "$STEP: output" "$(cat "$res.out")" "is now encrypted"
fdw status --json "$img:1"
assert_json "$res.out" '.conversions[0].state' complete
step_end

step_begin "cryptsetup opens it with the weak passphrase and decrypts it to the same files"
dev=$(img_loop "$img" 1)
rc=0
cryptsetup open --test-passphrase --key-file "$weak" "$dev" 2>"$res.err" || rc=$?
assert_eq "$STEP: cryptsetup open --test-passphrase" 0 "$rc"
img_unloop "$dev"
verify_decrypt --key "$weak" "$img" 1
assert_true "$STEP: the spare partition's files" img_verify "$img" 2
step_end

step_begin "erase-encrypt --yes-destroy-data --accept-weak-passphrase uses it"
fdw erase-encrypt --fs none --yes-destroy-data --accept-weak-passphrase --fast-pbkdf \
	--key-file "$weak" "$img:2"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
dev=$(img_loop "$img" 2)
rc=0
cryptsetup open --test-passphrase --key-file "$weak" "$dev" 2>"$res.err" || rc=$?
assert_eq "$STEP: cryptsetup open --test-passphrase" 0 "$rc"
img_unloop "$dev"
assert_true "$STEP: partition 1 still decrypted and whole" img_verify "$img" 1
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
