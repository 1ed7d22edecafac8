#!/bin/bash
# Two `resume`s of a crashed conversion (its worker SIGKILLed) started at the same moment,
# watched all along by `status` in a tight loop and then by `status --watch`: exactly one
# resume goes on and the other is refused with a clear message, status never fails (every
# exit code 0, nothing on stderr), and at the end the cryptsetup program decrypts the
# volume: e2fsck -fn and the sha256 of every file.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq losetup mkfs.ext4 e2fsck resize2fs cryptsetup timeout

img_test_init
img_worker_stop_at_exit "$IMG_TMP/state" "$IMG_TMP/vol.img" 0

export FDEWIZ_STATE_DIR=$IMG_TMP/state
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
key=$IMG_TMP/key
printf 'race passphrase' >"$key"
res=$IMG_TMP/res
img=$IMG_TMP/vol.img
t0=$SECONDS
state_of() { "$FDEWIZ" status --json "$img" 2>/dev/null | jq -r '.conversions[0].state // ""'; }

step_begin "a conversion whose worker is killed"
fs_image "$img" 512 race-vol 48
# Held at 5 % (FDEWIZ_TEST_HOLD_AT) until it is killed: found running on any machine.
FDEWIZ_TEST_HOLD_AT=progress=5 fdw encrypt --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" "$img"
assert_eq "$STEP: background encrypt" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
worker=
wait_job "$img" '.state == "running" and .done > 0' 240 &&
	worker=$(jq -r '.conversions[0].pid' "$JOB_JSON")
assert_true "$STEP: the worker runs" test -n "$worker"
kill -KILL "$worker"
while kill -0 "$worker" 2>/dev/null; do sleep 0.05; done
crashed=$(state_of)
echo "    after SIGKILL: $crashed"
assert_true "$STEP: status says it must be resumed ($crashed)" \
	test "$crashed" = interrupted -o "$crashed" = needs-repair
step_end

step_begin "two resumes, status all along"
# status, text and JSON by turns, as fast as it goes, until told to stop.
(
	n=0
	while [ ! -e "$IMG_TMP/stop" ]; do
		n=$((n + 1))
		rc=0
		if [ $((n % 2)) = 0 ]; then
			"$FDEWIZ" status "$img" >"$IMG_TMP/w.out" 2>"$IMG_TMP/w.err" || rc=$?
		else
			"$FDEWIZ" status --json "$img" >"$IMG_TMP/w.out" 2>"$IMG_TMP/w.err" || rc=$?
		fi
		echo "$rc" >>"$IMG_TMP/w.rcs"
		if [ "$rc" != 0 ] || [ -s "$IMG_TMP/w.err" ]; then
			{ echo "status run $n: exit $rc"; cat "$IMG_TMP/w.out" "$IMG_TMP/w.err"; } \
				>>"$IMG_TMP/w.bad"
		fi
	done
) &
status_pid=$!
at_exit_kill "$status_pid"
for i in 1 2; do
	(
		while [ ! -e "$IMG_TMP/go" ]; do sleep 0.01; done
		rc=0
		"$FDEWIZ" resume --key-file "$key" "$img" >"$IMG_TMP/r$i.out" \
			2>"$IMG_TMP/r$i.err" || rc=$?
		echo "$rc" >"$IMG_TMP/r$i.rc"
	) &
	at_exit_kill "$!"
done
sleep 1
: >"$IMG_TMP/go"
for i in 1 2; do
	for _ in $(seq 6000); do [ -e "$IMG_TMP/r$i.rc" ] && break; sleep 0.1; done
done
r1=$(cat "$IMG_TMP/r1.rc" 2>/dev/null || echo none)
r2=$(cat "$IMG_TMP/r2.rc" 2>/dev/null || echo none)
echo "    resume exits: $r1 and $r2"
assert_eq "$STEP: exactly one resume goes on" "0 1" "$(printf '%s\n' "$r1" "$r2" | sort | xargs)"
loser=1
[ "$r1" = 1 ] || loser=2
msg=$(cat "$IMG_TMP/r$loser.err")
echo "    the other says: $msg"
assert_true "$STEP: the other says another run has it" \
	grep -qE "another fdewiz is converting|is already running" "$IMG_TMP/r$loser.err"
assert_true "$STEP: ... and that nothing was changed, or how to follow it" \
	grep -qE "Nothing was changed|status --watch" "$IMG_TMP/r$loser.err"
step_end

step_begin "status --watch to the end"
rc=0
timeout 1200 "$FDEWIZ" status --watch "$img" >"$IMG_TMP/watch.out" 2>"$IMG_TMP/watch.err" ||
	rc=$?
assert_eq "$STEP: exit" 0 "$rc"
assert_eq "$STEP: stderr" "" "$(cat "$IMG_TMP/watch.err")"
wait_job "$img" complete 600 || true
: >"$IMG_TMP/stop"
wait "$status_pid" || true
assert_eq "$STEP: complete" complete "$(state_of)"
runs=$(wc -l <"$IMG_TMP/w.rcs")
echo "    status ran $runs times alongside"
assert_true "$STEP: status ran alongside ($runs times)" test "$runs" -gt 5
assert_eq "$STEP: every status exit 0 with nothing on stderr" "" \
	"$(cat "$IMG_TMP/w.bad" 2>/dev/null)"
step_end

step_begin "the data"
verify_decrypt "$img"
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
