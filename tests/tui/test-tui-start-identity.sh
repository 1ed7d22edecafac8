#!/bin/bash
# The wizard's start screen after a device name was reused: fdewiz converted image A on loop
# device L (complete), then image B took the name L and `cryptsetup reencrypt --encrypt`
# on it was stopped by SIGINT. The start screen lists only B's unfinished conversion, named
# by what it is (size, not started by fdewiz, its UUID), never A's record; resuming it
# there finishes B. cryptsetup then decrypts both (fsck + sha256 of every file).
. "$(dirname "$0")/../lib/start.sh" tmux
require_cmds tmux jq losetup mkfs.ext4 e2fsck resize2fs cryptsetup timeout blockdev

srv=fdewiz-test-start-id-$$
L=
img_test_init
# A worker the wizard started and that is still converting holds L: stop it first. L is
# read at exit (empty once the test has detached it).
at_exit eval 'img_worker_stop "${FDEWIZ_STATE_DIR:-}" "$L" 0'
tmux_own "$srv"

export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'identity passphrase' >"$key"
res=$IMG_TMP/res
t0=$SECONDS
. "$lib/jobs.sh"

identity_volumes

step_begin "A converted by fdewiz on L, then B's cryptsetup conversion under the same name"
L=$(loop_name)
attach_as "$L" "$A"
fdw_encrypt "$L"
assert_eq "$STEP: encrypt A" 0 "$RUN_RC"
uuid_a=$(cryptsetup luksUUID "$L")
img_unloop "$L"
attach_as "$L" "$B"
cryptsetup_interrupted "$L"
uuid_b=$(cryptsetup luksUUID "$L")
echo "    $L: A was $uuid_a, B is $uuid_b; $CS_NOTE"
assert_true "$STEP: B unfinished" reencrypt_pending "$L"
step_end

step_begin "the start screen lists only B's unfinished conversion, by what it is"
tmux_start "$srv" 120 30 env FDEWIZ_STATE_DIR="$FDEWIZ_STATE_DIR" "$FDEWIZ" "$L"
assert_true "$STEP: start screen" tmux_wait_for "$srv" "Unfinished conversions" 30
screen=$(tmux_capture "$srv" -J)
assert_contains "$STEP" "$screen" "> $L"
assert_contains "$STEP: B's UUID" "$screen" "${uuid_b:0:8}"
assert_contains "$STEP: named" "$screen" "not by fdewiz"
assert_contains "$STEP: size" "$screen" "640 MiB"
assert_contains "$STEP: state" "$screen" "interrupted"
assert_not_contains "$STEP: A's record" "$screen" "${uuid_a:0:8}"
assert_eq "$STEP: rows listed" 1 "$(grep -c "^ *[> ] /dev/" <<<"$screen" || true)"
step_end

step_begin "resuming it from the start screen finishes B"
tmux_send "$srv" r
assert_true "$STEP: passphrase prompt" tmux_wait_for "$srv" "assphrase" 10
tmux_send "$srv" -l "$(cat "$key")"
tmux_send "$srv" Enter
# It converts in the background; when it is done the wizard shows that volume's results.
assert_true "$STEP: results of $L" tmux_wait_for "$srv" "$L is encrypted" 300
wait_job "$L" complete 120 || true
assert_eq "$STEP: state" complete "$JOB_STATE"
assert_json "$JOB_JSON" '.conversions[0].id' "$uuid_b"
tmux_send "$srv" q
tmux_wait_exit "$srv" 20 || true
tmux_stop "$srv"
img_unloop "$L"
L=
step_end

step_begin "cryptsetup decrypts A and B"
verify_decrypt "$A"
verify_decrypt "$B"
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
