#!/bin/sh
# Install what the tests need, build with warnings as errors and sanitizers, run the whole suite.
#
# Run as root from a clone of the repository: ./tests/run-all.sh [--quick]
# --quick: the unit tests and the root tests of the engine's flows (QUICK_TESTS in
# tests/Makefile.inc), in under 10 minutes, for use while working; no tmux, VM or distcheck.
# CI and the README run it without --quick.
# Steps: packages; build (-Werror, ASan+UBSan); `make check` (unit tests, root tests on
# image files and loop devices, tmux-driven tests, QEMU VM tests); `make distcheck`
# (the release tarball builds, and its unit tests pass under valgrind).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "$0: the suite uses loop devices, mounts and a VM; run it as root (sudo)." >&2
	exit 1
fi

./tests/install-deps.sh test
./autogen.sh >/dev/null 2>&1
./configure --quiet --enable-werror --enable-sanitizers
make -j"$(nproc)" >/dev/null
# The VM tests' binary (tests/vm/lib.sh, vm_find_fdewiz): UBSan without ASan, from the
# release files in vm-build/, beside the ASan+UBSan build that every host test runs. The
# release files are copied here (make distdir, in this tree); the build itself runs at the
# head of the VM lane, beside the first host tests (build_vm_binary, below).
if [ "$quick" = 0 ]; then
	rm -rf vm-build && mkdir vm-build
	make distdir distdir=vm-build/tree >/dev/null
	export FDEWIZ_VM_FDEWIZ="$top/vm-build/tree/src/fdewiz"
fi
build_vm_binary()
{
	(cd vm-build/tree && ./configure --quiet --enable-werror \
		CFLAGS="-g -O2 -fno-omit-frame-pointer -fsanitize=undefined -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=undefined" >/dev/null && make -j1 src/fdewiz >/dev/null) ||
		echo "$0: the VM tests' binary did not build (vm-build/tree); they fail" >&2
}

# Tier by tier (unit, root, tui, vm, then anything else), so that each tier's time shows.
# The VM tier runs beside root, tui and other (FDEWIZ_TEST_SERIAL=1: one after the other):
# the VM spends much of its time waiting on emulated I/O and the host tests on sync and
# sleep-polling, so the two overlap well on two cores; each test uses its own images, loop
# devices and state folder. Unit tests share nothing and run side by side.
if [ "$quick" = 1 ]; then
	tests=$(make -s print-quick-tests)
else
	tests=$(make -s print-tests)
