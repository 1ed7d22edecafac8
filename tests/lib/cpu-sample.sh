#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# How busy the machine's cores were while the suite ran: are both cores used all the time?
#
# Usage: cpu-sample.sh FILE [SECONDS]   (run in the background; stop it with a signal)
#        cpu-sample.sh --summary FILE
# The first form appends one line per SECONDS (default 60) to FILE: "ELAPSED BUSY IOWAIT",
# the seconds since it started and the share (percent of all cores) that the cores spent
# working and waiting on the disk in that interval, from /proc/stat. The second prints
# the whole run's figures and how many intervals left more than a core's half idle; the
# time report shows it, so that a lane that waits is seen beside the tests' own times.
set -eu

# cpu_now: "BUSY IDLE IOWAIT" in clock ticks since the machine started, all cores.
cpu_now()
{
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5, $6 }' /proc/stat
}

if [ "${1:-}" = --summary ]; then
	[ -s "$2" ] || { echo "cores: no samples"; exit 0; }
	awk -v cores="$(nproc)" '
	{ n++; busy += $2; wait += $3 }
	# Under (cores - 0.5) / cores busy: more than half a core idle in that interval.
	$2 < 100 * (cores - 0.5) / cores { idle++ }
	END {
		printf "cores (%d): busy %d %%, waiting on the disk %d %% over %d samples; ", cores,
			busy / n, wait / n, n
		printf "%d of them with more than half a core idle\n", idle
	}' "$2"
	exit 0
fi

file=$1 every=${2:-60}
start=$(date +%s)
read -r busy0 idle0 wait0 <<EOF
$(cpu_now)
EOF
while sleep "$every"; do
	read -r busy idle wait <<EOF
$(cpu_now)
EOF
	total=$((busy - busy0 + idle - idle0 + wait - wait0))
	if [ "$total" -gt 0 ]; then
		echo "$(($(date +%s) - start)) $((100 * (busy - busy0) / total))" \
			"$((100 * (wait - wait0) / total))" >>"$file"
	fi
	busy0=$busy idle0=$idle wait0=$wait
done
