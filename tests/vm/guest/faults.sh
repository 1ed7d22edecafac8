#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Guest half of test-vm-faults.sh: a disk that fails in the middle of a conversion. Each
# partition is reached through a device-mapper device whose table is swapped while the
# background worker converts: read errors, write errors, the device gone, a slow device.
# Each time the worker must stop (or, when slow, go on) with a clear record, lose nothing,
# and `fdewiz resume` must finish once the device is healthy again.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/chk
modprobe dm-flakey 2>/dev/null || true
modprobe dm-delay 2>/dev/null || true
step() { echo "faults: $*"; }
die() { echo "faults: FAIL: $*"; exit 1; }
MiB=$((1024 * 1024))

# state NAME: the conversion's "state percent speed" as status --json reports it.
state() { "$fdewiz" status --json "/dev/mapper/$1" 2>/dev/null |
	jq -r '.conversions[0] | "\(.state) \(.percent) \(.speed)"'; }

# wait_percent NAME P: until the conversion is past P percent (or no longer running).
wait_percent()
{
	local s
	for _ in $(seq 1 600); do
		s=$(state "$1")
		case "$s" in
		running*) awk -v p="${s#running }" -v w="$2" 'BEGIN { exit !(p + 0 >= w) }' && return 0 ;;
		*) echo "$s"; return 1 ;;
		esac
		sleep 0.2
	done
	return 1
}

# wait_gone PID: until the worker process has ended (a failing disk must not hang it).
wait_gone()
{
	for _ in $(seq 1 900); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	return 1
}

# wait_stopped NAME: until the worker no longer runs; prints the final state.
wait_stopped()
{
	local s
	for _ in $(seq 1 900); do
		s=$(state "$1")
		case "$s" in running*) sleep 0.2 ;; *) echo "$s"; return 0 ;; esac
	done
	return 1
}

swap_table() # NAME TABLE: the new table takes over (from a suspended device, too)
{
	dmsetup load "$1" --table "$2" && dmsetup resume "$1"
}

verify() # NAME
{
	cryptsetup open --key-file "$work/key" "/dev/mapper/$1" "$1-chk" || die "$1: cannot open"
	e2fsck -fn "/dev/mapper/$1-chk" >/dev/null 2>&1 || die "$1: e2fsck"
	mount -o ro "/dev/mapper/$1-chk" /mnt/chk
	(cd /mnt/chk && sha256sum -c --quiet "$work/data.sha256") || die "$1: files differ"
	umount /mnt/chk
	cryptsetup close "$1-chk"
	step "$1: $(wc -l <"$work/data.sha256") files verified after resume"
}

