#!/bin/bash
# fdewiz bench --kind io agrees with fio run with the same parameters on the same filesystem.
#
# Both tools run each of the eight I/O tests (sequential 1 MiB and random 4 KiB, read and
# write, queue depth 1 and 32) with io_uring, O_DIRECT, random data, the same file size and
# the same time-based runtime, writes ending in fsync, on one ext4 image loop-mounted with
# direct I/O. Tolerance: fdewiz/fio between 0.5 and 2.0 for the headline (MB/s for
# sequential, IOPS for random). The test machines are shared and noisy (several jobs on two
# cores), one run of a few seconds moves by tens of percent between runs of the same tool,
# so a tighter band would fail on noise; a factor of two still catches wrong block sizes,
# queue depths, missing O_DIRECT (page-cache reads run 5-50 times faster) or a lost fsync.
# A pair outside the band is measured twice more and the median ratio counts (see below).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
FDEWIZ=${FDEWIZ:-$top/src/fdewiz}
FDEWIZ_SRCDIR=${FDEWIZ_SRCDIR:-$top}
lib=$FDEWIZ_SRCDIR/tests/lib
. "$lib/assert.sh"
. "$lib/images.sh"

require_root
require_cmds jq fio losetup mount mkfs.ext4 awk
[ -x "$FDEWIZ" ] || { echo "FAIL: no fdewiz binary at $FDEWIZ"; exit 1; }

img_init
trap img_cleanup EXIT
trap 'exit 130' INT TERM HUP

SIZE_MIB=${BENCH_FIO_SIZE_MIB:-256}
RUNTIME=${BENCH_FIO_RUNTIME:-3}
LOW=0.5
HIGH=2.0
export FDEWIZ_STATE_DIR=$IMG_TMP/state

# A filesystem with room for one test file at a time (fdewiz uses at most half the space).
img=$IMG_TMP/fs.img
img_new "$img" $((SIZE_MIB * 2 + 200))
run_quiet mkfs.ext4 -q -F -b 4096 "$img"
dev=$(losetup --find --show --direct-io=on "$img")
img_register loop "$dev"
mnt=$IMG_TMP/mnt
img_mount "$dev" "$mnt"
work=$mnt/work
mkdir -p "$work"

# Our tests, and the fio job parameters of each: rw, bs, iodepth.
tests=(seqread.qd1 seqread.qd32 seqwrite.qd1 seqwrite.qd32
	randread.qd1 randread.qd32 randwrite.qd1 randwrite.qd32)
declare -A rw=([seqread]=read [seqwrite]=write [randread]=randread [randwrite]=randwrite)

# fio_run TEST: one fio job; prints "bw_bytes iops p50_us p99_us cpu_pct".
fio_run()
{
	local kind=${1%%.*} qd=${1##*qd} bs=4k out=$IMG_TMP/fio-$1.json dir=read extra=()

	# fdewiz draws random offsets uniformly, with repeats: fio's norandommap. fdewiz writes
	# its file before writing tests too: fio's overwrite (else fio only fallocates, and
	# every write then converts an unwritten extent).
	case $kind in seq*) bs=1m ;; *) extra+=(--norandommap=1) ;; esac
	case $kind in *write) dir="write"; extra+=(--end_fsync=1 --fsync_on_close=1 --overwrite=1) ;;
	esac
	fio --name="$1" --filename="$work/fio.dat" --size="${SIZE_MIB}M" --direct=1 \
		--ioengine=io_uring --iodepth="$qd" --bs="$bs" --rw="${rw[$kind]}" \
		--time_based --runtime="$RUNTIME" --invalidate=1 --lat_percentiles=1 \
		--randrepeat=0 "${extra[@]}" --output-format=json --output="$out" >/dev/null
	jq -r --arg d "$dir" '.jobs[0] as $j | $j[$d] as $x |
		($j.usr_cpu + $j.sys_cpu) as $cpu |
		"\($x.bw_bytes) \($x.iops) \($x.lat_ns.percentile["50.000000"] / 1000)" +
		" \($x.lat_ns.percentile["99.000000"] / 1000) \($cpu)"' "$out"
}

