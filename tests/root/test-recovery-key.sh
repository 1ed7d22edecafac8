#!/bin/bash
# fdewiz recovery-key: a random key added to a second keyslot after the passphrase is checked,
# shown once, accepted by cryptsetup as shown and by fdewiz as typed (any case, no dashes);
# a wrong passphrase and an unfinished conversion are refused with the header unchanged; the
# data decrypts with the recovery key alone (cryptsetup), fsck clean, every file equal.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds cryptsetup parted mkfs.ext4 e2fsck sha256sum losetup

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/pass
printf 'recovery test passphrase' >"$key"

img_ext4_fixture "$img" 200 24
encrypt_ok enc "$img:1"

loop=$(img_loop "$img" 1)
header_sum() { head -c $((16 * 1024 * 1024)) "$loop" | sha256sum; }
slots() { cryptsetup luksDump "$loop" | grep -cE '^  [0-9]+: luks2' || true; }
assert_eq "keyslots after encrypt" 1 "$(slots)"

# 1. A wrong passphrase: refused, header byte for byte unchanged.
printf 'not the passphrase' >"$IMG_TMP/bad"
before=$(header_sum)
run_cmd "$IMG_TMP/bad" "$FDEWIZ" recovery-key add --fast-pbkdf --key-file "$IMG_TMP/bad" "$img:1"
assert_eq "wrong passphrase: exit" 1 "$RUN_RC"
assert_contains "wrong passphrase: message" "$(cat "$IMG_TMP/bad.err")" "passphrase is wrong"
assert_contains "wrong passphrase: nothing changed" "$(cat "$IMG_TMP/bad.err")" "Nothing was changed"
assert_not_contains "wrong passphrase: no key shown" "$(cat "$IMG_TMP/bad.out")" "Recovery key"
assert_eq "wrong passphrase: header unchanged" "$before" "$(header_sum)"
assert_eq "wrong passphrase: keyslots" 1 "$(slots)"

