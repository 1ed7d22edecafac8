#!/bin/bash
# Runs every fuzz harness for FUZZ_SECONDS (default 60) each, after replaying the kept
# regression inputs; prints the executions of each and fails on any crash, leak or
# undefined behaviour. New interesting inputs go to a scratch corpus, not into the tree;
# a crash input is left in FUZZ_WORK/crashes to be copied to tests/fuzz/regressions/.
#
# Usage: tests/fuzz/run.sh [HARNESS...]   (names like fuzz_mountinfo; default: all)
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${FDEWIZ_BUILDDIR:-$src}
bin=${FUZZ_BUILD:-$build/tests/fuzz/bin}
seconds=${FUZZ_SECONDS:-60}
work=${FUZZ_WORK:-$(mktemp -d /var/tmp/fdewiz-fuzz.XXXXXX)}

# libparted's GPT code runs strchr over an unterminated buffer when it loads (a library
# bug, see tests/Makefile.inc); everything else is checked.
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-intercept_strchr=0:detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

bash "$src/tests/fuzz/build.sh"

if [ $# -gt 0 ]; then
	harnesses=("$@")
else
	harnesses=()
	for h in "$src"/tests/fuzz/fuzz_*.c; do
		harnesses+=("$(basename "${h%.c}")")
	done
fi

mkdir -p "$work/crashes"
failed=0
total=0
printf '%-20s %12s %10s %8s  %s\n' harness executions exec/s corpus result
for h in "${harnesses[@]}"; do
	seeds=$src/tests/fuzz/corpus/$h
	regress=$src/tests/fuzz/regressions/$h
	log=$work/$h.log
	result=ok
	[ -d "$seeds" ] || { echo "$h: no seed corpus in $seeds" >&2; failed=1; continue; }
	# Every kept crash input first: each must run clean now.
	if [ -d "$regress" ] && [ -n "$(ls -A "$regress")" ]; then
		if ! "$bin/$h" -runs=1 "$regress"/* >"$log.regress" 2>&1; then
			result="REGRESSION (see $log.regress)"
			failed=1
		fi
	fi
	mkdir -p "$work/corpus/$h"
	rc=0
	"$bin/$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/crashes/$h-" \
		"$work/corpus/$h" "$seeds" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	if [ "$rc" -ne 0 ]; then
		result="CRASH (exit $rc; input in $work/crashes; log $log)"
		failed=1
		grep -E 'ERROR|runtime error|SUMMARY' "$log" | head -5 >&2 || true
	fi
	total=$((total + ${execs:-0}))
	printf '%-20s %12s %10s %8s  %s\n' "$h" "${execs:-?}" "${speed:-?}" \
		"$(ls "$work/corpus/$h" | wc -l)" "$result"
done
echo "total executions: $total in ${#harnesses[@]} harnesses, ${seconds} s each"
[ -n "${FUZZ_WORK:-}" ] || [ "$failed" -ne 0 ] || rm -rf "$work"
[ "$failed" -eq 0 ] || echo "fuzz: failures; inputs and logs kept in $work" >&2
exit "$failed"
