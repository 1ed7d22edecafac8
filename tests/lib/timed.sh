#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one test script and records its wall time and CPU time for the suite's time report
# (run-all.sh).
#
# make check runs every .sh test through this (SH_LOG_COMPILER): the script's exit status is
# passed on unchanged; "SECONDS CPU-SECONDS PATH" goes to $FDEWIZ_TIMES_DIR/NAME.time when
# that is set. The CPU time is that of every process the script waited for (QEMU's included:
# its emulated CPU's work), read from this shell's cutime and cstime in /proc; a daemon that
# left its parent (tmux's server) is not counted. It stays steady where the wall time
# swings with whatever else the machine runs, so the report compares it too. With
# FDEWIZ_TIMES_AS=NAME the record is NAME.time and names NAME instead of the script.
t0=$(date +%s.%N)
rc=0
"${BASH:-bash}" "$@" || rc=$?
if [ -n "${FDEWIZ_TIMES_DIR:-}" ]; then
	mkdir -p "$FDEWIZ_TIMES_DIR" 2>/dev/null
	t1=$(date +%s.%N)
	script=$1
	name=${FDEWIZ_TIMES_AS:-$(basename "$script" .sh)}
	[ -z "${FDEWIZ_TIMES_AS:-}" ] || script=$FDEWIZ_TIMES_AS
	# Fields 16 and 17 of /proc/PID/stat: the waited-for children's user and system ticks.
	cpu=$(awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" \
		'{ sub(/^.*\) /, ""); printf "%.0f", ($14 + $15) / hz }' "/proc/$$/stat" 2>/dev/null)
	awk -v a="$t0" -v b="$t1" -v c="${cpu:-0}" \
		-v n="$(echo "${script#"${FDEWIZ_SRCDIR:-}"/}" | sed "s,^\./,,")" \
		'BEGIN { printf "%.0f %d %s\n", b - a, c, n }' >"$FDEWIZ_TIMES_DIR/$name.time" 2>/dev/null
fi
exit "$rc"
