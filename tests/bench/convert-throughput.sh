#!/bin/bash
# Benchmark, not a test: in-place LUKS2 conversion throughput of fdewiz, the cryptsetup program and a plain copy.
set -euo pipefail

usage() {
	cat <<EOF
Usage: $0 [--runs N] [--size MIB] [--dir DIR] [--fdewiz PATH] [--no-extra] [--verify-all]

Converts the same ext4 partition (inside a GPT disk image, reached through a loop device)
with each method, N times, in alternating order, and prints median MiB/s, the min-max
spread and ratios. Needs root. Asserts nothing about speed; it fails only when a step
fails or a converted partition does not decrypt back to the same files.

  --runs N       runs of every method (default 3)
  --size MIB     partition size (default 1024; at least 256)
  --dir DIR      where the image and the file tree live (default /var/tmp)
  --fdewiz PATH  the program to measure (default: \$FDEWIZ or src/fdewiz of this tree)
  --no-extra     skip the cryptsetup hotzone / sector size table
  --verify-all   decrypt and check every conversion, not only the last run's
EOF
}

RUNS=3
SIZE=1024
DIR=/var/tmp
FDEWIZ=${FDEWIZ:-$(cd "$(dirname "$0")/../.." && pwd)/src/fdewiz}
EXTRA=1
VERIFY_ALL=0
while [ $# -gt 0 ]; do
	case $1 in
	--runs) RUNS=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	--fdewiz) FDEWIZ=$2; shift 2 ;;
	--no-extra) EXTRA=0; shift ;;
	--verify-all) VERIFY_ALL=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

die() { echo "convert-throughput: $*" >&2; exit 1; }

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
if ! [[ $SIZE =~ ^[0-9]+$ ]] || [ "$SIZE" -lt 256 ]; then
	die "--size wants at least 256 (MiB)"
fi
[ "$(id -u)" = 0 ] || die "needs root (loop devices, drop_caches)"
[ -x "$FDEWIZ" ] || die "no fdewiz program at $FDEWIZ (build it, or pass --fdewiz)"
# GNU time reports the peak RSS; the shell keyword cannot.
if [ ! -x /usr/bin/time ]; then
	apt-get install -y time >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y time >/dev/null; }
fi
for tool in cryptsetup sgdisk mkfs.ext4 e2fsck resize2fs debugfs losetup dd sha256sum split; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
FDEWIZ=$(readlink -f "$FDEWIZ")
DIR=$(readlink -f "$DIR")
# Image, file tree and the decrypted copy of the files at once, plus some slack.
need=$((SIZE * 5 / 2 + 64))
avail=$(df --output=avail -BM "$DIR" | tail -1 | tr -dc 0-9)
[ "$avail" -ge "$need" ] || die "$DIR has $avail MiB free; $need MiB are needed"

MIB=1048576
PART_OFF=$MIB
PART_BYTES=$((SIZE * MIB))
MEM_GOAL_MIB=64
# One key for every method: the key derivation is not what is measured.
PBKDF=(--pbkdf pbkdf2 --pbkdf-force-iterations 1000)
# Fixed identifiers and clock, so every rebuild of the image is byte for byte the same.
DISK_GUID=0FDE0001-0000-4000-8000-000000000001
PART_GUID=0FDE0001-0000-4000-8000-000000000002
FS_UUID=0fde0001-0000-4000-8000-000000000003
HASH_SEED=0fde0001-0000-4000-8000-000000000004

work=$(mktemp -d "$DIR/fdewiz-bench.XXXXXX")
IMG=$work/disk.img
KEY=$work/key
# Job records and status files stay in the scratch directory, not in /var/lib.
export FDEWIZ_STATE_DIR=$work/state