fi
tier_of()
{
	case "$1" in
	tests/unit/*) echo unit ;;
	# What run-all.sh builds once per machine (cache_timed): cold, its cost shows here.
	"(cache)"*) echo cache ;;
	# fio against fdewiz's benchmark waits on the disk (measured alone: 136 s, 34 s of
	# CPU): it runs after the tmux tests, beside the boot tests of vmsys2 (below).
	tests/root/test-bench-fio.sh) echo rootio ;;
	tests/root/*) echo root ;;
	tests/tui/*) echo tui ;;
	# The one-restart boot tests of ext4 and LVM, the live carve and the refusals on the
	# installed image go to the host lane, after its tiers (see below), so that both lanes
	# end together (measured in the run of 30204b4: host lane root 773 s, then 1662 s with
	# the tmux tests and fio beside them, then distcheck 87 s; VM lane its build, 628 +
	# 1862 s, then the fuzz smoke 45 s; the lanes ended 34 s apart, make check 2582 s).
	tests/vm/test-vm-system-restart.sh | tests/vm/test-vm-system-carve.sh | \
		tests/vm/test-vm-system-restart-lvm.sh | tests/vm/test-vm-system-boot.sh) echo vmsys2 ;;
	tests/vm/test-vm-system-*) echo vmsys ;;
	tests/vm/*) echo vm ;;
	*) echo other ;;
	esac
}
# run_tier TIER JOBS: its tests, its own summary log; "pass fail error skip seconds rc" in
# tests/tier-TIER.result.
run_tier()
{
	local tier=$1 jobs=$2 list t0 rc=0 log=tests/tier-$1.log
	list=$(for t in $tests; do [ "$(tier_of "$t")" = "$tier" ] && echo "$t"; done | tr '\n' ' ')
	rm -f "tests/tier-$tier.result"
	[ -n "$list" ] || return 0
	t0=$(date +%s)
	make -j"$jobs" check TESTS="$list" TEST_SUITE_LOG="$log" || rc=$?
	# A tier stopped before its summary (killed) counts 0 of each, not a shifted line.
	n() { local v; v=$(sed -n "s/^# $1: *//p" "$log" 2>/dev/null); echo "${v:-0}"; }
	echo "$(n PASS) $(n FAIL) $(n ERROR) $(n SKIP) $(($(date +%s) - t0)) $rc" \
		>"tests/tier-$tier.result"
	if [ "$rc" -ne 0 ]; then
		sed -n '/^FAIL\|^ERROR/p' "$log" >&2 || true
	fi
	grep '^SKIP' "$log" >"tests/tier-$tier.skipped" || true
}
# run_distcheck: the release tarball builds, and its unit tests pass under valgrind;
# "rc seconds" in tests/distcheck.result.
run_distcheck()
{
	local t0 rc=0
	t0=$(date +%s)
	make distcheck >/tmp/fdewiz-distcheck.log 2>&1 || rc=$?
	echo "$rc $(($(date +%s) - t0))" >tests/distcheck.result
}
# run_floating: the tasks that either lane may run (distcheck, the fuzz smoke), each taken
# once (mkdir is atomic) by whichever lane is free first, the longer first, so that the
# two lanes end together instead of one waiting on the other's last minutes.
run_floating()
{
	local task
	for task in distcheck other; do
		mkdir "tests/floating-$task.taken" 2>/dev/null || continue
		case $task in
		other) run_tier other 1 ;;
		distcheck) run_distcheck ;;
		esac
	done
}
# cache_timed NAME COMMAND...: COMMAND (a cache built once per machine: the installed
# Debian images, the VM's kernel), its wall and CPU time in the report as "(cache) NAME",
# so that a cold machine's extra cost is seen beside the tests.
cache_timed()
{
	local name=$1
	shift
	FDEWIZ_TIMES_DIR=$top/tests/times FDEWIZ_TIMES_AS="(cache)$name" \
		sh tests/lib/timed.sh "$@"
}
# The host tests' image files (tests/lib/images.sh, FDEWIZ_TEST_TMP) in memory when there
# is room: real files and loop devices all the same, without waiting on the disk for every
# flush. On this disk test-encrypt-offline.sh took 253 s (72 s of CPU) with its images in
# /var/tmp and 169 s (75 s) in /dev/shm; the root tier's tests waited 900 of their 2178 s.
# The fio comparison (tier rootio) measures the disk and the VM tests' images need
# O_DIRECT: both stay on the disk. The tmux tests stay there too for now: they run beside
# the boot tests, off the longer lane, and were not yet run from memory.
fast_tmp=/var/tmp
if [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -ge $((4 * 1024 * 1024)) ] 2>/dev/null; then
	fast_tmp=/dev/shm
fi
# run_tier_fast TIER JOBS: run_tier with the images in $fast_tmp.
run_tier_fast()
{
	(
		export FDEWIZ_TEST_TMP="$fast_tmp"
		run_tier "$@"
	)
}
start=$(date +%s)
rm -rf tests/times tests/distcheck.result tests/floating-*.taken tests/cpu-samples.txt
# How busy both cores were, minute by minute (tests/lib/cpu-sample.sh): in the time report.
sh tests/lib/cpu-sample.sh tests/cpu-samples.txt 60 &
sampler_pid=$!
# Stopped below before its summary; this also stops it when a step fails under set -e.
trap 'kill "$sampler_pid" 2>/dev/null || true' EXIT
run_tier unit "$(nproc)"
if [ "$quick" = 1 ]; then
	run_tier_fast root 1
	run_tier rootio 1
elif [ "${FDEWIZ_TEST_SERIAL:-0}" = 1 ]; then
	build_vm_binary
	run_tier_fast root 1
	run_tier rootio 1
	run_tier tui 1
	run_tier vm 1
	run_tier vmsys 1
	run_tier vmsys2 1
	run_tier other 1
	run_distcheck
