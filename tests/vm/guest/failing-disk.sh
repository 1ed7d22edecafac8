#!/bin/bash
# Guest half of test-vm-failing-disk.sh: a failing disk under a conversion. /dev/vda1 is
# reached through a device-mapper device whose table is swapped mid-conversion: write
# errors, and every I/O failing (dm-flakey), a very slow device (dm-delay), a device that
# is gone (dm-error). Each failure stops the run with a message that says where and that
# nothing is lost; the slow device shows a falling speed and a longer ETA; once healthy
# again, resume finishes and every file verifies.
set -uo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/f "$FDEWIZ_STATE_DIR"
chmod 700 "$FDEWIZ_STATE_DIR"
fails=0
say() { echo "faults: $*"; }
check() { local what=$1; shift; if "$@"; then say "PASS: $what"; else say "FAIL: $what"; fails=$((fails + 1)); fi; }

sectors=$(blockdev --getsz /dev/vda1)
table() { dmsetup suspend flaky && dmsetup load flaky --table "$1" && dmsetup resume flaky; }
healthy="0 $sectors linear /dev/vda1 0"
dmsetup create flaky --table "$healthy" || { say "FAIL: dmsetup create"; exit 1; }

# The status record, and the percent a foreground run last printed in LOG (cheap to poll).
state() { "$fdewiz" status --json /dev/mapper/flaky 2>/dev/null | jq -r '.conversions[0].state // empty'; }
# sample: "SPEED ETA STATE" from one status call (integers; ETA -1 when unknown).
sample() { "$fdewiz" status --json /dev/mapper/flaky 2>/dev/null | jq -r '.conversions[0] | "\((.speed // 0) | floor) \((.eta // -1) | floor) \(.state)"'; }
log_pct() { tr '\r' '\n' <"$1" | sed -n 's/^encrypting *\([0-9]*\)\..*/\1/p' | tail -n1; }

# start NAME FIRST: encrypt (FIRST=1) or resume in the foreground, output in /run/NAME.log.
start()
{
	RUN_LOG=/run/$1.log
	if [ "$2" = 1 ]; then
		"$fdewiz" encrypt --foreground --offline --yes --fast-pbkdf --no-bench \
			--key-file "$work/key" --header-backup /run/h.bak /dev/mapper/flaky \
			>"$RUN_LOG" 2>&1 &
	else
		"$fdewiz" resume --foreground --key-file "$work/key" /dev/mapper/flaky \
			>"$RUN_LOG" 2>&1 &
	fi
	RUN_PID=$!
}

# wait_pct P: until the running start has printed P % (or it ended).
wait_pct()
{
	local p tries=3000
	while [ "$tries" -gt 0 ] && kill -0 "$RUN_PID" 2>/dev/null; do
		p=$(log_pct "$RUN_LOG")
		[ -n "$p" ] && [ "$p" -ge "$1" ] && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
}

# finish: wait for the run, make the device healthy, show what it said (RUN_RC).
finish()
{
	RUN_RC=0
	wait "$RUN_PID" || RUN_RC=$?
	table "$healthy"
	tr '\r' '\n' <"$RUN_LOG" | grep -v '^encrypting' | sed "s|^|faults: $(basename "$RUN_LOG"): |"
}

# 1. Write errors from 10 %: the run stops, says where and that nothing is lost.
start write-error 1
wait_pct 10
read -r speed_healthy eta_healthy _ < <(sample)
say "write-error: healthy at $(log_pct "$RUN_LOG")%: $speed_healthy B/s, ETA $eta_healthy s"
table "0 $sectors flakey /dev/vda1 0 0 3600 1 error_writes"
finish
check "write errors: the run stops with an error (exit $RUN_RC)" test "$RUN_RC" -ne 0
check "write errors: says where it stopped" \
	grep -q "the disk failed (Input/output error) at [0-9.]*%" "$RUN_LOG"
check "write errors: says nothing is lost and how to continue" \
	grep -q "Nothing is lost.*resume /dev/mapper/flaky" "$RUN_LOG"
check "write errors: status sees a conversion to resume ($(state))" \
	test -n "$(state)" -a "$(state)" != complete

# 2. A very slow device (dm-delay, 1 s per I/O) under the resumed run: status keeps
#    answering, slower than healthy and with a longer ETA (four samples while it runs).
#    Then the device goes away (dm-error): the run stops.
table "0 $sectors delay /dev/vda1 0 1000"
start slow-then-gone 0
slowest= eta_max=-1 seen=0
for _ in $(seq 40); do
	sleep 2
	read -r s e st < <(sample)
	say "slow: state $st, speed $s B/s, ETA $e s, at $(log_pct "$RUN_LOG")%"
	[ "$st" = running ] && [ "${s:-0}" -gt 0 ] || continue
	if [ -z "$slowest" ] || [ "$s" -lt "$slowest" ]; then slowest=$s; fi
	[ "$e" -gt "$eta_max" ] && eta_max=$e
	seen=$((seen + 1))
	[ "$seen" -ge 4 ] && break
done
check "slow device: status kept answering with a speed while running ($seen samples)" \
	test "$seen" -ge 2
check "slow device: slower than healthy ($speed_healthy -> ${slowest:-?} B/s)" \
	test "${slowest:-0}" -gt 0 -a "${slowest:-0}" -lt "${speed_healthy:-0}"
check "slow device: a longer ETA than healthy ($eta_healthy -> $eta_max s)" \
	test "${eta_healthy:--1}" -ge 0 -a "$eta_max" -gt "${eta_healthy:--1}"
table "0 $sectors error"
finish
check "device gone: the run stops with an error (exit $RUN_RC)" test "$RUN_RC" -ne 0
check "device gone: says nothing is lost" grep -q "Nothing is lost" "$RUN_LOG"
check "device gone: status sees a conversion to resume ($(state))" \
	test -n "$(state)" -a "$(state)" != complete

# 3. Read errors too (dm-flakey down: this kernel's flakey fails every I/O), 10 % later.
start read-error 0
sleep 1
from=$(log_pct "$RUN_LOG")
wait_pct $(( ${from:-0} + 10 ))
say "read-error: failing at $(log_pct "$RUN_LOG")%"
table "0 $sectors flakey /dev/vda1 0 0 3600"
finish
check "read+write errors: the run stops with an error (exit $RUN_RC)" test "$RUN_RC" -ne 0
check "read+write errors: says nothing is lost" grep -q "Nothing is lost" "$RUN_LOG"
check "read+write errors: status sees a conversion to resume ($(state))" \
	test -n "$(state)" -a "$(state)" != complete

# 4. Healthy: resume finishes.
start last 0
finish
check "healthy again: resume finishes (exit $RUN_RC)" test "$RUN_RC" -eq 0
check "complete" test "$(state)" = complete

cryptsetup open --key-file "$work/key" /dev/mapper/flaky f || { say "FAIL: open"; exit 1; }
check "e2fsck clean" e2fsck -fn /dev/mapper/f
mount -o ro /dev/mapper/f /mnt/f
check "every file equal" bash -c "cd /mnt/f && sha256sum -c --quiet '$work/sums'"
say "$(wc -l <"$work/sums") files checked"
umount /mnt/f
cryptsetup close f
dmsetup remove flaky
[ "$fails" -eq 0 ] && echo FDEWIZ-FAILING-DISK-OK
exit "$fails"
