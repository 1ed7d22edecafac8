#!/bin/bash
# `pause` acts on the worker of the volume it names and on no other, and is never refused
# because of a holder; it says when one appeared (resume is what refuses, then).
#  Volume B paused part-way (fdewiz's own conversion); volume A converting in the
#  background.
#  C. A read-only loop device attached over A while it converts: `pause A` pauses it
#     (exit 0) and names the holder; `resume A` refuses with A's sha256 unchanged; once
#     the holder is gone resume goes on with A in the background.
#  B. B's status record forged to name A's live worker (pid, start time, boot): `pause B`
#     does not signal it (that worker holds no lock of B's bytes); A keeps running.
#  A. `pause B` (not running) is refused and A's worker lives on.
#  Both then finish; the cryptsetup program decrypts both: e2fsck -fn and the sha256 of
#  every file. B's worker is held at 20 % until it is paused, A's at 10 %, and after its
#  resume at 50 % (FDEWIZ_TEST_HOLD_AT), so that each is still converting when it must be,
#  on any machine; A is then paused and resumed to finish.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq losetup mkfs.ext4 e2fsck resize2fs cryptsetup timeout sha256sum

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
key=$IMG_TMP/key
printf 'pause passphrase' >"$key"
res=$IMG_TMP/res
A=$IMG_TMP/a.img
B=$IMG_TMP/b.img
t0=$SECONDS

sum() { sha256sum <"$1" | cut -d' ' -f1; }
state_of() { "$FDEWIZ" status --json "$1" 2>/dev/null | jq -r '.conversions[0].state // ""'; }

# wait_running IMG: until its conversion runs with part of the data done; its worker's pid.
wait_running()
{
	wait_job "$1" '.state == "running" and .done > 0' 240 || true
	jq -r '.conversions[0].pid // ""' "$JOB_JSON"
}

step_begin "B paused part-way, A converting"
fs_image "$B" 160 vol-b 24
fdewiz_paused "$B"
echo "    B: $PAUSE_NOTE"
assert_eq "$STEP: B is paused" paused "$(state_of "$B")"
fs_image "$A" 256 vol-a 48
FDEWIZ_TEST_HOLD_AT=progress=10 fdw encrypt --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" "$A"
assert_eq "$STEP: background encrypt of A" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
worker=$(wait_running "$A")
assert_eq "$STEP: A is running" running "$(state_of "$A")"
step_end

step_begin "C: a loop device over A appears while it converts"
holder=$(losetup -r -f --show "$A")
img_register loop "$holder"
fdw pause "$A"
assert_eq "$STEP: pause exit" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_contains "$STEP: pause says paused" "$(cat "$res.out")" "paused"
assert_contains "$STEP: pause names the holder" "$(cat "$res.err")" "${holder#/dev/}"
assert_eq "$STEP: A paused" paused "$(state_of "$A")"
assert_true "$STEP: A's worker gone" proc_ended "$worker"
before=$(sum "$A")
fdw resume --key-file "$key" "$A"
assert_eq "$STEP: resume refused" 1 "$RUN_RC"
assert_contains "$STEP: resume names the holder" "$(cat "$res.err")" "${holder#/dev/}"
assert_eq "$STEP: A's sha256 unchanged" "$before" "$(sum "$A")"
img_unloop "$holder"
# Once the holder is gone it goes on, in the background again (held at 50 %), for the
# next steps.
FDEWIZ_TEST_HOLD_AT=progress=50 fdw resume --key-file "$key" "$A"
assert_eq "$STEP: resume once the holder is gone" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
worker=$(wait_running "$A")
step_end

step_begin "B: B's record names A's worker"
b_id=$("$FDEWIZ" status --json "$B" | jq -r '.conversions[0].id')
a_id=$("$FDEWIZ" status --json "$A" | jq -r '.conversions[0].id')
b_status=$FDEWIZ_STATE_DIR/jobs/$b_id.status
cp "$b_status" "$IMG_TMP/b.status.saved"
jq -c --slurpfile a "$FDEWIZ_STATE_DIR/jobs/$a_id.status" \
	'.state = "running" | .pid = $a[0].pid | .pid_start = $a[0].pid_start |
	 .boot_id = $a[0].boot_id' "$IMG_TMP/b.status.saved" >"$b_status"
assert_eq "$STEP: status believes the forged record" running "$(state_of "$B")"
fdw pause "$B"
assert_eq "$STEP: exit" 1 "$RUN_RC"
assert_contains "$STEP: says why" "$(cat "$res.err")" "not converting"
assert_contains "$STEP: says nothing was changed" "$(cat "$res.err")" "Nothing was changed"
assert_eq "$STEP: A still running" running "$(state_of "$A")"
assert_true "$STEP: A's worker alive" kill -0 "$worker"
cp "$IMG_TMP/b.status.saved" "$b_status"
assert_eq "$STEP: B paused again once its record is back" paused "$(state_of "$B")"
step_end

step_begin "A: pause B, which is not running"
fdw pause "$B"
assert_eq "$STEP: exit" 1 "$RUN_RC"
assert_contains "$STEP: says why" "$(cat "$res.err")" "is not running"
assert_true "$STEP: A's worker alive" kill -0 "$worker"
step_end

step_begin "both finish"
assert_eq "$STEP: A still held, running" running "$(state_of "$A")"
fdw pause "$A"
assert_eq "$STEP: pause A" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
fdw resume --foreground --key-file "$key" "$A"
assert_eq "$STEP: resume A" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_eq "$STEP: A complete" complete "$(state_of "$A")"
fdw resume --foreground --key-file "$key" "$B"
assert_eq "$STEP: resume B" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_eq "$STEP: B complete" complete "$(state_of "$B")"
step_end

step_begin "the data of A"
verify_decrypt "$A"
step_end
step_begin "the data of B"
verify_decrypt "$B"
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
