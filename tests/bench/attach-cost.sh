#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark, not a test: what the wizard's progress screen costs the conversion it watches.
set -euo pipefail

usage() {
	cat <<EOF
Usage: $0 [--rounds N] [--size MIB] [--dir DIR] [--fdewiz PATH]

Converts the same ext4 partition (a GPT disk image, restored from one copy before every
run) with 'fdewiz encrypt' in the background, N rounds of two runs each, in alternating
order: "detached" (nobody watches the worker) and "attached" (the wizard, in tmux, shows
its progress screen the whole time, redrawn 4 times a second from the status record and
the worker's log). Prints each run's MB/s (the worker's own figure: bytes over its elapsed
time, from its status record), the medians and the ratio. Needs root. Asserts nothing
about speed; it fails only when a step fails or the converted data is wrong (the last run
of each kind is decrypted by the cryptsetup program, checked by e2fsck -fn and by the
sha256 of every file).

  --rounds N     rounds (default 3)
  --size MIB     partition size (default 512; at least 256)
  --dir DIR      where the images live (default /var/tmp)
  --fdewiz PATH  the program to measure (default: \$FDEWIZ or src/fdewiz of this tree)
EOF
}

ROUNDS=3
SIZE=512
DIR=/var/tmp
FDEWIZ=${FDEWIZ:-$(cd "$(dirname "$0")/../.." && pwd)/src/fdewiz}
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	--fdewiz) FDEWIZ=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done

die() { echo "attach-cost: $*" >&2; exit 1; }

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive number"
if ! [[ $SIZE =~ ^[0-9]+$ ]] || [ "$SIZE" -lt 256 ]; then
	die "--size wants at least 256 (MiB)"
fi
[ "$(id -u)" = 0 ] || die "needs root (loop devices)"
[ -x "$FDEWIZ" ] || die "no fdewiz program at $FDEWIZ (build it, or pass --fdewiz)"
for tool in tmux jq sgdisk mkfs.ext4 e2fsck cryptsetup losetup sha256sum openssl; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done
FDEWIZ=$(readlink -f "$FDEWIZ")
DIR=$(readlink -f "$DIR")
avail=$(df --output=avail -BM "$DIR" | tail -1 | tr -dc 0-9)
[ "$avail" -ge $((SIZE * 3 + 64)) ] || die "$DIR has $avail MiB free; $((SIZE * 3 + 64)) are needed"
# A build with the sanitizers: libparted's own strchr over-read must not abort it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0:detect_leaks=0}

MIB=1048576
work=$(mktemp -d "$DIR/fdewiz-attach.XXXXXX")
IMG=$work/disk.img
PRISTINE=$work/pristine.img
KEY=$work/key
SRV=fdewiz-attach-cost-$$

