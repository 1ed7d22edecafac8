#!/bin/bash
# A job record speaks only for its own volume, never for whatever later has its device name:
#  1. fdewiz converts image A on loop device L, L is detached and image B attached as L;
#     `cryptsetup reencrypt --encrypt` on B is stopped with SIGINT part-way. status, list
#     and resume agree: unfinished, started outside fdewiz; fdewiz resume finishes it.
#  2. fdewiz converts image C on L; image D takes the name L and fdewiz's own conversion of
#     it is paused. status, list and resume speak of D's record, never of C's.
#  3. C and D swapped between two loop names: each name shows its own volume; resume of
#     C's name changes nothing, resume of D's name finishes D.
# Every volume is then decrypted by the cryptsetup program, checked by e2fsck, and the
# sha256 of every file compared.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq losetup mkfs.ext4 e2fsck resize2fs cryptsetup timeout blockdev

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'identity passphrase' >"$key"
res=$IMG_TMP/res
mib=1048576
t0=$SECONDS

. "$lib/jobs.sh"
# ---------------------------------------------------------------------------------------
# 1. The issue's sequence: a complete fdewiz record of A, cryptsetup's interrupted B.

identity_volumes

step_begin "fdewiz encrypts A on a loop device"
L=$(loop_name)
attach_as "$L" "$A"
fdw_encrypt "$L"
assert_eq "$STEP: exit" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
uuid_a=$(cryptsetup luksUUID "$L")
fdw status --json "$L"
assert_json "$res.out" '.conversions[0].id' "$uuid_a"
assert_json "$res.out" '.conversions[0].state' complete
assert_json "$res.out" '.conversions[0].label' volA
img_unloop "$L"
step_end

step_begin "cryptsetup reencrypt --encrypt of B on the same name, stopped by SIGINT"
attach_as "$L" "$B"
cryptsetup_interrupted "$L"
uuid_b=$(cryptsetup luksUUID "$L")
echo "    $L: A was $uuid_a, B is $uuid_b; $CS_NOTE"
assert_true "$STEP: B's header records an unfinished reencryption" reencrypt_pending "$L"
step_end

step_begin "status, list and resume agree: B is unfinished and was started outside fdewiz"
fdw status "$L"
assert_eq "$STEP: status exit" 0 "$RUN_RC"
assert_contains "$STEP: status" "$(cat "$res.out")" "$L  interrupted"
assert_contains "$STEP: status" "$(cat "$res.out")" "started outside fdewiz"
assert_contains "$STEP: status" "$(cat "$res.out")" "resume $L"
assert_not_contains "$STEP: status (A's record)" "$(cat "$res.out")" "$uuid_a"
assert_not_contains "$STEP: status" "$(cat "$res.out")" complete
fdw status --json "$L"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: status --json" id "$uuid_b"
assert_field "$STEP: status --json" source header
assert_field "$STEP: status --json" state interrupted
assert_field "$STEP: status --json" address "$L"
assert_field "$STEP: status --json" found true
assert_json "$res.out" '.conversions | length' 1
fdw list "$L"
assert_contains "$STEP: list" "$(cat "$res.out")" "conversion on it is unfinished"
assert_contains "$STEP: list" "$(cat "$res.out")" "Started outside fdewiz"
fdw list --json "$L"
assert_json "$res.out" '.disks[0].partitions[0].verdict.reason' luks-unfinished
fdw pause "$L"
assert_eq "$STEP: pause exit" 1 "$RUN_RC"
assert_contains "$STEP: pause" "$(cat "$res.all")" "not running (interrupted)"
step_end

step_begin "status without a device: A on its image file, B on $L, once each"
fdw status
assert_eq "$STEP: exit" 0 "$RUN_RC"
assert_contains "$STEP" "$(cat "$res.out")" "$A  complete"
assert_contains "$STEP" "$(cat "$res.out")" "\"volA\""
assert_eq "$STEP: lines for $L" 1 "$(grep -c "^$L " "$res.out" || true)"
fdw status --json
assert_json "$res.out" "[.conversions[] | select(.id == \"$uuid_a\") | .address]" "[\"$A\"]"
assert_json "$res.out" "[.conversions[] | select(.id == \"$uuid_b\") | .address]" "[\"$L\"]"
step_end

