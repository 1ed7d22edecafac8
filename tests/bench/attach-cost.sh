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
time, from its status record), the ratio of each round and of the medians, and the CPU
time the wizard itself used while it watched (its start included), which a loaded
machine's noise does not blur the way it blurs MB/s. Needs root. Asserts nothing
about speed; it fails only when a step fails or the converted data is wrong (the last run
of each kind is decrypted by the cryptsetup program, checked by e2fsck -fn and by the
sha256 of every file).

  --rounds N     rounds (default 3)
  --size MIB     partition size (default 4096: a build without sanitizers converts 1 GiB
                 in about 4 s, before the steady part begins; at least 256)
  --dir DIR      where the images live (default /var/tmp)
  --fdewiz PATH  the program to measure (default: \$FDEWIZ or src/fdewiz of this tree)
EOF
}

ROUNDS=3
SIZE=4096
STEADY_S=3
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

# The image once: a GPT with one partition, ext4 with about a quarter of it in random files
# (resize2fs will not shrink a half-full ext4 of 2 GiB or more: its minimum-size estimate
# is about 1.8 times the blocks in use, 518458 of 524288 blocks at 50 %).
make_pristine() {
	local n=$((SIZE / 4 / 8))

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
	local kind=$1 status pid total elapsed wiz e0 d0

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
	if [ "$kind" = attached ]; then
		wiz=$(tmux -L "$SRV" display-message -p -t "$SRV" '#{pane_pid}')
	fi
	# The steady part: from STEADY_S seconds into the conversion on, when the wizard has
	# long started (its start scans the disks once, a cost apart from its screen's). The
	# record is read once here, the same way whether anyone watches or not.
	while kill -0 "$pid" 2>/dev/null &&
		[ "$(jq -r '.elapsed * 10 | floor' "$status")" -lt $((STEADY_S * 10)) ]; do
		sleep 0.1
	done
	jq -r '"\(.elapsed) \(.done)"' "$status" >"$work/steady"
	if [ "$kind" = attached ]; then
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' \
			"/proc/$wiz/stat" >"$work/wizard-cpu0"
	fi
	while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
	if [ "$kind" = attached ]; then
		# What the screen itself used: its CPU seconds (user + system) over the run.
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' \
			"/proc/$wiz/stat" >"$work/wizard-cpu"
		# Still there at the end, on the results: it watched the whole run.
		tmux -L "$SRV" capture-pane -p -t "$SRV" >"$work/screen"
		grep -qE "Results for|Encrypting" "$work/screen" ||
			{ cat "$work/screen" >&2; die "attached: the wizard was not on the progress screen"; }
		tmux -L "$SRV" kill-server
	fi
	[ "$(jq -r .state "$status")" = complete ] || die "$kind: ended $(jq -r .state "$status")"
	total=$(jq -r .total "$status")
	elapsed=$(jq -r .elapsed "$status")
	read -r e0 d0 <"$work/steady"
	[ "$(awk -v e="$e0" -v s="$STEADY_S" 'BEGIN { print (e >= s) }')" = 1 ] ||
		die "$kind: the conversion ended before ${STEADY_S} s; use a larger --size"
	# Whole run, steady part, and (attached) the wizard's CPU-s in all and in the steady part.
	awk -v b="$total" -v s="$elapsed" -v e0="$e0" -v d0="$d0" \
		'BEGIN { printf "%.1f %.1f %.1f", b / s / 1e6, (b - d0) / (s - e0) / 1e6, s - e0 }'
	[ "$kind" != attached ] || awk -v c="$(cat "$work/wizard-cpu")" \
		-v c0="$(cat "$work/wizard-cpu0")" -v s="$elapsed" 'BEGIN { printf " %.2f %.1f %.2f", c, s, c - c0 }'
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


make_pristine
echo "attach-cost: $SIZE MiB partition, $ROUNDS rounds, $FDEWIZ"
: >"$work/results"
for r in $(seq 1 "$ROUNDS"); do
	# Alternating order, so a slow drift of the machine falls on both alike.
	if [ $((r % 2)) = 1 ]; then order="detached attached"; else order="attached detached"; fi
	for kind in $order; do
		read -r mbps steady ssecs cpu secs scpu <<<"$(run "$kind")"
		# run's own die ends only its subshell: its message is out, stop here too.
		[ -n "$mbps" ] || exit 1
		echo "$kind $r $mbps $steady $ssecs ${cpu:-} ${secs:-} ${scpu:-}" >>"$work/results"
		if [ "$kind" = attached ]; then
			printf '  round %d  %-9s %6s MB/s, steady %6s MB/s  (the wizard: %s CPU-s in %.1f s, %s in the steady %.1f s)\n' \
				"$r" "$kind" "$mbps" "$steady" "$cpu" "$secs" "$scpu" "$ssecs"
		else
			printf '  round %d  %-9s %6s MB/s, steady %6s MB/s\n' "$r" "$kind" "$mbps" "$steady"
		fi
		[ "$r" != "$ROUNDS" ] || verify "$kind"
	done
done
echo
echo "MB/s: whole run (steady part, from ${STEADY_S} s on)"
echo "round  detached        attached        attached/detached  wizard CPU in the steady part"
awk '$1 == "detached" { d[$2] = $3; ds[$2] = $4 } $1 == "attached" { a[$2] = $3; as[$2] = $4; ss[$2] = $5; sc[$2] = $8 }
	END { for (r = 1; r in d; r++)
		printf "%5d  %5.1f (%5.1f)  %5.1f (%5.1f)  %5.3f (%5.3f)      %.2f CPU-s in %.1f s: %.1f %% of one core\n",
			r, d[r], ds[r], a[r], as[r], a[r] / d[r], as[r] / ds[r], sc[r], ss[r], sc[r] / ss[r] * 100 }' "$work/results"
awk '
	function med(v, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	$1 == "detached" { dw[++nd] = $3; dst[nd] = $4 }
	$1 == "attached" { aw[++na] = $3; ast[na] = $4; c += $8; s += $5 }
	END {
		mdw = med(dw, nd); maw = med(aw, na); mds = med(dst, nd); mas = med(ast, na)
		printf "medians: detached %.1f (%.1f), attached %.1f (%.1f) MB/s; attached / detached %.3f (%.3f)\n",
			mdw, mds, maw, mas, maw / mdw, mas / mds
		printf "the wizard in the steady parts: %.2f CPU-s over %.1f s: %.2f %% of one core\n", c, s, c / s * 100
		min = max = dst[1]; for (i = 1; i <= nd; i++) { if (dst[i] < min) min = dst[i]; if (dst[i] > max) max = dst[i] }
		printf "the detached runs alone spread by %.1f %% (steady, max - min over min): smaller differences are noise\n",
			(max - min) / min * 100
	}' "$work/results"