cleanup() {
	local l
	# Every loop device over our image: ours, or one fdewiz left behind after a failure.
	if [ -e "$IMG" ]; then
		for l in $(losetup -n -O NAME -j "$IMG" 2>/dev/null); do
			losetup -d "$l" 2>/dev/null || true
		done
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
mibps() { awk -v s="$1" -v m="$SIZE" 'BEGIN { printf "%.1f", m / s }'; }

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# Sets LOOP to a new loop device over the partition, configured as fdewiz configures its own
# (offset and size limit, buffered), so every method goes through the same stack.
attach() {
	LOOP=$(losetup -f --show -o "$PART_OFF" --sizelimit "$PART_BYTES" "$IMG")
}
detach() { losetup -d "$LOOP"; }

# N MiB of random bytes; openssl is several times faster than /dev/urandom here.
random_mib() {
	local left=$1 n

	while [ "$left" -gt 0 ]; do
		# openssl rand takes an int: at most 256 MiB a call.
		n=$((left < 256 ? left : 256))
		if command -v openssl >/dev/null; then
			openssl rand $((n * MIB))
		else
			head -c "${n}M" /dev/urandom
		fi
		left=$((left - n))
	done
}

# About half of the partition in incompressible files of three sizes, with checksums.
make_tree() {
	local quarter=$((SIZE / 4))

	mkdir -p "$work/tree/big" "$work/tree/medium" "$work/tree/small"
	random_mib "$quarter" | split -b 8M -a 4 -d - "$work/tree/big/b"
	random_mib "$((quarter / 2))" | split -b 256K -a 4 -d - "$work/tree/medium/m"
	random_mib "$((quarter / 2))" | split -b 16K -a 5 -d - "$work/tree/small/s"
	(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
}

# The same disk image every time: zeros first (every block really allocated and the free
# space identical), then a GPT with one partition, then ext4 built from the tree.
build_image() {
	dd if=/dev/zero of="$IMG" bs=1M count=$((SIZE + 2)) conv=notrunc,fsync status=none
	sgdisk -o -n 1:2048:$((2048 + SIZE * 2048 - 1)) -c 1:Data -U "$DISK_GUID" \
		-u 1:"$PART_GUID" "$IMG" >/dev/null
	E2FSPROGS_FAKE_TIME=1700000000 mkfs.ext4 -q -F -b 4096 -L Data -U "$FS_UUID" \
		-E offset=$PART_OFF,nodiscard,hash_seed=$HASH_SEED -d "$work/tree" \
		"$IMG" "$((SIZE * 1024))k"
}

# e2fsck exit 1 means it fixed something harmless: resize2fs still may shrink.
fsck_and_shrink() {
	local rc=0

	e2fsck -f -p "$1" >/dev/null || rc=$?
	[ "$rc" -le 1 ] || die "e2fsck -f -p $1 failed with $rc"
	resize2fs "$1" "$(((SIZE - $2) * 1024))K" >/dev/null 2>&1 || die "resize2fs $1 failed"
}

# A finished conversion: a LUKS2 header with no reencryption requirement left and one
# encrypted segment.
check_luks_done() {
	local dump

	dump=$(cryptsetup luksDump "$1") || die "$2: no LUKS2 header after the conversion"
	! grep -q 'online-reencrypt' <<<"$dump" || die "$2: the reencryption is not finished"
	! grep -q 'linear' <<<"$dump" || die "$2: a plaintext segment is left"
}

# Independent proof that a conversion kept the data: cryptsetup exports the header to a new
# file and moves the data back, then e2fsck and the sha256 of every file.
verify_decrypt() {
	local hdr=$work/exported.header dump=$work/dump n want

	rm -f "$hdr"
	rm -rf "$dump"
	mkdir "$dump"
	cryptsetup reencrypt --decrypt --header "$hdr" --key-file "$KEY" --batch-mode "$1" \
		>/dev/null || die "$2: cryptsetup could not decrypt it"
	e2fsck -fn "$1" >"$work/fsck.log" 2>&1 || { cat "$work/fsck.log" >&2; die "$2: e2fsck -fn found errors"; }
	# debugfs reads the files without a mount (no kernel filesystem involved).
	debugfs -R "rdump / $dump" "$1" >/dev/null 2>&1
	rm -rf "$dump/lost+found"
	(cd "$dump" && sha256sum -c --quiet "$work/sums") || die "$2: files differ after decryption"
	n=$(find "$dump" -type f | wc -l)
	want=$(wc -l <"$work/sums")
	[ "$n" = "$want" ] || die "$2: $n files after decryption, $want before"
	rm -rf "$dump" "$hdr"
	echo "    verified: decrypted by cryptsetup, e2fsck -fn clean, $n files identical (sha256)"
}

record() { echo "$1 $2 $3" >>"$work/results"; }	# key run MiB/s
record_rss() { echo "$1 $2 $3 $4" >>"$work/rss"; }	# key run KiB CPU-seconds
rss_of() { awk '/Maximum resident set size/ { print $NF }' "$1"; }
# User + system seconds: unlike wall time, barely moved by other load on the machine.
cpu_of() { awk '/User time|System time/ { s += $NF } END { printf "%.2f", s }' "$1"; }
should_verify() { [ "$VERIFY_ALL" = 1 ] || [ "$1" = "$RUNS" ]; }

# 1. The physical ceiling: read and write every block of the partition in place.
step_copy() {
	local r=$1 t0 t1 s

	build_image
	attach
	drop_caches
	t0=$(now)
	dd if="$LOOP" of="$LOOP" bs=1M iflag=direct oflag=direct conv=notrunc,fsync status=none
	t1=$(now)
	detach
	s=$(elapsed "$t0" "$t1")
	record copy "$r" "$(mibps "$s")"
	printf '  %-46s %7.2f s  %7.1f MiB/s\n' "in-place copy (dd, O_DIRECT)" "$s" "$(mibps "$s")"
}

# 2. The classic recipe with the cryptsetup program. --sector-size 4096 because fdewiz uses
# 4096 on a 4 KiB-block filesystem and cryptsetup would pick 512 on a loop device: the
# same work for both (the 512 case is in the extra table).
step_cryptsetup() {
	local r=$1 t0 t1 t2 conv total

	build_image
	attach
	drop_caches
	t0=$(now)
	fsck_and_shrink "$LOOP" 32
	t1=$(now)
	# Its temporary header file goes into the current directory: the scratch one.
	(cd "$work" && /usr/bin/time -v -o "$work/time.cs" cryptsetup reencrypt --encrypt \
		--type luks2 --reduce-device-size 32M --sector-size 4096 --key-file "$KEY" \
		"${PBKDF[@]}" --batch-mode "$LOOP" >/dev/null)
	t2=$(now)
	conv=$(elapsed "$t1" "$t2")
	total=$(elapsed "$t0" "$t2")
	record cs.conv "$r" "$(mibps "$conv")"
	record cs.total "$r" "$(mibps "$total")"
	record_rss cs "$r" "$(rss_of "$work/time.cs")" "$(cpu_of "$work/time.cs")"
	echo "$r $(elapsed "$t0" "$t1") $conv" >>"$work/cs-phases"
	printf '  %-46s %7.2f s  %7.1f MiB/s   (with e2fsck + resize2fs: %.2f s)\n' \
		"cryptsetup reencrypt --encrypt" "$conv" "$(mibps "$conv")" "$total"
	check_luks_done "$LOOP" "cryptsetup run $r"
	if should_verify "$r"; then
		verify_decrypt "$LOOP" "cryptsetup run $r"
	fi
	detach
}

# 3. fdewiz. Its output lines are stamped as they come (stdbuf: stdout is a pipe here), which
# splits the whole command into its phases; the conversion alone is also the "elapsed" its
# worker writes into the job's status file when it finishes.
stamp() {
	local line

	while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done
}
at() { awk -v re="$1" '$0 ~ re { print $1; exit }' "$work/fdewiz.out"; }
step_fdewiz() {
	local r=$1 t0 t1 total conv hconv status t_shrink t_header t_conv

	build_image
	rm -rf "$FDEWIZ_STATE_DIR" "$work/backup.header"
	drop_caches
	t0=$(now)
	/usr/bin/time -v -o "$work/time.fdw" stdbuf -oL "$FDEWIZ" encrypt --foreground --yes \
		--fast-pbkdf --no-bench --key-file "$KEY" --work-dir "$work" --header-backup "$work/backup.header" \
		"$IMG:1" 2>"$work/fdewiz.err" | stamp >"$work/fdewiz.out" ||
		{ cat "$work/fdewiz.out" "$work/fdewiz.err" >&2; die "fdewiz run $r failed"; }
	t1=$(now)
	grep -q 'is now encrypted' "$work/fdewiz.out" || die "fdewiz run $r: no success line"
	status=$(cat "$FDEWIZ_STATE_DIR"/jobs/*.status)
	grep -q '"state":"complete"' <<<"$status" || die "fdewiz run $r: job not complete: $status"
	conv=$(sed -n 's/.*"elapsed":\([0-9.e+-]*\).*/\1/p' <<<"$status")
	t_shrink=$(at '^[0-9.]+ Shrinking')
	t_header=$(at '^[0-9.]+ Writing the LUKS2 header')
	t_conv=$(at '^[0-9.]+ Offline conversion')
	if [ -z "$t_shrink" ] || [ -z "$t_header" ] || [ -z "$t_conv" ]; then
		die "fdewiz run $r: its output has changed; cannot split it into phases"
	fi
	total=$(elapsed "$t0" "$t1")
	hconv=$(elapsed "$t_header" "$t1")
	record fdw.hconv "$r" "$(mibps "$hconv")"
	record fdw.conv "$r" "$(mibps "$conv")"
	record fdw.total "$r" "$(mibps "$total")"
	record_rss fdw "$r" "$(rss_of "$work/time.fdw")" "$(cpu_of "$work/time.fdw")"
	# Phases in seconds: start to plan, e2fsck + resize2fs, header, conversion.
	echo "$r $(elapsed "$t0" "$t_shrink") $(elapsed "$t_shrink" "$t_header")" \
		"$(elapsed "$t_header" "$t_conv") $(elapsed "$t_conv" "$t1")" >>"$work/phases"
	printf '  %-46s %7.2f s  %7.1f MiB/s   (conversion %.2f s, whole command %.2f s)\n' \
		"fdewiz encrypt (header + conversion)" "$hconv" "$(mibps "$hconv")" "$conv" "$total"
	attach
	check_luks_done "$LOOP" "fdewiz run $r"
	if should_verify "$r"; then
		verify_decrypt "$LOOP" "fdewiz run $r"
	fi
	detach
}

# 4. What the hotzone does, with the cryptsetup program: --debug only to read the chunk size
# libcryptsetup chose (a few lines per chunk, nothing next to 16 MiB of I/O).
# Variants: key, MiB the filesystem shrinks by, extra cryptsetup options.
declare -A X_SHRINK=([x.default]=32 [x.hz64]=32 [x.shift64]=64 [x.sector512]=32)
declare -A X_ARGS=(
	[x.default]="--reduce-device-size 32M --sector-size 4096"
	[x.hz64]="--reduce-device-size 32M --sector-size 4096 --hotzone-size 64M"
	[x.shift64]="--reduce-device-size 64M --sector-size 4096"
	[x.sector512]="--reduce-device-size 32M"
)
declare -A X_LABEL=(
	[x.default]="default (--reduce-device-size 32M)"
	[x.hz64]="--hotzone-size 64M"
	[x.shift64]="--reduce-device-size 64M"
	[x.sector512]="no --sector-size (classic recipe)"
)
step_extra() {
	local key=$1 r=$2 t0 t1 s chunk sector
	local -a args

	read -r -a args <<<"${X_ARGS[$key]}"
	build_image
	attach
	fsck_and_shrink "$LOOP" "${X_SHRINK[$key]}"
	drop_caches
	t0=$(now)
	(cd "$work" && cryptsetup reencrypt --encrypt --type luks2 "${args[@]}" \
		--key-file "$KEY" "${PBKDF[@]}" --batch-mode --debug "$LOOP" >"$work/debug.log" 2>&1) ||
		{ tail -20 "$work/debug.log" >&2; die "cryptsetup ${X_ARGS[$key]} failed"; }
	t1=$(now)
	s=$(elapsed "$t0" "$t1")
	# The debug line says "sectors" but the number is bytes.
	chunk=$(sed -n 's/.*Next reencryption chunk size will be \([0-9]*\).*/\1/p' "$work/debug.log" |
		sort -n | tail -1)
	sector=$(cryptsetup luksDump "$LOOP" | awk '$1 == "sector:" { print $2; exit }')
	echo "$key $((chunk / MIB)) $sector" >"$work/shape.$key"
	record "$key" "$r" "$(mibps "$s")"
	printf '  %-46s %7.2f s  %7.1f MiB/s   (chunk %d MiB, sector %s)\n' \
		"cryptsetup ${X_LABEL[$key]}" "$s" "$(mibps "$s")" "$((chunk / MIB))" "$sector"
	check_luks_done "$LOOP" "cryptsetup ${X_ARGS[$key]} run $r"
	detach
}

run_step() {
	case $1 in
	copy) step_copy "$2" ;;
	cs) step_cryptsetup "$2" ;;
	fdw) step_fdewiz "$2" ;;
	x.*) step_extra "$1" "$2" ;;
	esac
}

