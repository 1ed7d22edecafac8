#!/bin/sh
# Install what the tests need, build with warnings as errors and sanitizers, run the whole suite.
#
# Run as root from a clone of the repository: ./tests/run-all.sh
# Steps: packages; build (-Werror, ASan+UBSan); `make check` (unit tests, root tests on
# image files and loop devices, tmux-driven tests, QEMU VM tests); `make distcheck`
# (the release tarball builds, and its unit tests pass under valgrind).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$(id -u)" -ne 0 ]; then
	echo "$0: the suite uses loop devices, mounts and a VM; run it as root (sudo)." >&2
	exit 1
fi

./tests/install-deps.sh test
./autogen.sh >/dev/null 2>&1
./configure --quiet --enable-werror --enable-sanitizers
make -j"$(nproc)" >/dev/null

start=$(date +%s)
status=0
make check || status=$?
summary=tests/test-suite.log
[ -f "$summary" ] || summary=test-suite.log
pass=$(sed -n 's/^# PASS: *//p' "$summary")
fail=$(sed -n 's/^# FAIL: *//p' "$summary")
error=$(sed -n 's/^# ERROR: *//p' "$summary")
skip=$(sed -n 's/^# SKIP: *//p' "$summary")
if [ "$status" -ne 0 ]; then
	sed -n '/^FAIL\|^ERROR/p' "$summary" >&2 || true
fi
# No test may skip here: every one can run on a Debian 12 machine as root.
if [ "${skip:-0}" -ne 0 ]; then
	echo "$0: $skip test(s) skipped; the suite must run in full:" >&2
	grep '^SKIP' "$summary" >&2 || true
	status=1
fi
echo "make check: $(($(date +%s) - start)) s"

if [ "$status" -eq 0 ]; then
	make distcheck >/tmp/fdewiz-distcheck.log 2>&1 || {
		tail -40 /tmp/fdewiz-distcheck.log >&2
		echo "$0: make distcheck failed (log: /tmp/fdewiz-distcheck.log)" >&2
		fail=$((${fail:-0} + 1))
		status=1
	}
	[ "$status" -eq 0 ] && echo "make distcheck: ok"
fi

echo "tests: ${pass:-0} passed, $((${fail:-0} + ${error:-0})) failed, ${skip:-0} skipped"
exit "$status"