step_begin "fdewiz resume finishes the conversion cryptsetup started"
fdw resume --foreground --key-file "$key" "$L"
assert_eq "$STEP: exit" 0 "$RUN_RC"
assert_contains "$STEP" "$(cat "$res.out")" "is now encrypted"
[ "$RUN_RC" -eq 0 ] || show_output
fdw status --json "$L"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: status" id "$uuid_b"
assert_field "$STEP: status" state complete
assert_eq "$STEP: header requirement left" "" \
	"$(cryptsetup luksDump "$L" | grep "^Requirements:" || true)"
img_unloop "$L"
step_end

step_begin "cryptsetup decrypts A and B"
verify_decrypt "$A"
verify_decrypt "$B"
step_end
rm -f "$A" "$B"

# ---------------------------------------------------------------------------------------
# 2. fdewiz's own conversion of D paused on the name C's complete conversion used.

C=$IMG_TMP/c.img
D=$IMG_TMP/d.img
fs_image "$C" 200 volC 30
fs_image "$D" 1024 volD 40

step_begin "fdewiz encrypts C, then D on the same name, paused part-way"
L=$(loop_name)
attach_as "$L" "$C"
fdw_encrypt "$L"
assert_eq "$STEP: encrypt C exit" 0 "$RUN_RC"
uuid_c=$(cryptsetup luksUUID "$L")
img_unloop "$L"
attach_as "$L" "$D"
fdewiz_paused "$L"
uuid_d=$(cryptsetup luksUUID "$L")
echo "    $L: C was $uuid_c, D is $uuid_d; $PAUSE_NOTE"
step_end

step_begin "status, list and resume speak of D's own paused conversion"
fdw status "$L"
assert_contains "$STEP: status" "$(cat "$res.out")" "$L  paused"
assert_contains "$STEP: status" "$(cat "$res.out")" "\"volD\""
assert_not_contains "$STEP: status" "$(cat "$res.out")" "outside fdewiz"
assert_not_contains "$STEP: status (C's record)" "$(cat "$res.out")" "$uuid_c"
fdw status --json "$L"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: status --json" id "$uuid_d"
assert_field "$STEP: status --json" source fdewiz
assert_field "$STEP: status --json" state paused
assert_field "$STEP: status --json" label volD
assert_field "$STEP: status --json" image "$D"
fdw list "$L"
assert_contains "$STEP: list" "$(cat "$res.out")" "Started by fdewiz"
step_end

# ---------------------------------------------------------------------------------------
# 3. Moved between two loop names: C takes the name D's record holds, D another one.

step_begin "C and D swapped between two loop names: each name shows its own volume"
img_unloop "$L"
attach_as "$L" "$C"
L2=$(img_loop "$D" 0)
echo "    now C on $L, D on $L2"
fdw status --json "$L"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: $L" id "$uuid_c"
assert_field "$STEP: $L" state complete
assert_field "$STEP: $L" label volC
fdw status --json "$L2"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: $L2" id "$uuid_d"
assert_field "$STEP: $L2" state paused
assert_field "$STEP: $L2" source fdewiz
fdw status
assert_eq "$STEP: status exit" 0 "$RUN_RC"
assert_eq "$STEP: lines for $L" 1 "$(grep -c "^$L " "$res.out" || true)"
assert_eq "$STEP: lines for $L2" 1 "$(grep -c "^$L2 " "$res.out" || true)"
assert_contains "$STEP: status" "$(cat "$res.out")" "$L2  paused"
assert_contains "$STEP: status" "$(cat "$res.out")" "resume $L2"
step_end

step_begin "resume of C's name changes nothing; resume of D's name finishes D"
before=$(sha256sum <"$C" | cut -d' ' -f1)
fdw resume --foreground --key-file "$key" "$L"
assert_eq "$STEP: resume $L exit" 1 "$RUN_RC"
assert_contains "$STEP: resume $L" "$(cat "$res.all")" "has no unfinished conversion"
assert_contains "$STEP: resume $L" "$(cat "$res.all")" "Nothing was changed"
assert_eq "$STEP: C unchanged" "$before" "$(sha256sum <"$C" | cut -d' ' -f1)"
fdw resume --foreground --key-file "$key" "$L2"
assert_eq "$STEP: resume $L2 exit" 0 "$RUN_RC"
assert_contains "$STEP: resume $L2" "$(cat "$res.out")" "is now encrypted"
[ "$RUN_RC" -eq 0 ] || show_output
fdw status --json "$L2"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: status $L2" id "$uuid_d"
assert_field "$STEP: status $L2" state complete
assert_field "$STEP: status $L2" recorded_address "$L2"
img_unloop "$L"
img_unloop "$L2"
step_end

step_begin "cryptsetup decrypts C and D"
verify_decrypt "$C"
verify_decrypt "$D"
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