# run_case NAME PART FAULT_TABLE EXPECT: start a background conversion of /dev/mapper/NAME
# (linear over /dev/PART), swap in FAULT_TABLE at 15 %, then heal and resume.
run_case()
{
	local name=$1 part=$2 fault=$3 expect=$4 sectors healthy s msg t0 pid before status_file
	local done_bytes
	sectors=$(blockdev --getsz "/dev/$part")
	healthy="0 $sectors linear /dev/$part 0"
	fault=${fault//@SECTORS@/$sectors}
	fault=${fault//@REST@/$((sectors - 65536))}
	fault=${fault//@DEV@//dev/$part}
	# Healthy but a little slow at first (5 ms an I/O), so that the fault reliably comes
	# in the middle: unslowed, the whole conversion takes seconds.
	dmsetup create "$name" --table "0 $sectors delay /dev/$part 0 5"
	"$fdewiz" encrypt --yes --fast-pbkdf --no-bench --offline --key-file "$work/key" \
		--header-backup "/run/$name.hdr" "/dev/mapper/$name" >"/run/$name.enc" 2>&1 ||
		{ cat "/run/$name.enc"; die "$name: encrypt did not start"; }
	# The fault comes right after the first hotzone is done, found in the worker's own
	# published progress (cheap to poll), with the device frozen meanwhile: exact, not timed.
	status_file=$FDEWIZ_STATE_DIR/jobs/$(cryptsetup luksUUID "/dev/mapper/$name").status
	for _ in $(seq 1 1200); do
		done_bytes=$(jq -r '.done // 0' "$status_file" 2>/dev/null || echo 0)
		[ "${done_bytes:-0}" -gt 0 ] && break
		sleep 0.05
	done
	[ "${done_bytes:-0}" -gt 0 ] || die "$name: no progress published"
	# A slow spell needs a speed to fall from: let three hotzones pass first.
	while [ "$expect" = slow ] && [ "$(jq -r '.done' "$status_file")" -lt $((48 * MiB)) ]; do
		sleep 0.05
	done
	dmsetup suspend "$name"
	before=$(jq -r '"running \(.done) \(.total) \(.speed)"' "$status_file")
	pid=$(jq -r '.pid' "$status_file")
	[[ "$pid" =~ ^[0-9]+$ ]] || die "$name: no worker pid in its status"
	step "$name: after the first hotzone ($before), the disk now fails: $fault"
	swap_table "$name" "$fault" || die "$name: dmsetup could not swap in the fault"
	if [ "$expect" = slow ]; then
		t0=$(date +%s)
		s=$(timeout 20 "$fdewiz" status --json "/dev/mapper/$name" |
			jq -r '.conversions[0].state') || die "$name: status hangs on a slow disk"
		step "$name: status answers in $(($(date +%s) - t0)) s while slow: $s"
		sleep 8
		s=$(state "$name")
		step "$name: before: $before; while slow: $s"
		case "$s" in running*) ;; *) die "$name: a slow disk stopped the conversion ($s)" ;; esac
		# It goes on, slower: more bytes done than when the disk turned slow. The speeds
		# shown are printed (a sliding window over the progress reports), not judged.
		awk -v a="$(awk '{print $2}' <<<"$before")" -v b="$(jq -r '.done' "$status_file")" \
			'BEGIN { exit !(b > a) }' || die "$name: no progress while the disk was slow"
		echo "SLOW-SPEED ${before##* } -> ${s##* } bytes/s"
		swap_table "$name" "$healthy"
		s=$(wait_stopped "$name") || die "$name: never finished"
		[ "${s%% *}" = complete ] || die "$name: ended '$s' after the slow spell"
		verify "$name"
		return 0
	fi
	wait_gone "$pid" || die "$name: the worker did not stop on a failing disk"
	# While the disk fails, status must answer (whatever it can read), not hang.
	timeout 20 "$fdewiz" status "/dev/mapper/$name" >"/run/$name.status" 2>&1 ||
		[ $? != 124 ] || die "$name: status hangs on a failing disk"
	step "$name: status while failing: $(tr '\n' ' ' <"/run/$name.status")"
	# A disk that answers nothing is said to be unreadable, not "no conversion here".
	if [ "$expect" = gone ]; then
		grep -q "cannot be read" "/run/$name.status" ||
			die "$name: status does not say the disk cannot be read"
	fi
	# Healthy again: the same table (for "gone", the device comes back under its name).
	if [ "$expect" = gone ]; then
		dmsetup remove "$name" 2>/dev/null || dmsetup remove --force "$name" || true
		dmsetup create "$name" --table "$healthy"
	else
		swap_table "$name" "$healthy"
	fi
	s=$(state "$name")
	msg=$("$fdewiz" status --json "/dev/mapper/$name" | jq -r '.conversions[0].message')
	step "$name: stopped: $s; message: $msg"
	case "${s%% *}" in
	failed | interrupted | needs-repair) ;;
	*) die "$name: state '$s' after the disk failed" ;;
	esac
	case "$msg" in
	*"Nothing is lost"*"fdewiz resume"*) ;;
	*) die "$name: the message does not say what happened and what to do: $msg" ;;
	esac
	echo "STOPPED $name ${s%% *} $msg"
	"$fdewiz" resume --foreground --key-file "$work/key" "/dev/mapper/$name" \
		>"/run/$name.resume" 2>&1 || { cat "/run/$name.resume"; die "$name: resume failed"; }
	s=$(state "$name")
	[ "${s%% *}" = complete ] || die "$name: '$s' after resume"
	verify "$name"
}

