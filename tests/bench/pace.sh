#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A benchmark, not a test: how much of the disk the person keeps while a conversion runs,
# in each pace (full, auto, gentle), against the same work on an idle disk in the same run.
# The person's work is fio on files beside the image, on the same disk: 4 KiB random
# reads at queue depth 1 (p50 and p99 latency) and flushed 1 MiB writes (MiB/s). The
# conversion's own speed is read from `fdewiz status` while the disk is quiet and while
# the person works. Offline conversion of an ext4 partition in an image file (the loop
# device's backing disk is the one the pacer watches). Prints figures and ratios; asserts
# nothing (these machines are noisy: compare rows of one run, not runs).
#
# Usage (root, from a built tree): tests/bench/pace.sh [PARTITION_MIB (default 12288: the full pace must still
# be converting while the person works)]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
FDEWIZ=${FDEWIZ:-$top/src/fdewiz}
size=${1:-12288}
secs=${PACE_BENCH_SECONDS:-8}
work=/var/tmp/fdw-pace-bench
export FDEWIZ_STATE_DIR=$work/state
for c in fio jq parted mkfs.ext4 setsid; do
	command -v "$c" >/dev/null || { echo "$0: needs $c" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "$0: run as root" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
trap '"$FDEWIZ" pause "$work/pace.img:1" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
printf 'pace benchmark passphrase' >"$work/key"

# The image: one ext4 partition, 30 % of it a file of random bytes; kept as a sparse
# copy so that every pace starts from the same bytes.
truncate -s $((size + 2))M "$work/pristine.img"
parted -s "$work/pristine.img" mklabel gpt mkpart Data ext4 1MiB $((size + 1))MiB 2>/dev/null
loop=$(losetup -f --show -o $((1024 * 1024)) --sizelimit $((size * 1024 * 1024)) \
	"$work/pristine.img")
mkfs.ext4 -q -F -b 4096 "$loop"
mkdir -p "$work/mnt"
mount "$loop" "$work/mnt"
head -c $((size * 3 / 10))M /dev/urandom >"$work/mnt/data.bin"
umount "$work/mnt"
losetup -d "$loop"
# The person's files, on the same disk.
head -c 512M /dev/urandom >"$work/person-read.dat"
sync

# person LABEL: the person's two measures, printed and kept in $work/LABEL.*
person()
{
	fio --name=rr --filename="$work/person-read.dat" --rw=randread --bs=4k --iodepth=1 \
		--direct=1 --runtime="$secs" --time_based --output-format=json \
		>"$work/$1.rr.json" 2>/dev/null
	fio --name=w --filename="$work/person-write.dat" --rw=write --bs=1M --size=256M \
		--fsync=1 --runtime="$secs" --time_based --output-format=json \
		>"$work/$1.w.json" 2>/dev/null
	rm -f "$work/person-write.dat"
	jq -r '.jobs[0].read.clat_ns.percentile["50.000000"] / 1000' "$work/$1.rr.json" >"$work/$1.p50"
	jq -r '.jobs[0].read.clat_ns.percentile["99.000000"] / 1000' "$work/$1.rr.json" >"$work/$1.p99"
	jq -r '.jobs[0].write.bw / 1024' "$work/$1.w.json" >"$work/$1.wmib"
}

# done_bytes: how far the conversion is.
done_bytes() { "$FDEWIZ" status --json "$work/pace.img:1" | jq -r '.conversions[0].done // 0'; }
state() { "$FDEWIZ" status --json "$work/pace.img:1" | jq -r '.conversions[0].state // ""'; }

# Once to warm up (the first run of the writes is slower, whatever runs beside it), then idle.
person warmup
person idle
printf '%-8s %12s %12s %14s %16s %16s\n' pace "randread p50" "p99 (us)" "writes MiB/s" \
	"convert quiet" "convert busy"
printf '%-8s %12.0f %12.0f %14.1f %16s %16s\n' idle "$(cat "$work/idle.p50")" \
	"$(cat "$work/idle.p99")" "$(cat "$work/idle.wmib")" - -
for pace in full auto gentle; do
	rm -rf "$FDEWIZ_STATE_DIR" "$work/pace.img" "$work/b.hdr"
	cp --sparse=always "$work/pristine.img" "$work/pace.img"
	sync
	setsid "$FDEWIZ" encrypt --pace "$pace" --key-file "$work/key" --yes --fast-pbkdf \
		--no-bench --work-dir "$work" --header-backup "$work/b.hdr" "$work/pace.img:1" \
		</dev/null >"$work/enc.out" 2>&1 || { cat "$work/enc.out"; exit 1; }
	for _ in $(seq 1 300); do [ "$(state)" = running ] && [ "$(done_bytes)" -gt 0 ] && break; sleep 0.1; done
	d0=$(done_bytes); t0=$(date +%s.%N)
	sleep "$secs"
	d1=$(done_bytes); t1=$(date +%s.%N)
	person "$pace"
	d2=$(done_bytes); t2=$(date +%s.%N)
	still=$(state)
	"$FDEWIZ" pause "$work/pace.img:1" >/dev/null 2>&1 || true
	quiet=$(echo "($d1 - $d0) / ($t1 - $t0) / 1048576" | bc -l)
	busy=$(echo "($d2 - $d1) / ($t2 - $t1) / 1048576" | bc -l)
	printf '%-8s %12.0f %12.0f %14.1f %13.1f MiB/s %13.1f MiB/s%s\n' "$pace" \
		"$(cat "$work/$pace.p50")" "$(cat "$work/$pace.p99")" "$(cat "$work/$pace.wmib")" \
		"$quiet" "$busy" "$([ "$still" = running ] || echo "  (ended: $still)")"
done
echo
echo "ratios to idle (the person's work during the conversion / idle):"
for pace in full auto gentle; do
	printf '%-8s randread p50 %.2fx  p99 %.2fx  (latency: lower is better)  writes %.0f %%\n' \
		"$pace" "$(echo "$(cat "$work/$pace.p50") / $(cat "$work/idle.p50")" | bc -l)" \
		"$(echo "$(cat "$work/$pace.p99") / $(cat "$work/idle.p99")" | bc -l)" \
		"$(echo "100 * $(cat "$work/$pace.wmib") / $(cat "$work/idle.wmib")" | bc -l)"
done