fdewiz_run()
{
	run_cmd "$IMG_TMP/bench-$1" "$FDEWIZ" bench --kind io --json --repeats 1 \
		--io-size "${SIZE_MIB}M" --runtime "$RUNTIME" --io-tests "$1" --label fio-check \
		--save "$IMG_TMP/bench-$1.saved.json" "$work"
}

PAIRS=0
# pair TEST TRY: fio and fdewiz one right after the other, so that both see the machine in
# about the same state (these shared machines drift by tens of percent). Prints one table row;
# sets $ratio and $p50 (ours). Not run in $(...): its checks must count in this shell.
pair()
{
	local t=$1 f_bw f_iops f_p50 f_p99 f_cpu o_mbps o_iops o_p99 o_cpu ours theirs unit json

	# Who goes first alternates, so that neither tool always meets the other's after-effects.
	if [ $((PAIRS++ % 2)) -eq 0 ]; then
		read -r f_bw f_iops f_p50 f_p99 f_cpu <<<"$(fio_run "$t")"
		rm -f "$work/fio.dat"
		fdewiz_run "$t"
	else
		fdewiz_run "$t"
		read -r f_bw f_iops f_p50 f_p99 f_cpu <<<"$(fio_run "$t")"
		rm -f "$work/fio.dat"
	fi
	assert_eq "$t: fdewiz bench exit status" 0 "$RUN_RC"
	ratio=0
	p50=0
	if [ "$RUN_RC" -ne 0 ]; then
		cat "$IMG_TMP/bench-$t.err" >&2
		return 0
	fi
	json=$IMG_TMP/bench-$t.out
	assert_json "$json" .io_engine io_uring
	assert_json "$json" '[.tests[].id]' "[\"io.$t\"]"
	assert_eq "$t: nothing left in the test directory" "" "$(ls -A "$work")"
	read -r o_mbps o_iops p50 o_p99 o_cpu < <(jq -r --arg id "io.$t" '
		.tests[] | select(.id == $id) | .metrics | map({(.key): .median}) | add |
		"\(.mbps) \(.iops) \(.lat_p50_us) \(.lat_p99_us) \(.cpu_pct)"' "$json")
	case $t in
	seq*) ours=$o_mbps; theirs=$(awk -v b="$f_bw" 'BEGIN { print b / 1e6 }'); unit=MB/s ;;
	*) ours=$o_iops; theirs=$f_iops; unit=IOPS ;;
	esac
	ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	printf '%-16s %7.0f %-4s %7.0f %-4s %6s   %9.0f %9.0f   %9.0f %9.0f   %4.0f%% %4.0f%%%s\n' \
		"$t" "$ours" "$unit" "$theirs" "$unit" "$ratio" "$p50" "$f_p50" "$o_p99" \
		"$f_p99" "$o_cpu" "$f_cpu" "${2:+  (again)}"
}

in_band()
{
	awk -v r="$1" -v lo=$LOW -v hi=$HIGH 'BEGIN { exit !(r >= lo && r <= hi) }'
}

echo "fio $(fio --version), $SIZE_MIB MiB file, ${RUNTIME} s per test, on $dev (ext4)"
printf '\n%-16s %12s %12s %6s   %9s %9s   %9s %9s   %5s %5s\n' TEST "fdewiz" "fio" \
	RATIO "p50 ours" "p50 fio" "p99 ours" "p99 fio" "cpu" "fio"
# A pair outside the band is measured twice more (both tools) and the median of the three
# ratios counts: one stall of the shared disk in a 3-second run must not fail the suite,
# while a real difference in what the two tools do shows up every time.
for t in "${tests[@]}"; do
	pair "$t"
	ratios=("$ratio")
	if ! in_band "$ratio"; then
		pair "$t" again
		ratios+=("$ratio")
		pair "$t" again
		ratios+=("$ratio")
		ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | sed -n 2p)
		echo "$t: ratios ${ratios[*]}, median $ratio"
	fi
	ok=0
	in_band "$ratio" && ok=1
	assert_eq "$t: fdewiz/fio = $ratio within $LOW..$HIGH" 1 "$ok"
	ok=$(awk -v a="$p50" 'BEGIN { print (a > 0) }')
	assert_eq "$t: a p50 latency was measured" 1 "$ok"
done
echo
assert_finish
