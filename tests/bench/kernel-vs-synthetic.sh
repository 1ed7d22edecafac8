#!/bin/bash
# Does the synthetic build benchmark predict what encryption costs a real kernel build? In the
# VM (a real kernel with dm-crypt), two disks of the same kind: a fresh ext4 on the first
# (plain), and LUKS2 on the second with a fresh ext4 inside (dm-crypt). Each round runs the
# synthetic build and the real kernel build on both, the order alternating from round to
# round (plain first, then dm-crypt first), so that a machine that slows down or speeds up
# meanwhile weighs on both sides alike. Prints each step's median over the rounds side by
# side, the synthetic slowdown against the real one, and each round's own two slowdowns.
#
#   tests/bench/kernel-vs-synthetic.sh [--part DIRS] [--rounds N] [--scale quick|normal]
#
# As root; the kernel source from the linux-source-6.1 package (/usr/src). Not in make check.
set -euo pipefail

part=init
rounds=3
scale=quick
if [ "${1:-}" = --guest ]; then
	mode=guest
	shift
else
	mode=host
fi

# ---------------------------------------------------------------- the guest half
if [ "$mode" = guest ]; then
	fdewiz=$1 part=$2 rounds=$3 scale=$4
	export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
	mkdir -p /run/cryptsetup /mnt/plain /mnt/dmcrypt
	die() { echo "kvs: FAIL: $*"; exit 1; }
	# run_one LABEL ROUND KIND: one benchmark on /mnt/LABEL; one line of JSON on the console.
	run_one()
	{
		local label=$1 round=$2 kind=$3 out=/run/$1-$2-$3

		mkdir -p "/mnt/$label/bench"
		echo "kvs: round $round: $label $kind ($(date +%T))"
		"$fdewiz" bench "--$scale" --kind "$kind" --kernel-part "$part" --repeats 1 \
			--label "$label" --save "$out.json" "/mnt/$label/bench" >"$out.txt" \
			2>"$out.err" || { cat "$out.err"; die "$label $kind, round $round"; }
		cat "$out.txt"
		echo "KVS-JSON $label $round $kind $(jq -c . "$out.json")"
		[ -z "$(ls -A "/mnt/$label/bench")" ] || die "$label: scratch files left"
	}
	mkfs.ext4 -q -F -E nodiscard /dev/vda || die "mkfs plain"
	mount /dev/vda /mnt/plain
	printf 'kernel vs synthetic' >/run/key
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--sector-size 4096 --key-file /run/key /dev/vdb || die "luksFormat"
	cryptsetup open --key-file /run/key /dev/vdb kvs || die "open"
	echo "kvs: dm-crypt: $(dmsetup table kvs | awk '{ print $4 }')"
	mkfs.ext4 -q -F -E nodiscard /dev/mapper/kvs || die "mkfs encrypted"
	mount /dev/mapper/kvs /mnt/dmcrypt
	for round in $(seq 1 "$rounds"); do
		order="plain dmcrypt"
		[ $((round % 2)) = 0 ] && order="dmcrypt plain"
		for kind in build kernel; do
			for label in $order; do
				run_one "$label" "$round" "$kind"
			done
		done
	done
	umount /mnt/plain /mnt/dmcrypt
	cryptsetup close kvs
	echo KVS-OK
	exit 0
fi

# ---------------------------------------------------------------- the host half
while [ $# -gt 0 ]; do
	case $1 in
	--part) part=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--scale) scale=$2; shift 2 ;;
	*) echo "usage: $0 [--part DIRS] [--rounds N] [--scale quick|normal]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/lib.sh"
vm_init kernel-vs-synthetic
vm_need_pkgs cryptsetup-bin e2fsprogs jq linux-source-6.1 flex bison bc xz-utils
vm_find_fdewiz
self=$(realpath "$0")

truncate -s 3G "$VM_WORK/plain.img" "$VM_WORK/dmcrypt.img"
echo "kernel-vs-synthetic: part $part, $rounds round(s), synthetic scale $scale; $(date -u +%H:%M) UTC"
# About 13 minutes a round on an idle host; a loaded one can take four times that.
vm_run --timeout "${KVS_TIMEOUT:-$((1800 + rounds * 2400))}" --mem 2048 --disk "$VM_WORK/plain.img" \
	--disk "$VM_WORK/dmcrypt.img" "$self" --guest "$FDEWIZ" "$part" "$rounds" "$scale"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed KVS-OK" grep -q '^KVS-OK' "$VM_LOG"
