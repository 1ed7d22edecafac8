#!/bin/bash
# The battery guard, with a power-supply folder of the test's own (FDEWIZ_TEST_POWER_SUPPLY
# in place of /sys/class/power_supply: a mains supply, the laptop's battery and a wireless
# mouse's battery, which must not count):
#  - refuse: on battery at 20 % `encrypt --yes` changes nothing and says why and what to do;
#  - auto-pause: a conversion started on mains pauses at a safe point once the charger is
#    pulled at 12 %; status says "paused: battery low, waiting for the charger", the worker
#    waits and nothing moves;
#  - auto-resume: the charger back, it goes on by itself and completes; cryptsetup decrypts
#    it to the same files;
#  - resume of an unfinished conversion (cryptsetup --init-only) at 25 % on battery is
#    refused with nothing changed; with --allow-low-battery it runs to the end and verifies.
. "$(dirname "$0")/../lib/start.sh" jobs power
require_cmds jq parted losetup mkfs.ext4 e2fsck cryptsetup sha256sum timeout

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
res=$IMG_TMP/res
key=$IMG_TMP/key
printf 'battery guard passphrase' >"$key"
t0=$SECONDS

power_fake "$IMG_TMP/power_supply"
export FDEWIZ_TEST_POWER_SUPPLY=$power

img=$IMG_TMP/disk.img
# A worker still waiting for the charger (the test failed half-way) holds the image:
# `pause` stops it too (SIGINT to the worker that holds the lock, then a wait).
img_worker_stop_at_exit "$FDEWIZ_STATE_DIR" "$img"
img_ext4_fixture "$img" 302 60 data end
echo "image built in $((SECONDS - t0)) s"

step_begin "refuse: on battery at 20 % nothing starts"
set_power 0 20 Discharging
before=$(sha256sum <"$img")
fdw encrypt --yes --fast-pbkdf --no-bench --key-file "$key" --work-dir "$IMG_TMP" "$img:1"
assert_eq "$STEP: exit status" 1 "$RUN_RC"
err=$(cat "$res.err")
assert_contains "$STEP: the charge" "$err" "at 20 %"
assert_contains "$STEP: the rule" "$err" "only from 30 %"
assert_contains "$STEP: what to do" "$err" "Connect the charger"
assert_contains "$STEP: nothing changed" "$err" "Nothing was changed"
assert_eq "$STEP: image unchanged (sha256)" "$before" "$(sha256sum <"$img")"
echo "    $(head -c 400 "$res.err")"
fdw status --json "$img:1"
assert_eq "$STEP: no conversion" 1 "$RUN_RC"
# The mouse at 3 % is not the computer: on mains power it starts (checked with --dry-run,
# which changes nothing; the refusal above is the battery's, not the plan's).
set_power 1 20 Charging
fdw encrypt --dry-run --key-file "$key" "$img:1"
assert_eq "$STEP: the plan itself is fine (dry run)" 0 "$RUN_RC"
step_end

step_begin "auto-pause: the charger pulled at 12 % mid-conversion"
set_power 1 12 Charging
# Held at 10 % (FDEWIZ_TEST_HOLD_AT) until the battery stops it: on a fast disk it would
# otherwise finish before the charger is pulled.
FDEWIZ_TEST_HOLD_AT=progress=10 fdw encrypt --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" "$img:1"
assert_eq "$STEP: encrypt (on mains at 12 %) starts" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_true "$STEP: the worker is converting, held at 10 %" wait_job "$img:1" \
	'.state == "running" and .percent >= 10' 300
worker=$(jq -r '.conversions[0].pid // empty' "$JOB_JSON")
echo "    running: $(jq -c '.conversions[0] | {percent, pid}' "$JOB_JSON")"
set_power 0 12 Discharging
assert_true "$STEP: paused for the battery" wait_job "$img:1" \
	'.state == "paused" and (.message | test("battery low"))' 120
json_load "$JOB_JSON" '.conversions[0]'
assert_field "$STEP" message "paused: battery low, waiting for the charger"
assert_field "$STEP" phase on-battery
assert_field "$STEP" pid "$worker"
done1=${JSON[done]-}
echo "    paused at ${JSON[percent]-?} % ($done1 of ${JSON[total]-?} bytes), worker $worker"
assert_true "$STEP: part-way" test "$done1" -gt 0 -a "$done1" -lt "${JSON[total]-0}"
fdw status "$img:1"
assert_contains "$STEP: status (text)" "$(cat "$res.out")" \
	"paused: battery low, waiting for the charger"
assert_contains "$STEP: status (text)" "$(cat "$res.out")" "once the charger is connected"
echo "    $(head -1 "$res.out")"
assert_true "$STEP: the worker waits" kill -0 "$worker"
sleep 3
fdw status --json "$img:1"
assert_json "$res.out" '.conversions[0].state' paused
assert_json "$res.out" '.conversions[0].done' "$done1"
step_end

step_begin "auto-resume: the charger back, it goes on by itself and completes"
set_power 1 13 Charging
assert_true "$STEP: complete" wait_job "$img:1" complete 900
json_load "$JOB_JSON" '.conversions[0]'
assert_field "$STEP" percent 100
assert_field "$STEP" message ""
assert_field "$STEP" pid null
echo "    $(jq -c '.conversions[0] | {state, percent, elapsed}' "$res.out")"
grep -E "battery|mains" "$FDEWIZ_STATE_DIR"/jobs/*.log | sed 's/^/    log: /' || true
for _ in $(seq 100); do kill -0 "$worker" 2>/dev/null || break; sleep 0.2; done
assert_true "$STEP: the worker has ended" sh -c "! kill -0 $worker 2>/dev/null"
step_end

step_begin "cryptsetup decrypts it to the same files"
verify_decrypt "$img" 1
step_end

step_begin "resume: refused on a low battery, and with --allow-low-battery it runs to the end"
# An unfinished conversion made by cryptsetup --init-only (header in place, no data moved).
B=$IMG_TMP/b.img
img_ext4_fixture "$B" 202 20 bdata end
dev=$(img_loop "$B" 1)
e2fsck -fy "$dev" >/dev/null 2>&1 || [ $? -le 1 ] || { echo "FAIL: e2fsck before resize"; exit 1; }
run_quiet resize2fs "$dev" $((($(img_part_size "$B" 1) - 32 * 1048576) / 1024))K ||
	{ echo "FAIL: resize2fs"; exit 1; }
run_quiet cryptsetup reencrypt --encrypt --init-only --type luks2 --reduce-device-size 32M \
	--key-file "$key" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --batch-mode "$dev" ||
	{ echo "FAIL: cryptsetup --init-only"; exit 1; }
img_unloop "$dev"
set_power 0 25 Discharging
before=$(sha256sum <"$B")
fdw resume --foreground --key-file "$key" "$B:1"
assert_eq "$STEP: resume at 25 % on battery: exit" 1 "$RUN_RC"
assert_contains "$STEP: resume: why" "$(cat "$res.err")" "at 25 %"
assert_contains "$STEP: resume: what to do" "$(cat "$res.err")" "Connect the charger"
assert_eq "$STEP: image unchanged (sha256)" "$before" "$(sha256sum <"$B")"
fdw resume --foreground --allow-low-battery --key-file "$key" "$B:1"
assert_eq "$STEP: resume --allow-low-battery: exit" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
fdw status --json "$B:1"
assert_json "$res.out" '.conversions[0].state' complete
verify_decrypt "$B" 1
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