# 2. Add it (verbose, to prove the key is never logged), read it from the output.
t0=$(date +%s.%N)
run_cmd "$IMG_TMP/add" "$FDEWIZ" -v recovery-key add --fast-pbkdf --key-file "$key" "$img:1"
t1=$(date +%s.%N)
assert_eq "add: exit" 0 "$RUN_RC"
cat "$IMG_TMP/add.err" >&2
alnum='[2-9A-HJ-NP-Z]'
rkey=$(grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$IMG_TMP/add.out" | tr -d ' ' || true)
assert_eq "add: one key shown in 8 groups of 6" 1 "$(printf '%s' "$rkey" | grep -c . || true)"
assert_eq "add: key length" 55 "${#rkey}"
assert_contains "add: names the keyslot" "$(cat "$IMG_TMP/add.out")" "(keyslot 1)"
assert_eq "add: key appears once in the output" 1 "$(grep -c -F -- "$rkey" "$IMG_TMP/add.out")"
assert_not_contains "add: key not in the log" "$(cat "$IMG_TMP/add.err")" "${rkey:0:13}"
assert_eq "keyslots after add" 2 "$(slots)"
echo "recovery-key add took $(echo "$t1 - $t0" | bc) s"

# 3. cryptsetup takes the key exactly as shown.
printf '%s' "$rkey" >"$IMG_TMP/rkey"
assert_true "cryptsetup accepts the key as shown" \
	cryptsetup open --test-passphrase --key-file "$IMG_TMP/rkey" "$loop"
assert_true "the passphrase still opens it" \
	cryptsetup open --test-passphrase --key-file "$key" "$loop"
assert_true "the recovery key is in keyslot 1" \
	cryptsetup open --test-passphrase --key-slot 1 --key-file "$IMG_TMP/rkey" "$loop"

# 4. As typed: lower case, without dashes, with spaces, and a trailing newline.
lower=$(printf '%s' "$rkey" | tr 'A-Z' 'a-z')
variants=("$lower" "$(printf '%s' "$rkey" | tr -d -)" "$(printf '%s' "$lower" | tr - ' ')"
	  "$rkey"$'\n')
n=0
for v in "${variants[@]}"; do
	printf '%s' "$v" >"$IMG_TMP/typed"
	run_cmd "$IMG_TMP/test" "$FDEWIZ" recovery-key test --key-file "$IMG_TMP/typed" "$img:1"
	assert_eq "typed variant $((++n)): accepted" 0 "$RUN_RC"
	assert_contains "typed variant $n: message" "$(cat "$IMG_TMP/test.out")" \
		"opens keyslot 1"
done
# One character changed (to another valid one), a look-alike, and one missing.
first=${rkey:0:1}
swap=2; [ "$first" = 2 ] && swap=3
printf '%s' "$swap${rkey:1}" >"$IMG_TMP/typed"
run_cmd "$IMG_TMP/test" "$FDEWIZ" recovery-key test --key-file "$IMG_TMP/typed" "$img:1"
assert_eq "a wrong key: exit" 1 "$RUN_RC"
assert_contains "a wrong key: message" "$(cat "$IMG_TMP/test.err")" "opens no keyslot"
printf '%s' "O${rkey:1}" >"$IMG_TMP/typed"
run_cmd "$IMG_TMP/test" "$FDEWIZ" recovery-key test --key-file "$IMG_TMP/typed" "$img:1"
assert_eq "letter O: exit" 1 "$RUN_RC"
assert_contains "letter O: message" "$(cat "$IMG_TMP/test.err")" "never 0, 1, I or O"
printf '%s' "${rkey:1}" >"$IMG_TMP/typed"
run_cmd "$IMG_TMP/test" "$FDEWIZ" recovery-key test --key-file "$IMG_TMP/typed" "$img:1"
assert_eq "short key: exit" 1 "$RUN_RC"
assert_contains "short key: message" "$(cat "$IMG_TMP/test.err")" "has 48 characters"

# 5. A second key goes to the next slot and differs from the first.
run_cmd "$IMG_TMP/add2" "$FDEWIZ" recovery-key add --fast-pbkdf --key-file "$key" "$img:1"
assert_eq "second add: exit" 0 "$RUN_RC"
rkey2=$(grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$IMG_TMP/add2.out" | tr -d ' ' || true)
assert_true "second key differs" test -n "$rkey2" -a "$rkey2" != "$rkey"
assert_eq "keyslots after the second add" 3 "$(slots)"

# 6. The data, decrypted by cryptsetup with the recovery key alone.
img_unloop "$loop"
verify_decrypt --as "the recovery key alone" --key "$IMG_TMP/rkey" "$img" 1

# 7. A conversion that is not finished: keyslots cannot change; refused, header unchanged.
img2=$IMG_TMP/conv.img
img_new "$img2" 100
img_gpt "$img2"
img_part "$img2" Data 1 99
img_mkfs "$img2" 1 ext4 Data
loop=$(img_loop "$img2" 1)
run_quiet cryptsetup reencrypt --encrypt --init-only --reduce-device-size 32M \
	"${IMG_LUKS_PBKDF[@]}" --key-file "$key" --batch-mode "$loop"
img_unloop "$loop"
loop=$(img_loop "$img2" 1)
before=$(header_sum)
run_cmd "$IMG_TMP/conv" "$FDEWIZ" recovery-key add --fast-pbkdf --key-file "$key" "$img2:1"
assert_eq "unfinished conversion: exit" 1 "$RUN_RC"
assert_contains "unfinished conversion: message" "$(cat "$IMG_TMP/conv.err")" \
	"still being converted"
assert_eq "unfinished conversion: header unchanged" "$before" "$(header_sum)"
img_unloop "$loop"

# 8. Not LUKS at all, and usage errors.
run_cmd "$IMG_TMP/plain" "$FDEWIZ" recovery-key add --key-file "$key" "$img:1"
assert_eq "plain partition: exit" 1 "$RUN_RC"
assert_contains "plain partition: message" "$(cat "$IMG_TMP/plain.err")" "not a LUKS2 volume"
run_cmd "$IMG_TMP/usage" "$FDEWIZ" recovery-key frobnicate "$img:1"
assert_eq "unknown action: exit" 2 "$RUN_RC"

# 8. encrypt --recovery-key: the key goes in with the header, before any data moves, is
# shown once, opens the finished volume (cryptsetup, as shown), is in no file fdewiz
# keeps, and the data decrypts with it alone.
img3=$IMG_TMP/rk.img
img_ext4_fixture "$img3" 200 12
encrypt_ok rk "$img3:1" --recovery-key
rkey3=$(grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$IMG_TMP/rk.out" | tr -d ' ' || true)
assert_eq "encrypt --recovery-key: one key shown" 1 "$(printf '%s' "$rkey3" | grep -c . || true)"
assert_eq "encrypt --recovery-key: not in the state directory or the backup" 0 \
	"$(grep -rlF -- "${rkey3:-none}" "$FDEWIZ_STATE_DIR" "$IMG_TMP/rk.hdr" | wc -l)"
loop=$(img_loop "$img3" 1)
assert_eq "encrypt --recovery-key: two keyslots" 2 "$(slots)"
printf '%s' "$rkey3" >"$IMG_TMP/rkey3"
assert_true "encrypt --recovery-key: cryptsetup opens it with the key as shown" run_quiet \
	cryptsetup open --test-passphrase --key-file "$IMG_TMP/rkey3" "$loop"
img_unloop "$loop"
verify_decrypt --as "encrypt --recovery-key: the key alone" --key "$IMG_TMP/rkey3" "$img3" 1

assert_finish