# eta_sample FILE T0: one line "t done total eta speed state" from the worker's status record
# (what status --json reports while the worker runs), t in seconds since T0 (-1: unknown).
eta_sample()
{
	local now
	now=$(date +%s.%N)
	awk -v a="$now" -v b="$2" 'BEGIN { printf "%.2f ", a - b }'
	jq -r '"\(.done) \(.total) \(.eta) \(.speed) \(.state)"' "$1"
}

# eta_case NAME PART WRITE_DELAY_MS: convert at the healthy speed for one hotzone, then
# slow the writes down and sample the ETA each second until the conversion completes.
eta_case()
{
	local name=$1 part=$2 delay=$3 sectors status_file t0 s
	sectors=$(blockdev --getsz "/dev/$part")
	dmsetup create "$name" --table "0 $sectors delay /dev/$part 0 5"
	"$fdewiz" encrypt --yes --fast-pbkdf --no-bench --offline --key-file "$work/key" \
		--header-backup "/run/$name.hdr" "/dev/mapper/$name" >"/run/$name.enc" 2>&1 ||
		{ cat "/run/$name.enc"; die "$name: encrypt did not start"; }
	status_file=$FDEWIZ_STATE_DIR/jobs/$(cryptsetup luksUUID "/dev/mapper/$name").status
	# The first publication after the first hotzone may come before the worker has a
	# speed to give (one step is no rate yet): wait for both.
	for _ in $(seq 1 2400); do
		jq -e '(.done // 0) > 0 and (.speed // 0) > 0' "$status_file" >/dev/null 2>&1 && break
		sleep 0.05
	done
	t0=$(date +%s.%N)
	# The healthy speed, as the worker published it once the first hotzone was done.
	eta_sample "$status_file" "$t0" >"/run/$name.eta"
	swap_table "$name" "0 $sectors delay /dev/$part 0 0 /dev/$part 0 $delay" ||
		die "$name: dmsetup could not slow the device down"
	: >"/run/$name.eta-slow"
	# Until the data is all converted (done = total: the ETA judged is the data's); the
	# header's last commits then run at the healthy speed, not 500 ms a write.
	for _ in $(seq 1 600); do
		s=$(eta_sample "$status_file" "$t0")
		echo "$s" >>"/run/$name.eta-slow"
		case "$s" in
		*" running") awk '{ exit !($2 == $3) }' <<<"$s" && break; sleep 1 ;;
		*) break ;;
		esac
	done
	step "$name: status --json while slow: $("$fdewiz" status --json "/dev/mapper/$name" |
		jq -c '.conversions[0] | {state, percent, speed, eta}')"
	swap_table "$name" "0 $sectors linear /dev/$part 0"
	s=$(wait_stopped "$name") || die "$name: never finished"
	[ "${s%% *}" = complete ] || die "$name: ended '$s' after the slow spell"
	eta_judge "$name" || {
		echo "$name: the samples (t done total eta speed state), healthy then slow:"
		cat "/run/$name.eta" "/run/$name.eta-slow"
		die "$name: the ETA did not follow the slow device"
	}
	verify "$name"
}