else
	# The installed Debian that the boot tests (tier vmsys) boot is built, or found in its
	# cache, from the start, while the other tiers run; those tests follow the VM tier in
	# its lane, so that one emulated machine runs at a time beside the host tests. A test
	# that finds the build still running waits for its lock; a failed build is reported by
	# the tests themselves, which ask for the image again.
	cache_timed installed-image tests/vm/installed-image.sh --quiet \
		>tests/installed-image.log 2>&1 &
	img_pid=$!
	(
		cache_timed vm-kernel tests/vm/vm-prepare.sh --quiet >/dev/null 2>tests/vm-prepare.log
		build_vm_binary
		run_tier vm 1
		run_tier vmsys 1
		run_floating
	) &
	vm_pid=$!
	# The fuzz smoke (tier other) and distcheck go to whichever lane is free first: serial
	# after both lanes each added its whole time to the run's. The boot tests of tier
	# vmsys2 follow the host tiers: the VM lane's emulated machine and its own then take a
	# core each (the host lane is otherwise idle by then), where the VM lane alone would
	# have ended minutes after the host lane.
	# The tmux tests wait more than they compute (measured alone: 229 s, 101 s of CPU), and
	# the fio comparison waits on the disk: both run beside the first boot test of vmsys2
	# rather than before it.
	run_tier_fast root 1
	(
		run_tier tui 1
		run_tier rootio 1
	) &
	tui_pid=$!
	run_tier vmsys2 1
	wait "$tui_pid" || true
	run_floating
	wait "$vm_pid" || true
	wait "$img_pid" || true
fi
status=0 pass=0 fail=0 error=0 skip=0 skipped="" times=""
for tier in unit root rootio tui vm vmsys vmsys2 other; do
	[ -f "tests/tier-$tier.result" ] || continue
	read -r p f e sk secs rc <"tests/tier-$tier.result"
	pass=$((pass + ${p:-0})) fail=$((fail + ${f:-0})) error=$((error + ${e:-0}))
	skip=$((skip + ${sk:-0}))
	skipped="$skipped$(cat "tests/tier-$tier.skipped")"
	[ "${rc:-1}" -eq 0 ] || status=1
	times="$times $tier $secs s,"
done
# No test may skip here: every one can run on a Debian 12 machine as root.
if [ "$skip" -ne 0 ]; then
	echo "$0: $skip test(s) skipped; the suite must run in full:" >&2
	echo "$skipped" >&2
	status=1
fi
echo "make check: $(($(date +%s) - start)) s (${times%,} )"
kill "$sampler_pid" 2>/dev/null || true
cores=$(sh tests/lib/cpu-sample.sh --summary tests/cpu-samples.txt)
echo "$cores"
# The time report: every script test's wall time, slowest first, in tests/time-report.txt;
# the slowest 15 here, so that a slow test is seen the day it arrives (HACKING.md).
report=tests/time-report.txt
{
	echo "# make check $(($(date +%s) - start)) s; tiers:${times%,}"
	echo "# $cores"
	echo "# wall-seconds cpu-seconds tier test"
	cat tests/times/*.time 2>/dev/null | while read -r secs cpu name; do
		echo "$secs $cpu $(tier_of "$name") $name"
	done | sort -rn
} >"$report"
echo "slowest tests (all in $report; CPU: of the processes each waited for):"
grep -v '^#' "$report" | head -15 |
	awk '{ printf "  %5d s  CPU %5d s  %-6s %s\n", $1, $2, $3, $4 }'
# The guard against drift: each tier and test against the recorded run.
[ "$quick" = 1 ] || sh tests/lib/time-drift.sh "$report" tests/time-recorded.txt || true

if [ "$quick" = 0 ]; then
	read -r dc_rc dc_secs 2>/dev/null <tests/distcheck.result || dc_rc=1 dc_secs=0
	if [ "$dc_rc" != 0 ]; then
		tail -40 /tmp/fdewiz-distcheck.log >&2
		echo "$0: make distcheck failed (log: /tmp/fdewiz-distcheck.log)" >&2
		fail=$((${fail:-0} + 1))
		status=1
	else
		echo "make distcheck: ok (${dc_secs} s)"
	fi
fi

# A failing test's own log ends the output, so that a run seen only by its last lines (a
# CI page) still says what went wrong.
for tier in unit root rootio tui vm vmsys vmsys2 other; do
	[ -f "tests/tier-$tier.log" ] || continue
	sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\).*/\2/p' "tests/tier-$tier.log" | sort -u |
		while read -r t; do
			[ -f "${t%.sh}.log" ] || continue
			echo "===== last 40 lines of ${t%.sh}.log ====="
			tail -40 "${t%.sh}.log"
		done >&2
done
echo "tests: ${pass:-0} passed, $((${fail:-0} + ${error:-0})) failed, ${skip:-0} skipped"
exit "$status"
