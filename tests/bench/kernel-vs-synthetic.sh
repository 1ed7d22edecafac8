#!/bin/bash
# Does the synthetic build benchmark predict what encryption costs a real kernel build? In the
# VM (a real kernel with dm-crypt): a fresh ext4 on the disk, the synthetic build and the real
# kernel build; then LUKS2 on the same disk, a fresh ext4 inside, the same two again. Prints
# the figures side by side and the synthetic slowdown against the real one.
#
#   tests/bench/kernel-vs-synthetic.sh [--part DIRS] [--repeats N] [--scale quick|normal]
#
# As root; the kernel source from the linux-source-6.1 package (/usr/src). Not in make check.
set -euo pipefail

part=init
repeats=1
scale=quick
if [ "${1:-}" = --guest ]; then
	mode=guest
	shift
else
	mode=host
fi

# ---------------------------------------------------------------- the guest half
if [ "$mode" = guest ]; then
	fdewiz=$1 part=$2 repeats=$3 scale=$4
	export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
	mkdir -p /run/cryptsetup /mnt/kb
	die() { echo "kvs: FAIL: $*"; exit 1; }
	# run_both LABEL: the synthetic build, then the kernel build, on /mnt/kb; one line of
	# JSON each on the console for the host.
	run_both()
	{
		local label=$1 kind

		mkdir -p /mnt/kb/bench
		for kind in build kernel; do
			echo "kvs: $label: $kind ($(date +%T))"
			"$fdewiz" bench "--$scale" --kind "$kind" --kernel-part "$part" \
				--repeats "$repeats" --label "$label" --save "/run/$label-$kind.json" \
				/mnt/kb/bench >"/run/$label-$kind.txt" 2>"/run/$label-$kind.err" ||
				{ cat "/run/$label-$kind.err"; die "$label $kind"; }
			cat "/run/$label-$kind.txt"
			echo "KVS-JSON $label $kind $(jq -c . "/run/$label-$kind.json")"
		done
		[ -z "$(ls -A /mnt/kb/bench)" ] || die "$label: scratch files left"
	}
	dev=/dev/vda
	mkfs.ext4 -q -F -E nodiscard "$dev" || die "mkfs plain"
	mount "$dev" /mnt/kb
	run_both plain
	umount /mnt/kb
	printf 'kernel vs synthetic' >/run/key
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--sector-size 4096 --key-file /run/key "$dev" || die "luksFormat"
	cryptsetup open --key-file /run/key "$dev" kvs || die "open"
	echo "kvs: dm-crypt: $(dmsetup table kvs | awk '{ print $4 }')"
	mkfs.ext4 -q -F -E nodiscard /dev/mapper/kvs || die "mkfs encrypted"
	mount /dev/mapper/kvs /mnt/kb
	run_both dmcrypt
	umount /mnt/kb
	cryptsetup close kvs
	echo KVS-OK
	exit 0
fi

# ---------------------------------------------------------------- the host half
while [ $# -gt 0 ]; do
	case $1 in
	--part) part=$2; shift 2 ;;
	--repeats) repeats=$2; shift 2 ;;
	--scale) scale=$2; shift 2 ;;
	*) echo "usage: $0 [--part DIRS] [--repeats N] [--scale quick|normal]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/lib.sh"
vm_init kernel-vs-synthetic
vm_need_pkgs cryptsetup-bin e2fsprogs jq linux-source-6.1 flex bison bc xz-utils
vm_find_fdewiz
self=$(realpath "$0")

img=$VM_WORK/disk.img
truncate -s 3G "$img"
echo "kernel-vs-synthetic: part $part, $repeats run(s), synthetic scale $scale; $(date -u +%H:%M) UTC"
vm_run --timeout "${KVS_TIMEOUT:-5400}" --mem 2048 --disk "$img" "$self" --guest "$FDEWIZ" \
	"$part" "$repeats" "$scale"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed KVS-OK" grep -q '^KVS-OK' "$VM_LOG"
for r in plain-build plain-kernel dmcrypt-build dmcrypt-kernel; do
	sed -n "s/^KVS-JSON ${r%-*} ${r#*-} //p" "$VM_LOG" | tr -d '\r' >"$VM_WORK/$r.json"
	vm_check "$r result" jq -e '.tests | length > 0' "$VM_WORK/$r.json"
done
vm_finish >/dev/null || { vm_finish; exit 1; }

# The side-by-side table: each step's wall time (median) plain and on dm-crypt, and the
# slowdown as speed lost (as fdewiz bench --compare counts it: 1 - plain/encrypted).
jq -rn --slurpfile pb "$VM_WORK/plain-build.json" --slurpfile pk "$VM_WORK/plain-kernel.json" \
	--slurpfile eb "$VM_WORK/dmcrypt-build.json" --slurpfile ek "$VM_WORK/dmcrypt-kernel.json" '
	def wall($t): $t.metrics[] | select(.key == "wall_s") | .median;
	def cpu($t; $k): [$t.metrics[] | select(.key == $k) | .median][0] // 0;
	def rows($p; $e):
		[$p.tests[] | . as $t | ($e.tests[] | select(.id == $t.id)) as $u
		 | {id: $t.id, p: wall($t), e: wall($u), pu: cpu($t; "user_s"),
		    eu: cpu($u; "user_s"), ps: cpu($t; "sys_s"), es: cpu($u; "sys_s")}];
	def slow($r): if $r.e > 0 then (1 - $r.p / $r.e) * 100 else 0 end;
	def line($r): "\($r.id | .[0:16] | . + " " * (16 - length)) \($r.p * 10 | round / 10 | tostring
		| " " * (9 - length) + .) s \($r.e * 10 | round / 10 | tostring | " " * (9 - length) + .) s"
		+ " \(slow($r) * 10 | round / 10 | tostring | " " * (7 - length) + .) %"
		+ "   user \($r.pu * 10 | round / 10) -> \($r.eu * 10 | round / 10) s, sys \($r.ps * 10 | round / 10) -> \($r.es * 10 | round / 10) s";
	def total($rs; $name): {id: $name, p: ([$rs[].p] | add), e: ([$rs[].e] | add),
		pu: ([$rs[].pu] | add), eu: ([$rs[].eu] | add), ps: ([$rs[].ps] | add),
		es: ([$rs[].es] | add)};
	rows($pb[0]; $eb[0]) as $b | rows($pk[0]; $ek[0]) as $k
	| total($b; "synthetic total") as $bt | total($k; "kernel total") as $kt
	| ($k | map(select(.id == "kernel.build"))[0]) as $kb
	| "STEP               PLAIN      DM-CRYPT  SLOWDOWN",
	  ($b[] | line(.)), line($bt), "",
	  ($k[] | line(.)), line($kt), "",
	  "synthetic slowdown \(slow($bt) * 10 | round / 10) %, real kernel build (all steps) \(slow($kt) * 10 | round / 10) %, make alone \(slow($kb) * 10 | round / 10) %",
	  "synthetic minus real: \((slow($bt) - slow($kt)) * 10 | round / 10) points"
	  + (if slow($kt) != 0 then "; synthetic / real: \(slow($bt) / slow($kt) * 100 | round / 100)" else "" end)'
grep -m1 'kvs: dm-crypt:' "$VM_LOG" | tr -d '\r' | sed 's/^kvs: //'
