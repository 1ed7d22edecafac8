#!/bin/bash
# fdewiz bench --kind io agrees with fio run with the same parameters on the same filesystem.
#
# Both tools run each I/O test (the eight of earlier versions: sequential 1 MiB and random
# 4 KiB, read and write, queue depth 1 and 32; and the new presets SEQ1M Q8T1 read and write
# and the RND4K Q32T1 70/30 mix) with io_uring, O_DIRECT, random data, the same file size
# and the same time-based runtime, writes ending in fsync, on one ext4 image loop-mounted
# with direct I/O. The machines are shared and loaded, so the band is the machine's own
# noise, measured in the same run: each test runs fio, fdewiz, fio, fdewiz, fio (interleaved,
# so both tools see the same drift), and the median of fdewiz's runs must fall within the
# min-max of fio's runs widened by MARGIN percent on each side (lo = min / (1 + m),
# hi = max * (1 + m)). Why a margin at all: the range of three runs of one tool leaves a
# fourth run of that same tool outside it half of the time (2 in 4, for any distribution).
# Why 50 %: fio against itself here (84 runs, each against the range of the other two of
# its line) fell outside by a median of 17 % when it did, and within 25 % in only 34 of 56
# such cases (see tests/bench/README.md); beside an emulated machine on the other core (the
# suite runs the VM tier alongside) the spread is wider still: with 25 % the suite failed
# on fdewiz's RND4K Q32T1 read at 0.63 times the slowest of three fio runs that themselves
# spread 2.4 times. A line outside is measured again, up to three rounds in all (five runs
# each), and fails only when every round is outside: a systematic difference is. It still
# catches what matters: a difference like the queue refill this test found (1.6 times fio)
# wherever fio's own runs agree, a wrong block size or queue depth, reads from the page
# cache (5-50 times faster), a lost fsync.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq fio losetup mount mkfs.ext4 awk

img_test_init

SIZE_MIB=${BENCH_FIO_SIZE_MIB:-256}
RUNTIME=${BENCH_FIO_RUNTIME:-2}	# seconds per run: 55 runs, so each second costs about a minute
ROUNDS=${BENCH_FIO_ROUNDS:-2}	# fdewiz runs per test; fio runs one more, around them
MARGIN=${BENCH_FIO_MARGIN_PCT:-50}
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
	randread.qd1 randread.qd32 randwrite.qd1 randwrite.qd32
	seqread.qd8 seqwrite.qd8 randrw70.qd32)
[ -z "${BENCH_FIO_TESTS:-}" ] || read -r -a tests <<<"$BENCH_FIO_TESTS"
declare -A rw=([seqread]=read [seqwrite]=write [randread]=randread [randwrite]=randwrite
	[randrw70]=randrw)

# fio_run TEST: one fio job; prints "bw_bytes iops p50_us p99_us cpu_pct".
fio_run()
{
	local kind=${1%%.*} qd=${1##*qd} bs=4k out=$IMG_TMP/fio-$1.json extra=()

	# fdewiz draws random offsets uniformly, with repeats: fio's norandommap. fdewiz writes
	# its file before writing tests too: fio's overwrite (else fio only fallocates, and
	# every write then converts an unwritten extent).
	case $kind in seq*) bs=1m ;; *) extra+=(--norandommap=1) ;; esac
	case $kind in *write | randrw*) extra+=(--end_fsync=1 --fsync_on_close=1 --overwrite=1) ;;
	esac
	case $kind in randrw70) extra+=(--rwmixread=70) ;; esac
	fio --name="$1" --filename="$work/fio.dat" --size="${SIZE_MIB}M" --direct=1 \
		--ioengine=io_uring --iodepth="$qd" --bs="$bs" --rw="${rw[$kind]}" \
		--time_based --runtime="$RUNTIME" --invalidate=1 --lat_percentiles=1 \
		--randrepeat=0 "${extra[@]}" --output-format=json --output="$out" >/dev/null
	# Both directions add up (the mix); latency is the reads' where there are reads.
	jq -r '.jobs[0] as $j | (if $j.read.total_ios > 0 then $j.read else $j.write end) as $x |
		"\($j.read.bw_bytes + $j.write.bw_bytes) \($j.read.iops + $j.write.iops)" +
		" \($x.lat_ns.percentile["50.000000"] / 1000)" +
		" \($x.lat_ns.percentile["99.000000"] / 1000) \($j.usr_cpu + $j.sys_cpu)"' "$out"
}

fdewiz_run()
{
	run_cmd "$IMG_TMP/bench-$1" "$FDEWIZ" bench --kind io --json --repeats 1 \
		--io-size "${SIZE_MIB}M" --runtime "$RUNTIME" --io-tests "$1" --label fio-check \
		--save "$IMG_TMP/bench-$1.saved.json" "$work"
}