# "median min max" of the numbers on stdin, sorted.
median() {
	awk '{ v[NR] = $1 } END { if (!NR) exit 1
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
}
# "median min max" of the MiB/s recorded for a key.
stats() {
	awk -v k="$1" '$1 == k { print $3 }' "$work/results" | sort -g | median |
		awk '{ printf "%.1f %.1f %.1f\n", $1, $2, $3 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# One table row: label, key, reference key for the "vs" column (or -).
row() {
	local label=$1 key=$2 ref=$3 med lo hi cmp=-

	read -r med lo hi < <(stats "$key")
	if [ "$ref" != - ]; then
		cmp=$(ratio "$med" "$(stats "$ref" | cut -d' ' -f1)")
	fi
	printf '%-50s %7s %13s %7s %9s %6s\n' "$label" "$med" "$lo-$hi" \
		"$(awk -v m="$med" -v s="$SIZE" 'BEGIN { printf "%.2f", s / m }')" \
		"$(ratio "$med" "$(stats copy | cut -d' ' -f1)")" "$cmp"
}

# Peak RSS in MiB, "max median" over the runs, then the median CPU seconds.
rss_stats() {
	awk -v k="$1" '$1 == k { print $3 / 1024 }' "$work/rss" | sort -g | median |
		awk '{ printf "%s %s ", $3, $1 }'
	awk -v k="$1" '$1 == k { print $4 }' "$work/rss" | sort -g | median | cut -d' ' -f1
}

# --- the machine and the programs ----------------------------------------------------------
fdw_rev=$(git -C "$(dirname "$FDEWIZ")" describe --always --dirty 2>/dev/null || echo "?")
echo "fdewiz conversion throughput benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine:  $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores," \
	"$(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
	"AES-NI $(grep -qw aes /proc/cpuinfo && echo yes || echo no)"
echo "kernel:   $(uname -sr)"
echo "storage:  $DIR on $(findmnt -n -o SOURCE,FSTYPE -T "$DIR" | tr -s ' ')"
echo "programs: $("$FDEWIZ" --version) ($FDEWIZ, git $fdw_rev), $(cryptsetup --version | cut -d' ' -f1-2)," \
	"e2fsprogs $(mkfs.ext4 -V 2>&1 | awk 'NR == 1 { print $2 }')"
echo "setup:    GPT image, one ${SIZE} MiB ext4 partition (4 KiB blocks) about half full of random"
echo "          files, reached through a loop device (offset, buffered); aes-xts-plain64 512-bit,"
echo "          4096-byte sectors, pbkdf2 1000 iterations; $RUNS run(s) per method; caches dropped"
echo "          before every timed step; MiB/s = partition size / wall time"
echo

printf 'fdewiz-bench-key' >"$KEY"
t_start=$(now)
make_tree
echo "file tree: $(wc -l <"$work/sums") files, $(du -sm "$work/tree" | cut -f1) MiB"

methods=(copy cs fdw)
if [ "$EXTRA" = 1 ]; then
	methods+=(x.default x.hz64 x.shift64 x.sector512)
fi
for ((r = 1; r <= RUNS; r++)); do
	# Forward on odd runs, backward on even ones: slow drift of the machine hits every method.
	order=("${methods[@]}")
	if ((r % 2 == 0)); then
		order=()
		for ((i = ${#methods[@]} - 1; i >= 0; i--)); do order+=("${methods[i]}"); done
	fi
	echo "run $r/$RUNS: ${order[*]}"
	for m in "${order[@]}"; do
		run_step "$m" "$r"
	done
done
t_end=$(now)

# --- results ------------------------------------------------------------------------------
echo
echo "Results: ${SIZE} MiB partition, $RUNS run(s), median and min-max (MiB/s)"
printf '%-50s %7s %13s %7s %9s %6s\n' "method" "MiB/s" "min-max" "s" "/ceiling" "/cs"
row "in-place copy ceiling (dd, O_DIRECT)" copy -
row "cryptsetup: reencrypt (header + conversion)" cs.conv -
row "cryptsetup: e2fsck + resize2fs + reencrypt" cs.total -
row "fdewiz: header + conversion" fdw.hconv cs.conv
row "fdewiz: conversion only (job status elapsed)" fdw.conv -
row "fdewiz: whole command" fdw.total cs.total
echo "(s: seconds at the median; /ceiling: median over the copy's; /cs: fdewiz over the"
echo " cryptsetup row of the same scope, above 1 means fdewiz is faster)"
echo
# Medians of each phase of the fdewiz command, from its stamped output lines.
printf 'fdewiz phases, median s:'
i=2
for phase in "scan+plan" "e2fsck+resize2fs" "header" "conversion"; do
	printf '  %s %s' "$phase" "$(cut -d' ' -f$i "$work/phases" | sort -g | median | cut -d' ' -f1)"
	i=$((i + 1))
done
echo
printf 'cryptsetup phases, median s:  e2fsck+resize2fs %s  reencrypt %s\n' \
	"$(cut -d' ' -f2 "$work/cs-phases" | sort -g | median | cut -d' ' -f1)" \
	"$(cut -d' ' -f3 "$work/cs-phases" | sort -g | median | cut -d' ' -f1)"
echo
read -r fdw_max fdw_med fdw_cpu < <(rss_stats fdw)
read -r cs_max cs_med cs_cpu < <(rss_stats cs)
verdict=$(awk -v m="$fdw_max" -v g="$MEM_GOAL_MIB" 'BEGIN { print (m <= g) ? "within the goal" : "OVER the goal" }')
echo "Peak memory (max RSS from /usr/bin/time -v, worst of $RUNS run(s), median in brackets)"
echo "and CPU time (user + system, median):"
printf '  fdewiz encrypt          %6.1f MiB (%.1f)  CPU %5.2f s   goal <= %d MiB: %s\n' \
	"$fdw_max" "$fdw_med" "$fdw_cpu" "$MEM_GOAL_MIB" "$verdict"
printf '  cryptsetup reencrypt    %6.1f MiB (%.1f)  CPU %5.2f s\n' "$cs_max" "$cs_med" "$cs_cpu"
echo "  (fdewiz's figures include its e2fsck and resize2fs children, which GNU time folds in)"

if [ "$EXTRA" = 1 ]; then
	echo
	echo "Hotzone and sector size, cryptsetup program, reencrypt only (MiB/s):"
	printf '%-50s %5s %6s %7s %13s %9s\n' "variant" "chunk" "sector" "MiB/s" "min-max" "/default"
	for key in x.default x.hz64 x.shift64 x.sector512; do
		read -r _ chunk sector <"$work/shape.$key"
		read -r med lo hi < <(stats "$key")
		printf '%-50s %3sM %6s %7s %13s %9s\n' "${X_LABEL[$key]}" "$chunk" "$sector" "$med" \
			"$lo-$hi" "$(ratio "$med" "$(stats x.default | cut -d' ' -f1)")"
	done
	echo "(chunk: the hotzone libcryptsetup used, from --debug; with datashift it is the data"
	echo " shift, half of --reduce-device-size)"
fi
echo
echo "Total time: $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.0f", b - a }') s"
