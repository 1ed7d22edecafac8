#!/bin/bash
# fdewiz encrypt --recovery-key goes through the engine's one start: the key is added with
# the header, tested against it, and shown only then, with the keyslot it really opened.
# 1. The key shown opens the volume with the cryptsetup program (key on stdin, never in
#    argv), in the keyslot the output names; the data decrypts with it alone, fsck clean,
#    every file equal.
# 2. A key that does not pass its test (FDEWIZ_TEST_FAIL_AT=recovery-key-mismatch: the key
#    to show differs from the one written) is never shown; the message says so and what to
#    do; the conversion still completes with the data intact; `recovery-key add` then gives
#    a key in the next free keyslot (2, not a constant 1), which cryptsetup confirms.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds cryptsetup parted mkfs.ext4 e2fsck sha256sum losetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/pass
printf 'start flow passphrase' >"$key"
alnum='[2-9A-HJ-NP-Z]'

# shown_key FILE: the one key printed in 8 groups of 6, or "".
shown_key() { grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$1" | tr -d ' ' || true; }
# shown_slot FILE: N of "(keyslot N)" in the output, or "".
shown_slot() { grep -oE '\(keyslot [0-9]+\)' "$1" | grep -oE '[0-9]+' || true; }
# cs_slot KEY DEV: the keyslot cryptsetup opens with KEY, fed on stdin; "" when none.
cs_slot()
{
	printf '%s' "$1" | cryptsetup open --test-passphrase -v --key-file=- "$2" 2>&1 |
		sed -n 's/^Key slot \([0-9]*\) unlocked\.$/\1/p'
}
slots() { cryptsetup luksDump "$1" | grep -cE '^  [0-9]+: luks2' || true; }

new_image()
{
	img_ext4_fixture "$1" 200 16
}

# 1. The key shown is the key tested, in the keyslot the engine reported.
img=$IMG_TMP/ok.img
new_image "$img"
encrypt_ok ok "$img:1" --recovery-key
rkey=$(shown_key "$IMG_TMP/ok.out")
slot=$(shown_slot "$IMG_TMP/ok.out")
assert_eq "one key shown" 1 "$(printf '%s' "$rkey" | grep -c . || true)"
assert_eq "key length" 55 "${#rkey}"
assert_true "a keyslot number is shown" test -n "$slot"
assert_not_contains "no warning about the key" "$(cat "$IMG_TMP/ok.err")" "No recovery key"
assert_eq "key not in the state folder or the backup" 0 \
	"$(grep -rlF -- "${rkey:-none}" "$FDEWIZ_STATE_DIR" "$IMG_TMP/ok.hdr" | wc -l)"
loop=$(img_loop "$img" 1)
assert_eq "two keyslots" 2 "$(slots "$loop")"
assert_eq "cryptsetup opens it (key on stdin) in the keyslot shown" "$slot" \
	"$(cs_slot "$rkey" "$loop")"
assert_true "the passphrase opens another keyslot" \
	test "$(cs_slot "$(cat "$key")" "$loop")" != "$slot"
img_unloop "$loop"
# The key as shown, never written to a file.
verify_decrypt --as "the recovery key alone" --key <(printf '%s' "$rkey") "$img" 1

# 2. The key to show is not the key written: its test catches it and it is never shown.
img=$IMG_TMP/bad.img
new_image "$img"
run_cmd "$IMG_TMP/bad" env FDEWIZ_TEST_FAIL_AT=recovery-key-mismatch "$FDEWIZ" encrypt \
	--foreground --yes --fast-pbkdf --no-bench --recovery-key --key-file "$key" \
	--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/bad.hdr" "$img:1"
assert_eq "spoiled key: the conversion still completes" 0 "$RUN_RC"
assert_eq "spoiled key: no key shown" "" "$(shown_key "$IMG_TMP/bad.out")"
assert_not_contains "spoiled key: no keyslot announced" "$(cat "$IMG_TMP/bad.out")" \
	"Recovery key for"
assert_contains "spoiled key: says no key was added" "$(cat "$IMG_TMP/bad.err")" \
	"No recovery key is shown (the key made does not open the volume)"
assert_contains "spoiled key: says what to do" "$(cat "$IMG_TMP/bad.err")" \
	"fdewiz recovery-key add $img:1"
assert_contains "spoiled key: completed" "$(cat "$IMG_TMP/bad.out")" "is now encrypted"
loop=$(img_loop "$img" 1)
assert_true "spoiled key: the passphrase opens it (stdin)" test -n \
	"$(cs_slot "$(cat "$key")" "$loop")"
img_unloop "$loop"
# The person goes on: a new key, in the next free keyslot, as the engine reports it.
run_cmd "$IMG_TMP/add" "$FDEWIZ" recovery-key add --fast-pbkdf --key-file "$key" "$img:1"
assert_eq "recovery-key add afterwards: exit" 0 "$RUN_RC"
rkey2=$(shown_key "$IMG_TMP/add.out")
slot2=$(shown_slot "$IMG_TMP/add.out")
assert_eq "recovery-key add afterwards: keyslot 2 (1 holds the untested key)" 2 "$slot2"
loop=$(img_loop "$img" 1)
assert_eq "cryptsetup opens the new key in keyslot 2" 2 "$(cs_slot "$rkey2" "$loop")"
img_unloop "$loop"
verify_decrypt --as "spoiled key: the new key" --key <(printf '%s' "$rkey2") "$img" 1

assert_finish