cleanup() {
	local l
	tmux -L "$SRV" kill-server 2>/dev/null || true
	if [ -e "$IMG" ]; then
		FDEWIZ_STATE_DIR=$work/state "$FDEWIZ" pause "$IMG:1" >/dev/null 2>&1 || true
		for l in $(losetup -n -O NAME -j "$IMG" 2>/dev/null); do
			losetup -d "$l" 2>/dev/null || true
		done
	fi
	umount "$work/mnt" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The image once: a GPT with one partition, ext4 with about half of it in random files.
make_pristine() {
	local n=$((SIZE / 2 / 8))

	mkdir -p "$work/tree"
	for i in $(seq 1 "$n"); do openssl rand -out "$work/tree/f$i" $((8 * MIB)); done
	(cd "$work/tree" && sha256sum -- *) >"$work/sums"
	truncate -s $(((SIZE + 2) * MIB)) "$PRISTINE"
	sgdisk -o -n 1:2048:$((2048 + SIZE * 2048 - 1)) -c 1:Data "$PRISTINE" >/dev/null
	mkfs.ext4 -q -F -b 4096 -L Data -E offset=$MIB,nodiscard -d "$work/tree" \
		"$PRISTINE" "$((SIZE * 1024))k"
	rm -rf "$work/tree"
	printf 'attach cost key' >"$KEY"
}

# run KIND: restore the image, start the background conversion, watch it (attached) or not
# (detached), wait for the worker to end; prints the worker's MB/s.
run() {
	local kind=$1 status pid total elapsed

	rm -rf "$work/state"
	cp --sparse=always "$PRISTINE" "$IMG"
	sync
	FDEWIZ_STATE_DIR=$work/state "$FDEWIZ" encrypt --yes --fast-pbkdf --no-bench \
		--key-file "$KEY" "$IMG:1" >"$work/encrypt.log" 2>&1 ||
		{ cat "$work/encrypt.log" >&2; die "$kind: encrypt failed"; }
	status=$(ls "$work"/state/jobs/*.status)
	pid=$(jq -r .pid "$status")
	[[ $pid =~ ^[1-9][0-9]*$ ]] || die "$kind: no worker pid in $status"
	if [ "$kind" = attached ]; then
		# A running conversion opens the wizard on its progress screen at once.
		tmux -L "$SRV" -f /dev/null new-session -d -s "$SRV" -x 100 -y 30 \
			env TERM=tmux-256color LANG=C.UTF-8 FDEWIZ_STATE_DIR="$work/state" \
			ASAN_OPTIONS="$ASAN_OPTIONS" "$FDEWIZ" "$IMG"
	fi
	while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
	if [ "$kind" = attached ]; then
		# Still there at the end, on the results: it watched the whole run.
		tmux -L "$SRV" capture-pane -p -t "$SRV" >"$work/screen"
		grep -qE "Results for|Encrypting" "$work/screen" ||
			{ cat "$work/screen" >&2; die "attached: the wizard was not on the progress screen"; }
		tmux -L "$SRV" kill-server
	fi
	[ "$(jq -r .state "$status")" = complete ] || die "$kind: ended $(jq -r .state "$status")"
	total=$(jq -r .total "$status")
	elapsed=$(jq -r .elapsed "$status")
	awk -v b="$total" -v s="$elapsed" 'BEGIN { printf "%.1f", b / s / 1e6 }'
}

# The converted image decrypts back to the same files.
verify() {
	local loop

	loop=$(losetup -f --show -o $MIB --sizelimit $((SIZE * MIB)) "$IMG")
	cryptsetup reencrypt --decrypt --header "$work/dec.hdr" --key-file "$KEY" \
		--batch-mode "$loop" >/dev/null || { losetup -d "$loop"; die "$1: cryptsetup could not decrypt it"; }
	e2fsck -fn "$loop" >/dev/null 2>&1 || { losetup -d "$loop"; die "$1: e2fsck -fn found errors"; }
	mkdir -p "$work/mnt"
	mount -o ro "$loop" "$work/mnt"
	(cd "$work/mnt" && sha256sum -c --quiet "$work/sums") || die "$1: files differ"
	umount "$work/mnt"
	losetup -d "$loop"
	rm -f "$work/dec.hdr"
	echo "    $1: decrypted by cryptsetup, e2fsck -fn clean, $(wc -l <"$work/sums") files identical (sha256)"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

make_pristine
echo "attach-cost: $SIZE MiB partition, $ROUNDS rounds, $FDEWIZ"
: >"$work/results"
for r in $(seq 1 "$ROUNDS"); do
	# Alternating order, so a slow drift of the machine falls on both alike.
	if [ $((r % 2)) = 1 ]; then order="detached attached"; else order="attached detached"; fi
	for kind in $order; do
		mbps=$(run "$kind")
		echo "$kind $r $mbps" >>"$work/results"
		printf '  round %d  %-9s %7s MB/s\n' "$r" "$kind" "$mbps"
		[ "$r" != "$ROUNDS" ] || verify "$kind"
	done
done
det=$(awk '$1 == "detached" { print $3 }' "$work/results" | median)
att=$(awk '$1 == "attached" { print $3 }' "$work/results" | median)
printf '\n%-10s %s\n' "" "MB/s per round                median"
for kind in detached attached; do
	printf '%-10s %-29s %7s\n' "$kind" "$(awk -v k="$kind" '$1 == k { printf "%s ", $3 }' "$work/results")" \
		"$([ "$kind" = detached ] && echo "$det" || echo "$att")"
done
awk -v a="$att" -v d="$det" 'BEGIN { printf "attached / detached: %.3f  (the screen costs %.1f %%)\n",
	a / d, (1 - a / d) * 100 }'
