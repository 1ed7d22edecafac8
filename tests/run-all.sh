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

# Tier by tier (unit, root, tui, vm, then anything else), so that each tier's time shows.
tests=$(make -s print-tests)
tier_of()
{
	case "$1" in
	tests/unit/*) echo unit ;;
	tests/root/*) echo root ;;
	tests/tui/*) echo tui ;;
	tests/vm/*) echo vm ;;
	*) echo other ;;
	esac
}
status=0 pass=0 fail=0 error=0 skip=0 skipped=""
times=""
start=$(date +%s)
for tier in unit root tui vm other; do
	list=$(for t in $tests; do [ "$(tier_of "$t")" = "$tier" ] && echo "$t"; done | tr '\n' ' ')
	[ -n "$list" ] || continue
	t0=$(date +%s)
	rc=0
	# Unit tests share nothing and run side by side; the system tiers stay serial: their
	# tests poll for states with timeouts, and a VM under emulation takes both cores.
	jobs=1
	[ "$tier" = unit ] && jobs=$(nproc)
	make -j"$jobs" check TESTS="$list" || rc=$?
	summary=tests/test-suite.log
	[ -f "$summary" ] || summary=test-suite.log
	n() { sed -n "s/^# $1: *//p" "$summary"; }
	pass=$((pass + $(n PASS))) fail=$((fail + $(n FAIL))) error=$((error + $(n ERROR)))
	skip=$((skip + $(n SKIP)))
	skipped="$skipped$(grep '^SKIP' "$summary" || true)"
	if [ "$rc" -ne 0 ]; then
		status=1
		sed -n '/^FAIL\|^ERROR/p' "$summary" >&2 || true
	fi
	times="$times $tier $(($(date +%s) - t0)) s,"
done
# No test may skip here: every one can run on a Debian 12 machine as root.
if [ "$skip" -ne 0 ]; then
	echo "$0: $skip test(s) skipped; the suite must run in full:" >&2
	echo "$skipped" >&2
	status=1
fi
echo "make check: $(($(date +%s) - start)) s (${times%,} )"

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