# One JSON array per side and kind, a run per round.
for r in plain-build plain-kernel dmcrypt-build dmcrypt-kernel; do
	sed -n "s/^KVS-JSON ${r%-*} [0-9]* ${r#*-} //p" "$VM_LOG" | tr -d '\r' | jq -s . \
		>"$VM_WORK/$r.json"
	vm_check "$r: $rounds runs" jq -e --argjson n "$rounds" \
		'length == $n and all(.[]; .tests | length > 0)' "$VM_WORK/$r.json"
done
vm_check "dm-crypt runs name their cipher" jq -e 'all(.[]; .cipher | test("aes"))' \
	"$VM_WORK/dmcrypt-build.json"
vm_finish >/dev/null || { vm_finish; exit 1; }

# The side-by-side table: each step's wall time, the median over the rounds, plain and on
# dm-crypt, and the slowdown as speed lost (as fdewiz bench --compare counts it:
# 1 - plain/encrypted); then each round's own slowdowns, which show the noise.
jq -rn --slurpfile pb "$VM_WORK/plain-build.json" --slurpfile pk "$VM_WORK/plain-kernel.json" \
	--slurpfile eb "$VM_WORK/dmcrypt-build.json" --slurpfile ek "$VM_WORK/dmcrypt-kernel.json" '
	def med: sort | if length == 0 then 0 elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def f1: . * 10 | round / 10 | tostring;
	def pad($n): " " * ([$n - length, 0] | max) + .;
	def metric($run; $id; $k): [$run.tests[] | select(.id == $id) | .metrics[]
		| select(.key == $k) | .median][0] // 0;
	def over($runs; $id; $k): [$runs[] | metric(.; $id; $k)] | med;
	def rows($P; $E): [$P[0].tests[].id] | map(. as $id | {id: $id,
		p: over($P; $id; "wall_s"), e: over($E; $id; "wall_s"),
		pu: over($P; $id; "user_s"), eu: over($E; $id; "user_s"),
		ps: over($P; $id; "sys_s"), es: over($E; $id; "sys_s")});
	def total($rs; $name): {id: $name, p: ([$rs[].p] | add), e: ([$rs[].e] | add),
		pu: ([$rs[].pu] | add), eu: ([$rs[].eu] | add), ps: ([$rs[].ps] | add),
		es: ([$rs[].es] | add)};
	def slow($p; $e): if $e > 0 then (1 - $p / $e) * 100 else 0 end;
	def line($r): "\($r.id | .[0:16] | . + " " * (16 - length)) \($r.p | f1 | pad(9)) s"
		+ " \($r.e | f1 | pad(9)) s \(slow($r.p; $r.e) | f1 | pad(7)) %"
		+ "   user \($r.pu | f1) -> \($r.eu | f1) s, sys \($r.ps | f1) -> \($r.es | f1) s";
	def wall_total($run): [$run.tests[].metrics[] | select(.key == "wall_s") | .median] | add;
	$pb[0] as $PB | $pk[0] as $PK | $eb[0] as $EB | $ek[0] as $EK
	| rows($PB; $EB) as $b | rows($PK; $EK) as $k
	| total($b; "synthetic total") as $bt | total($k; "kernel total") as $kt
	| ($k | map(select(.id == "kernel.build"))[0]) as $kb
	| slow($bt.p; $bt.e) as $sb | slow($kt.p; $kt.e) as $sk
	| "\($PB | length) round(s); each figure the median over them",
	  "STEP               PLAIN      DM-CRYPT  SLOWDOWN",
	  ($b[] | line(.)), line($bt), "",
	  ($k[] | line(.)), line($kt), "",
	  "synthetic slowdown \($sb | f1) %, real kernel build (all steps) \($sk | f1) %,"
	  + " make alone \(slow($kb.p; $kb.e) | f1) %",
	  "synthetic minus real: \($sb - $sk | f1) points"
	  + (if $sk != 0 then "; synthetic / real: \($sb / $sk * 100 | round / 100)" else "" end),
	  "each round (synthetic / kernel, all steps / make alone):",
	  (range(0; $PB | length) as $i
	   | "  round \($i + 1): \(slow(wall_total($PB[$i]); wall_total($EB[$i])) | f1) % / "
	     + "\(slow(wall_total($PK[$i]); wall_total($EK[$i])) | f1) % / "
	     + "\(slow(metric($PK[$i]; "kernel.build"; "wall_s");
	             metric($EK[$i]; "kernel.build"; "wall_s")) | f1) %")'
grep -m1 'kvs: dm-crypt:' "$VM_LOG" | tr -d '\r' | sed 's/^kvs: //'
