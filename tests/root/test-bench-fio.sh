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
	local kind=${1%%.*} qd=${1##*qd} bs=4k out=$IMG_TMP/fio-$1.json dir=read fsync=()

	case $kind in seq*) bs=1m ;; esac
	case $kind in *write) dir=write; fsync=(--end_fsync=1 --fsync_on_close=1) ;; esac
	fio --name="$1" --filename="$work/fio.dat" --size="${SIZE_MIB}M" --direct=1 \
		--ioengine=io_uring --iodepth="$qd" --bs="$bs" --rw="${rw[$kind]}" \
		--time_based --runtime="$RUNTIME" --invalidate=1 --lat_percentiles=1 \
		--randrepeat=0 "${fsync[@]}" --output-format=json --output="$out" >/dev/null
	jq -r --arg d "$dir" '.jobs[0] as $j | $j[$d] as $x |
		($j.usr_cpu + $j.sys_cpu) as $cpu |
		"\($x.bw_bytes) \($x.iops) \($x.lat_ns.percentile["50.000000"] / 1000)" +
		" \($x.lat_ns.percentile["99.000000"] / 1000) \($cpu)"' "$out"
}

# Each test runs under fio and then under fdewiz right after it, so that both see the
# machine in about the same state (these shared machines drift by tens of percent).
echo "fio $(fio --version), $SIZE_MIB MiB file, ${RUNTIME} s per test, on $dev (ext4)"
printf '\n%-16s %12s %12s %6s   %9s %9s   %9s %9s   %5s %5s\n' TEST "fdewiz" "fio" \
	RATIO "p50 ours" "p50 fio" "p99 ours" "p99 fio" "cpu" "fio"
for t in "${tests[@]}"; do
	read -r f_bw f_iops f_p50 f_p99 f_cpu <<<"$(fio_run "$t")"
	rm -f "$work/fio.dat"
	run_cmd "$IMG_TMP/bench-$t" "$FDEWIZ" bench --kind io --json --repeats 1 \
		--io-size "${SIZE_MIB}M" --runtime "$RUNTIME" --io-tests "$t" --label fio-check \
		--save "$IMG_TMP/bench-$t.saved.json" "$work"
	assert_eq "$t: fdewiz bench exit status" 0 "$RUN_RC"
	if [ "$RUN_RC" -ne 0 ]; then
		cat "$IMG_TMP/bench-$t.err" >&2
		continue
	fi
	json=$IMG_TMP/bench-$t.out
	assert_json "$json" .io_engine io_uring
	assert_json "$json" '[.tests[].id]' "[\"io.$t\"]"
	assert_eq "$t: nothing left in the test directory" "" "$(ls -A "$work")"
	read -r o_mbps o_iops o_p50 o_p99 o_cpu < <(jq -r --arg id "io.$t" '
		.tests[] | select(.id == $id) | .metrics | map({(.key): .median}) | add |
		"\(.mbps) \(.iops) \(.lat_p50_us) \(.lat_p99_us) \(.cpu_pct)"' "$json")
	case $t in
	seq*) ours=$o_mbps; theirs=$(awk -v b="$f_bw" 'BEGIN { print b / 1e6 }'); unit=MB/s ;;
	*) ours=$o_iops; theirs=$f_iops; unit=IOPS ;;
	esac
	ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	printf '%-16s %7.0f %-4s %7.0f %-4s %6s   %9.0f %9.0f   %9.0f %9.0f   %4.0f%% %4.0f%%\n' \
		"$t" "$ours" "$unit" "$theirs" "$unit" "$ratio" "$o_p50" "$f_p50" "$o_p99" \
		"$f_p99" "$o_cpu" "$f_cpu"
	ok=$(awk -v r="$ratio" -v lo=$LOW -v hi=$HIGH 'BEGIN { print (r >= lo && r <= hi) }')
	assert_eq "$t: fdewiz/fio = $ratio within $LOW..$HIGH" 1 "$ok"
	ok=$(awk -v a="$o_p50" 'BEGIN { print (a > 0) }')
	assert_eq "$t: a p50 latency was measured" 1 "$ok"
done
echo
assert_finish
