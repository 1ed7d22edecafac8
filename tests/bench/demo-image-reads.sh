#!/bin/bash
# The baseline benchmark of a partition inside an image file measures the disk, not the host's
# page cache: its read figures beside fio's, on the same image file with O_DIRECT.
#
# Makes the demo image (data/make-demo-disk.sh), runs fio on the "Data" partition's byte range
# of the image file (direct I/O: the disk underneath), then `fdewiz encrypt` of that partition
# with its baseline benchmark (quick scale, I/O only). fdewiz reaches the partition through its
# own loop device; with direct I/O on that loop device its reads can be no faster than the
# disk's, without it they come from the page cache (GB/s). With --fdewiz-old PATH the same is
# run with another build too, side by side. Prints figures and ratios; fails only when a step
# fails. As root: ./tests/bench/demo-image-reads.sh [--fdewiz PATH] [--fdewiz-old PATH]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
FDEWIZ=${FDEWIZ:-$top/src/fdewiz}
OLD=
RUNTIME=3
while [ $# -gt 0 ]; do
	case $1 in
	--fdewiz) FDEWIZ=$2; shift 2 ;;
	--fdewiz-old) OLD=$2; shift 2 ;;
	*) echo "usage: $0 [--fdewiz PATH] [--fdewiz-old PATH]" >&2; exit 2 ;;
	esac
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
for c in fio jq parted; do command -v $c >/dev/null || { echo "needs $c" >&2; exit 1; }; done

work=$(mktemp -d /var/tmp/fdewiz-demo-reads.XXXXXX)
trap 'rm -rf "$work"' EXIT
img=$work/laptop.img
"$top/data/make-demo-disk.sh" "$img" >/dev/null
# The Data partition: 1281 MiB to 4095 MiB of the image (make-demo-disk.sh's layout).
off=$((1281 * 1048576))
size=$(((4095 - 1281) * 1048576))

# fio_disk NAME RW BS QD: the disk's figure (MB/s for sequential, IOPS for random).
fio_disk()
{
	fio --name="$1" --filename="$img" --offset=$off --size=$size --readonly --direct=1 \
		--ioengine=io_uring --rw="$2" --bs="$3" --iodepth="$4" --time_based \
		--runtime=$RUNTIME --norandommap=1 --randrepeat=0 --output-format=json |
		jq -r --arg seq "${2%read}" '.jobs[0].read | if $seq == "" then .bw_bytes / 1e6
			else .iops end'
}

# fdewiz_baseline BINARY TAG: the baseline's saved result, as "id headline" lines.
fdewiz_baseline()
{
	local state=$work/state-$2 copy=$work/$2.img out

	cp --sparse=always "$img" "$copy"
	head -c 32 /dev/urandom | base64 >"$work/key"
	mkdir -p "$state"
	FDEWIZ_STATE_DIR=$state "$1" encrypt --foreground --yes --fast-pbkdf \
		--key-file "$work/key" --bench-scale quick "$copy:3" >"$work/$2.log" 2>&1 ||
		{ cat "$work/$2.log" >&2; return 1; }
	out=$(ls "$state"/bench/before-*.json 2>/dev/null | head -1)
	[ -n "$out" ] || out=$(grep -l '"label": *"before"' "$state"/bench/*.json | head -1)
	jq -r '.tests[] | select(.id | startswith("io.")) |
		"\(.id) \(.title) | \(.metrics | map({(.key): .median}) | add |
		if (.iops != null and .mbps != null) then "\(.mbps) \(.iops)" else "" end)"' "$out"
	jq -r '"note: " + .note' "$out"
	rm -f "$copy"
}

echo "demo image: Data partition, $((size / 1048576)) MiB at offset $((off / 1048576)) MiB of $img"
echo "fio on the image file, O_DIRECT (the disk), ${RUNTIME} s each:"
declare -A disk
disk[seq]=$(fio_disk seq read 1m 8)
disk[rnd32]=$(fio_disk rnd32 randread 4k 32)
disk[rnd1]=$(fio_disk rnd1 randread 4k 1)
printf '  SEQ1M Q8T1 read   %8.0f MB/s\n  RND4K Q32T1 read  %8.0f IOPS\n  RND4K Q1T1 read   %8.0f IOPS\n' \
	"${disk[seq]}" "${disk[rnd32]}" "${disk[rnd1]}"

report()
{
	echo
	echo "fdewiz baseline ($1), read tests, beside the disk's fio figure:"
	while read -r id rest; do
		[ "$id" = note: ] && { echo "  $id $rest"; continue; }
		title=${rest%% | *}
		read -r mbps iops <<<"${rest##* | }"
		case $id in
		io.seqread.*) ref=${disk[seq]} v=$mbps u=MB/s ;;
		io.randread.qd32) ref=${disk[rnd32]} v=$iops u=IOPS ;;
		io.randread.qd1) ref=${disk[rnd1]} v=$iops u=IOPS ;;
		*) continue ;;
		esac
		awk -v t="$title" -v v="$v" -v r="$ref" -v u="$u" 'BEGIN {
			printf "  %-20s %9.0f %-4s  disk %9.0f %-4s  ratio %5.2f  %s\n", t, v, u, r, u,
				v / r, (v > r * 1.25 ? "FASTER THAN THE DISK" : "within the disk") }'
	done
}

fdewiz_baseline "$FDEWIZ" new | report "$FDEWIZ"
[ -z "$OLD" ] || fdewiz_baseline "$OLD" old | report "$OLD"