# fdewiz_figures TEST: "headline p50 p99 cpu" of the last fdewiz run (headline: MB/s for
# sequential, IOPS for random). Checks its exit status and leftovers.
fdewiz_figures()
{
	local t=$1 json=$IMG_TMP/bench-$1.out

	assert_eq "$t: fdewiz bench exit status" 0 "$RUN_RC"
	if [ "$RUN_RC" -ne 0 ]; then
		cat "$IMG_TMP/bench-$t.err" >&2
		echo "0 0 0 0"
		return 0
	fi
	assert_json "$json" .io_engine io_uring
	assert_json "$json" '[.tests[].id]' "[\"io.$t\"]"
	assert_eq "$t: nothing left in the test directory" "" "$(ls -A "$work")"
	jq -r --arg id "io.$t" '
		.tests[] | select(.id == $id) | .metrics | map({(.key): .median}) | add |
		"\(if ($id | startswith("io.seq")) then .mbps else .iops end)" +
		" \(.lat_p50_us) \(.lat_p99_us) \(.cpu_pct)"' "$json"
}

# median of the numbers on stdin
median()
{
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

echo "fio $(fio --version), $SIZE_MIB MiB file, ${RUNTIME} s per test, on $dev (ext4," \
	"loop dio=$(cat /sys/block/"${dev#/dev/}"/loop/dio))"
echo "each test: fio and fdewiz interleaved ($((ROUNDS + 1)) fio runs, $ROUNDS fdewiz runs);" \
	"pass: fdewiz median within fio min-max widened by $MARGIN %"
printf '\n%-15s %-5s %9s %9s %9s  %9s %9s %6s   %8s %8s  %4s %4s  %s\n' TEST UNIT "fio min" \
	"fio max" "fdewiz" "lo" "hi" RATIO "p50 ours" "p50 fio" cpu fio verdict
# measure TEST [TRY]: one interleaved round of TEST; prints its row, sets $ok, $ours, $fmin,
# $fmax, $lo, $hi, $unit and $p50 (ours). Not in $(...): its checks must count in this shell.
measure()
{
	local t=$1 k f_bw f_iops p99 cpu h fmed ratio
	local fio_h=() ours_h=() f_p50=() o_p50=() f_cpu=() o_cpu=()

	for ((k = 0; k <= ROUNDS; k++)); do
		read -r f_bw f_iops p50 p99 cpu <<<"$(fio_run "$t")"
		rm -f "$work/fio.dat"
		case $t in
		seq*) fio_h+=("$(awk -v b="$f_bw" 'BEGIN { print b / 1e6 }')") ;;
		*) fio_h+=("$f_iops") ;;
		esac
		f_p50+=("$p50")
		f_cpu+=("$cpu")
		[ "$k" -lt "$ROUNDS" ] || break
		fdewiz_run "$t"
		read -r h p50 p99 cpu <<<"$(fdewiz_figures "$t")"
		ours_h+=("$h")
		o_p50+=("$p50")
		o_cpu+=("$cpu")
	done
	unit=IOPS
	case $t in seq*) unit=MB/s ;; esac
	read -r fmin fmax <<<"$(printf '%s\n' "${fio_h[@]}" | sort -g | sed -n '1p;$p' | xargs)"
	ours=$(printf '%s\n' "${ours_h[@]}" | median)
	fmed=$(printf '%s\n' "${fio_h[@]}" | median)
	p50=$(printf '%s\n' "${o_p50[@]}" | median)
	read -r lo hi ratio ok <<<"$(awk -v a="$fmin" -v b="$fmax" -v o="$ours" -v m="$MARGIN" \
		-v f="$fmed" 'BEGIN { lo = a / (1 + m / 100); hi = b * (1 + m / 100);
		printf "%.0f %.0f %.2f %d", lo, hi, (f > 0 ? o / f : 0), (o >= lo && o <= hi) }')"
	printf '%-15s %-5s %9.0f %9.0f %9.0f  %9.0f %9.0f %6s   %8.0f %8.0f  %3.0f%% %3.0f%%  %s%s\n' \
		"$t" "$unit" "$fmin" "$fmax" "$ours" "$lo" "$hi" "$ratio" "$p50" \
		"$(printf '%s\n' "${f_p50[@]}" | median)" \
		"$(printf '%s\n' "${o_cpu[@]}" | median)" "$(printf '%s\n' "${f_cpu[@]}" | median)" \
		"$([ "$ok" = 1 ] && echo ok || echo OUTSIDE)" "${2:+ (again)}"
	echo "  runs: fio $(printf '%.0f ' "${fio_h[@]}"); fdewiz $(printf '%.0f ' "${ours_h[@]}")"
}

# A line outside is measured again, all five runs each time, up to three rounds: a
# difference in what the two tools do is outside every time, a stall of the shared disk or
# a busy core is not.
for t in "${tests[@]}"; do
	measure "$t"
	[ "$ok" = 1 ] || measure "$t" again
	[ "$ok" = 1 ] || measure "$t" again
	assert_eq "$t: fdewiz $ours $unit within fio's $fmin..$fmax widened by $MARGIN % ($lo..$hi)" 1 "$ok"
	ok=$(awk -v a="$p50" 'BEGIN { print (a > 0) }')
	assert_eq "$t: a p50 latency was measured" 1 "$ok"
done
echo
assert_finish
