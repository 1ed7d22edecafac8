#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The suite's guard against drift: this run's time report against a recorded one.
#
# Usage: time-drift.sh REPORT RECORDED
# Both files as run-all.sh writes tests/time-report.txt: a "# make check N s; tiers: NAME N s,
# ..." line, then "WALL CPU TIER TEST" per test (seconds). Prints each tier's wall time and
# its tests' CPU time beside the recorded ones, then every test whose wall or CPU time grew
# by more than a third (and by 10 s or more: a 3 s test that takes 5 is noise), and the tests
# the recording does not know. A CPU time recorded as 0 (a recording older than the CPU
# column) is not compared. CPU time is steadier than wall time but not immune to a busy
# machine: the restart test took 1252 s of CPU beside one other emulated machine and 1692 s
# beside two. It only reports: the suite's speed is never asserted (a
# noisy machine is not a failure); whoever makes a test slower says so in its commit, and
# records again (tests/record-times.sh) when the growth is meant.
set -eu
report=$1 recorded=$2
[ -r "$recorded" ] || { echo "time drift: no recording ($recorded)"; exit 0; }
awk -v rec="$recorded" '
function tiers(line, into,    n, i, parts, f) {
	sub(/^.*tiers: */, "", line)
	n = split(line, parts, ",")
	for (i = 1; i <= n; i++) {
		split(parts[i], f, " ")
		if (f[1] != "") into[f[1]] = f[2]
	}
}
function pct(now, was) { return was > 0 ? sprintf("%+d %%", (now - was) * 100 / was) : "not recorded" }
# A recording made before CPU times were kept has 0 there: nothing to compare with.
function grew(now, was) { return was > 0 && now - was >= 10 && now * 3 > was * 4 }
FILENAME == rec && /^# make check/ { tiers($0, rtier); rtotal = $4; next }
FILENAME == rec && /^# recorded/ { rwhen = $0; next }
FILENAME == rec && /^# cores/ { rcores = substr($0, 3); next }
/^# cores/ { cores = substr($0, 3); next }
FILENAME == rec && !/^#/ { rwall[$4] = $1; rcpu[$4] = $2; rcput[$3] += $2; rwallt[$3] += $1; next }
/^# make check/ { tiers($0, tier); total = $4; next }
/^#/ { next }
{ wall[$4] = $1; cpu[$4] = $2; tierof[$4] = $3; cput[$3] += $2; wallt[$3] += $1; order[++n] = $4 }
END {
	sub(/^# /, "", rwhen)
	printf "time against the recording (%s):\n", rwhen != "" ? rwhen : rec
	printf "  make check %d s (recorded %d s, %s)\n", total, rtotal, pct(total, rtotal)
	if (cores != "") printf "  %s\n  (recorded: %s)\n", cores, rcores != "" ? rcores : "not kept"
	nt = split("unit root rootio tui vm vmsys vmsys2 other cache", names, " ")
	for (j = 1; j <= nt; j++) {
		t = names[j]
		if (!(t in tier) && !(t in cput)) continue
		# The caches are built beside the tiers: their wall time is their own sum.
		if (!(t in tier)) tier[t] = wallt[t]
		if (!(t in rtier)) rtier[t] = rwallt[t]
		printf "  %-7s wall %5d s (recorded %5d s, %s)   CPU of its tests %5d s (recorded %5d s, %s)\n",
			t, tier[t], rtier[t], pct(tier[t], rtier[t]), cput[t], rcput[t], pct(cput[t], rcput[t])
	}
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!(k in rwall)) { fresh = fresh "  " k " (" wall[k] " s, CPU " cpu[k] " s)\n"; continue }
		if (grew(wall[k], rwall[k]) || grew(cpu[k], rcpu[k]))
			more = more sprintf("  %-48s wall %5d s (was %5d, %s)  CPU %5d s (was %5d, %s)\n",
				k, wall[k], rwall[k], pct(wall[k], rwall[k]), cpu[k], rcpu[k], pct(cpu[k], rcpu[k]))
	}
	if (more != "") printf "grew by more than a third since the recording:\n%s", more
	else print "no test grew by more than a third since the recording"
	if (fresh != "") printf "not in the recording:\n%s", fresh
}' "$recorded" "$report"
