#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Records the last full run's time report (tests/time-report.txt, written by
# ./tests/run-all.sh) as the one later runs compare with (tests/time-recorded.txt, see
# tests/lib/time-drift.sh). Run it after a full run on a quiet machine, when a change of the
# suite's cost is meant, and commit the file with that change.
#
# Usage: tests/record-times.sh "WHAT THIS RUN WAS" (the commit and the machine, for instance)
set -eu
cd "$(dirname "$0")/.."
[ $# = 1 ] || { echo "usage: $0 \"what this run was\"" >&2; exit 2; }
[ -s tests/time-report.txt ] || { echo "$0: no tests/time-report.txt: run ./tests/run-all.sh first" >&2; exit 1; }
grep -q '^# make check .*tiers:' tests/time-report.txt ||
	{ echo "$0: tests/time-report.txt has no tier line" >&2; exit 1; }
{
	echo "# recorded $(date -u +%Y-%m-%d): $1"
	cat tests/time-report.txt
} >tests/time-recorded.txt
echo "recorded in tests/time-recorded.txt"
