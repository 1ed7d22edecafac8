#!/bin/bash
# The baseline benchmark of a partition inside an image file measures the disk, not the host's
# page cache: its read figures beside fio's, on the same image file with O_DIRECT.
#
# Makes the demo image (data/make-demo-disk.sh), runs fio with direct I/O on a 256 MiB file
# that fio writes beside the image (the disk underneath: the image itself is sparse, and
# O_DIRECT reads of its holes return zeros without touching the disk), then `fdewiz encrypt`
# of the image's "Data" partition
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

# fio_disk NAME RW BS QD: the disk's figure (MB/s for sequential, IOPS for random), on a file
# of fio's own, written before it is read, the size of fdewiz's quick test file.
fio_disk()
{
	fio --name="$1" --filename="$work/fio.dat" --size=256M --direct=1 --invalidate=1 \
		--ioengine=io_uring --rw="$2" --bs="$3" --iodepth="$4" --time_based \
		--runtime=$RUNTIME --norandommap=1 --randrepeat=0 --output-format=json |
		jq -r --arg seq "${2%read}" '.jobs[0].read | if $seq == "" then .bw_bytes / 1e6
			else .iops end'
}

# fdewiz_baseline BINARY TAG: the baseline's saved result, as "id title | mbps iops" lines.
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
		"\(.mbps) \(.iops)")"' "$out"
	jq -r '"note: " + .note' "$out"
	rm -f "$copy"
}

echo "demo image: Data partition, $((size / 1048576)) MiB at offset $((off / 1048576)) MiB of $img"
# The disk's figures, before and after the fdewiz runs: the range is the machine's noise.
declare -A dmin dmax
measure_disk()
{
	local k v

	for k in seqread.qd1:read:1m:1 seqread.qd8:read:1m:8 seqread.qd32:read:1m:32 \
		randread.qd32:randread:4k:32 randread.qd1:randread:4k:1; do
		IFS=: read -r id rw bs qd <<<"$k"
		v=$(fio_disk "$id" "$rw" "$bs" "$qd")
		v=${v%.*}
		[ -n "${dmin[$id]:-}" ] && [ "${dmin[$id]}" -le "$v" ] || dmin[$id]=$v
		[ -n "${dmax[$id]:-}" ] && [ "${dmax[$id]}" -ge "$v" ] || dmax[$id]=$v
	done
	rm -f "$work/fio.dat"
}

report()
{
	echo
	echo "fdewiz baseline ($1), read tests, beside the disk's fio figures (min-max of two):"
	while read -r id rest; do
		[ "$id" = note: ] && { echo "  $id ${rest:-(none)}"; continue; }
		id=${id#io.}
		[ -n "${dmax[$id]:-}" ] || continue
		title=${rest%% | *}
		read -r mbps iops <<<"${rest##* | }"
		case $id in seq*) v=$mbps u=MB/s ;; *) v=$iops u=IOPS ;; esac
		awk -v t="$title" -v v="$v" -v lo="${dmin[$id]}" -v hi="${dmax[$id]}" -v u="$u" '
			BEGIN { verdict = "not above the disk (max + 25 %)"
				if (v > hi * 1.25) verdict = "FASTER THAN THE DISK"
				printf "  %-20s %9.0f %-4s  disk %7d-%-7d %-4s  /max %5.2f  %s\n",
					t, v, u, lo, hi, u, v / hi, verdict }'
	done
}

echo "fio on a 256 MiB file beside the image, O_DIRECT (the disk), ${RUNTIME} s each," \
	"before and after the fdewiz runs"
measure_disk
fdewiz_baseline "$FDEWIZ" new >"$work/new.txt"
[ -z "$OLD" ] || fdewiz_baseline "$OLD" old >"$work/old.txt"
measure_disk
for id in "${!dmax[@]}"; do
	printf '  %-16s %7d-%-7d\n' "$id" "${dmin[$id]}" "${dmax[$id]}"
done | sort
report "$FDEWIZ" <"$work/new.txt"
[ -z "$OLD" ] || report "$OLD" <"$work/old.txt"
