#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one test script and records its wall time for the suite's time report (run-all.sh).
#
# make check runs every .sh test through this (SH_LOG_COMPILER): the script's exit status is
# passed on unchanged; "SECONDS PATH" goes to $FDEWIZ_TIMES_DIR/NAME.time when that is set.
t0=$(date +%s.%N)
rc=0
"${BASH:-bash}" "$@" || rc=$?
if [ -n "${FDEWIZ_TIMES_DIR:-}" ]; then
	mkdir -p "$FDEWIZ_TIMES_DIR" 2>/dev/null
	t1=$(date +%s.%N)
	script=$1
	name=$(basename "$script" .sh)
	awk -v a="$t0" -v b="$t1" -v n="$(echo "${script#"${FDEWIZ_SRCDIR:-}"/}" | sed "s,^\./,,")" \
		'BEGIN { printf "%.0f %s\n", b - a, n }' >"$FDEWIZ_TIMES_DIR/$name.time" 2>/dev/null
fi
exit "$rc"