# eta_judge NAME: the samples against the truth, printed, then judged. The truth is when
# the data was all converted (done = total); the end steps after that (the header's last
# commits, a few writes) are printed apart: the ETA is the data's. The estimator
# (fdw_speed_eta) averages over a 10 s sliding window of the worker's steps (hotzones),
# so it can stand on the slow rate alone only once the window holds no healthy step: from
# R = 10 s + one slow step (measured: between the first two steps that end after the
# slowdown) + 2 s (its 1 s refresh and 1 s of sampling) on. From then, each ETA while more
# than 8 s were really left must lie within half and twice the time really left, give or
# take one slow step (how long the step in progress takes is known only at its end; the
# last one was quicker than the others in a full run, which saw an ETA of 17.8 s
# against 8.7 s really left, with 9.8 s steps); from one
# sample to the next it may neither more than double nor fall below half (2 s of slack);
# and once the device is at least 1.5 times slower, the first judged ETA must be above
# what the healthy speed would have promised.
eta_judge()
{
	local name=$1 fast
	fast=$(awk '{ print $5 }' "/run/$name.eta")
	awk -v fast="$fast" -v name="$name" 'BEGIN { n = 0 }
	$6 == "running" { t[n] = $1; done[n] = $2; total = $3; eta[n] = $4; speed[n] = $5; n++ }
	$6 == "running" && $2 == $3 && !end { end = $1 }
	$6 == "complete" && !fin { fin = $1 }
	END {
		if (!end && fin) end = fin
		if (!end || n < 3 || fast <= 0) {
			print "ETA " name ": too few samples (" n "), or no healthy speed"
			exit 1
		}
		slow = (total - done[0]) / (end - t[0])
		for (i = 1; i < n && steps < 2; i++)
			if (done[i] > done[i - 1]) at[steps++] = t[i]
		step = steps == 2 ? at[1] - at[0] : end - (steps ? at[0] : t[0])
		r = 10 + step + 2
		printf "ETA %s: healthy %.2f MB/s, slow %.2f MB/s (%.1fx), one slow step %.1f s, " \
			"judged from %.1f s on; data done at %.1f s, complete at %.1f s\n", name,
			fast / 1e6, slow / 1e6, fast / slow, step, r, end, fin
		for (i = 0; i < n; i++) {
			truth = end - t[i]
			judged = t[i] >= r && truth > 8
			ok = !judged || (eta[i] >= truth / 2 - step && eta[i] <= truth * 2 + step)
			if (judged && !first++ && fast / slow >= 1.5 &&
			    eta[i] <= (total - done[i]) / fast)
				ok = 0
			if (i && t[i - 1] >= r && t[i] < end && eta[i - 1] >= 0 &&
			    (eta[i] > 2 * eta[i - 1] + 2 || eta[i] < eta[i - 1] / 2 - 2))
				ok = 0
			printf "ETA %s t=%5.1f done=%4.0f MiB speed=%5.2f MB/s eta=%6.1f " \
				"truth=%6.1f %s\n", name, t[i], done[i] / 1048576, speed[i] / 1e6,
				eta[i], truth, judged ? (ok ? "ok" : "OUTSIDE") : (ok ? "-" : "SWING")
			bad += !ok
			checked += judged
		}
		if (checked < 3) { print "ETA " name ": too few samples to judge"; exit 1 }
		printf "ETA-HONEST %s %d of %d judged samples inside [truth/2, 2*truth] +- one step\n",
			name, checked - bad, checked
		exit bad != 0
	}' "/run/$name.eta-slow"
}

# Read errors: everything after the first 32 MiB (the header's room) fails; the next
# hotzone read meets it.
run_case fdw-read vda1 "0 65536 linear @DEV@ 0
65536 @REST@ error" error
# Write errors: reads work, every write fails.
run_case fdw-write vda2 "0 @SECTORS@ flakey @DEV@ 0 0 3600 1 error_writes" error
# The device is gone: every I/O fails.
run_case fdw-gone vda3 "0 @SECTORS@ error" gone
# A slow device: 100 ms on every I/O; the conversion slows down and goes on.
run_case fdw-slow vda4 "0 @SECTORS@ delay @DEV@ 0 100" slow
# An honest ETA: the device turns slow (writes and flushes delayed, so status itself still
# answers at once) and the time left that status --json shows is sampled every second, then
# judged against the time the conversion really took to finish.
eta_case fdw-eta vda5 500
echo FDEWIZ-FAULTS-OK
