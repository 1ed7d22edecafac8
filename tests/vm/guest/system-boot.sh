#!/bin/bash
# Guest half of the installed-system tests (test-vm-system-carve.sh; mode check:
# test-vm-system-wizard.sh), the "live" system: /dev/vda is the installed
# Debian's disk, /dev/vdb a persistent disk for fdewiz's state (a USB stick). The
# installed system's root was converted; fdewiz sets up its boot (or did). Then check from
# here: the volume opens with the cryptsetup program, fsck is clean, crypttab names it.
# MODE: "resume" (after a power cut before the boot step), "resume-swapcut" (resume first
# crashes at "swap-tables-written", then runs again), "check" (only the checks below: the
# wizard converted it, test-vm-system-wizard.sh).
set -euo pipefail
# The layout's partitions: installed-image.sh's disk.img unless the test says otherwise
# (test-vm-system-carve.sh: root 1, swap 2, the /boot made by fdewiz 3).
root=${FDW_ROOT:-/dev/vda2}
boot=${FDW_BOOT:-/dev/vda1}
swap=${FDW_SWAP:-/dev/vda3}
rootname=${root#/dev/}_crypt
fdewiz=$1
work=$2
mode=$3
say() { echo "system-boot: $*"; }
die() { echo "system-boot: FAIL: $*"; exit 1; }
t0=$(date +%s)
phase() { say "PHASE $1 $(($(date +%s) - t0))s"; }

mkdir -p /mnt/state /mnt/check

# The boot step crashes (its child killed) after the target's tables name the random-key
# swap and before the plain swap is overwritten; what that left is printed.
swap_cut()
{
	local rc=0 m
	FDEWIZ_TEST_KILL_AT=swap-tables-written "$fdewiz" --verbose resume --key-file /dev/stdin \
		"$root" <"$work/key" >/run/resume0.log 2>&1 || rc=$?
	sed 's/^/system-boot: swapcut: /' /run/resume0.log
	say "SWAPCUT rc=$rc"
	grep -q "test hook: killed at 'swap-tables-written'" /run/resume0.log ||
		die "resume was not stopped at swap-tables-written"
	for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
		cryptsetup close "$m" || die "cannot close $m"
	done
	say "SWAPCUT-SIGNATURE $(blkid -p -o value -s TYPE "$swap" || echo none)"
	cryptsetup open --key-file "$work/key" "$root" cut || die "cryptsetup open after the cut"
	mount -o ro /dev/mapper/cut /mnt/check
	say "SWAPCUT-FSTAB $(awk '$3 == "swap" { print $1 }' /mnt/check/etc/fstab | tr '\n' ' ')"
	say "SWAPCUT-CRYPTTAB $(grep -c '^cryptswap1 ' /mnt/check/etc/crypttab || true)"
	umount /mnt/check
	cryptsetup close cut
}
mount /dev/vdb /mnt/state
export FDEWIZ_STATE_DIR=/mnt/state/fdewiz

if [ "$mode" = check ]; then
	phase check-start
elif [ "$mode" = resume ] || [ "$mode" = resume-swapcut ]; then
	phase resume-start
	[ "$mode" = resume ] || swap_cut
	# TPM unlock asked for on a machine without a TPM: refused before the passphrase is
	# read, the record unchanged (no TPM PCRs in it).
	rc=0
	"$fdewiz" resume --tpm --key-file /dev/stdin "$root" <"$work/key" >/run/tpm.log 2>&1 || rc=$?
	say "RESUME-TPM rc=$rc $(tr '\n' ' ' </run/tpm.log | head -c 400)"
	say "RESUME-TPM-RECORD tpm-empty=$(jq -r 'if .tpm_pcrs == "" then 1 else 0 end' \
		/mnt/state/fdewiz/jobs/*.system)"
	"$fdewiz" --verbose resume --key-file /dev/stdin "$root" <"$work/key" >/run/resume.log 2>&1 ||
		{ cat /run/resume.log; die "resume"; }
	cat /run/resume.log
	phase resume-done
else
	die "unknown mode $mode"
fi

say "record: $(cat /mnt/state/fdewiz/jobs/*.system | tr '\n' '|')"
# An online conversion leaves the volume open under fdewiz's name: close it, as a person
# would before shutting the live system down.
for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
	say "closing $m"
	cryptsetup close "$m" || die "cannot close $m"
done
cryptsetup open --key-file "$work/key" "$root" check || die "cryptsetup open"
rc=0
e2fsck -fn /dev/mapper/check >/run/fsck.log 2>&1 || rc=$?
say "FSCK rc=$rc"
[ "$rc" = 0 ] || { cat /run/fsck.log; die "fsck"; }
mount -o ro /dev/mapper/check /mnt/check
mount -o ro "$boot" /mnt/check/boot
grep -v '^#' /mnt/check/etc/crypttab | grep . | tr -s ' \t' ' ' | sed 's/^/system-boot: CRYPTTAB /'
say "LUKSUUID $(cryptsetup luksUUID "$root")"
say "FSTAB-SWAP $(awk '$3 == "swap" { print $1 }' /mnt/check/etc/fstab)"
say "LINES fstab-swap=$(awk '$3 == "swap"' /mnt/check/etc/fstab | wc -l) crypttab-swap=$(grep -c ' /dev/urandom swap' /mnt/check/etc/crypttab) crypttab-root=$(grep -c "^$rootname " /mnt/check/etc/crypttab)"
sig=$(blkid -p -o value -s TYPE "$swap" || true)
say "OLD-SWAP-SIGNATURE ${sig:-none}"
say "SWAP-ZEROS $(cmp -s -n 67108864 "$swap" /dev/zero && echo yes || echo no)"
say "RESUME $(cat /mnt/check/etc/initramfs-tools/conf.d/resume)"
say "BACKUPS $(cd /mnt/check/boot && ls ./*.fdewiz-bak | tr '\n' ' ')"
# Key files of the system's other volumes (test-vm-system-wizard.sh: /home on /dev/vda4,
# /data on /dev/vdc1; another volume on /dev/vdd with another passphrase).
keys=/mnt/check/etc/cryptsetup-keys.d
for k in "$keys"/*.key; do
	[ -f "$k" ] || continue
	n=${k##*/}
	n=${n%.key}
	src=$(awk -v n="$n" '$1 == n { print $2 }' /mnt/check/etc/crypttab)
	dev=$(blkid -t "$src" -o device | head -n1)
	opens=fails
	[ -n "$dev" ] && cryptsetup open --test-passphrase --key-file "$k" "$dev" && opens=opens
	say "KEYFILE $n $(stat -c '%a %s' "$k") dir $(stat -c %a "$keys") $opens slots=$(cryptsetup luksDump "$dev" | grep -c '^  [0-9]*: luks2') prefer=$(cryptsetup luksDump "$dev" | grep -ci 'priority: *prefer')"
done
say "FSTAB-DATA $(awk '$2 == "/data" { print $1 }' /mnt/check/etc/fstab)"
if [ -b /dev/vdd ]; then
	say "OTHER line=$(awk '$1 == "other_crypt" { print $3 "," $4 }' /mnt/check/etc/crypttab | sed 's/,luks//') keyfile=$([ -e "$keys/other_crypt.key" ] && echo yes || echo no) slots=$(cryptsetup luksDump /dev/vdd | grep -c '^  [0-9]*: luks2')"
fi
umount /mnt/check/boot /mnt/check
cryptsetup close check
phase checked
umount /mnt/state
echo FDEWIZ-SYSTEM-BOOT-OK
