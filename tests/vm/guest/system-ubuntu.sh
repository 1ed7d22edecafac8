#!/bin/bash
# Guest half of test-vm-system-ubuntu.sh, the "live" system: /dev/vda is an installed
# Debian laid out as Ubuntu's installer does on a BIOS machine (GPT: a BIOS boot partition
# on 1 holding GRUB's core, / on 2 with /boot a folder inside it and a swap file
# /swap.img), /dev/vdb a persistent disk for fdewiz's state. One 'encrypt': the move of
# /boot (a partition of its own, GRUB for BIOS reinstalled into the BIOS boot partition),
# the conversion, the boot step; then checked from here.
set -euo pipefail
fdewiz=$1
work=$2
say() { echo "system-ubuntu: $*"; }
die() { echo "system-ubuntu: FAIL: $*"; exit 1; }
t0=$(date +%s)
phase() { say "PHASE $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

mkdir -p /mnt/state /mnt/check
mount /dev/vdb /mnt/state
export FDEWIZ_STATE_DIR=/mnt/state/fdewiz
# Booted since its last check: resize2fs wants a fresh e2fsck to measure the root.
e2fsck -f -p /dev/vda2 >/run/fsck0.log 2>&1 || [ $? -le 1 ] || { cat /run/fsck0.log; die "e2fsck"; }
"$fdewiz" list --json /dev/vda >/run/list.json
say "VERDICT $(jq -c '.disks[0].partitions[] | select(.number == 2) | [.verdict.eligible, .verdict.reason, .verdict.strategy, .installed_system.boot_separate, .installed_system.boot_loader, .installed_system.swap_files]' /run/list.json)"
say "BIOSBOOT-VERDICT $(jq -c '.disks[0].partitions[] | select(.number == 1) | [.verdict.eligible, .verdict.reason]' /run/list.json)"
say "MESSAGE $(jq -r '.disks[0].partitions[] | select(.number == 2) | .verdict.message' /run/list.json)"
core_before=$(sha256sum </dev/vda1 | cut -d' ' -f1)
mbr_before=$(head -c 440 /dev/vda | sha256sum | cut -d' ' -f1)
phase listed
rc=0
"$fdewiz" --verbose encrypt --yes --fast-pbkdf --no-bench --foreground \
	--header-backup /mnt/state/root.hdr --key-file /dev/stdin /dev/vda2 \
	<"$work/key" >/run/encrypt.log 2>&1 || rc=$?
sed 's/^/system-ubuntu: encrypt: /' /run/encrypt.log
say "ENCRYPT rc=$rc"
[ "$rc" = 0 ] || die "encrypt"
phase encrypted
say "RECORD $(jq -r .step /mnt/state/fdewiz/boot-move-*.json)"
say "TABLE $(parted -s -m /dev/vda unit MiB print | tail -n +3 | tr '\n' ' ')"
boot_uuid=$(jq -r .boot_uuid /mnt/state/fdewiz/boot-move-*.json)
say "NEWBOOT $(blkid -p -o value -s TYPE /dev/vda3) uuid-matches=$([ "$(blkid -p -o value -s UUID /dev/vda3)" = "$boot_uuid" ] && echo yes || echo no)"
# GRUB's core in the BIOS boot partition was made again (its prefix is the new /boot now).
say "CORE changed=$([ "$(sha256sum </dev/vda1 | cut -d' ' -f1)" != "$core_before" ] && echo yes || echo no) mbr-changed=$([ "$(head -c 440 /dev/vda | sha256sum | cut -d' ' -f1)" != "$mbr_before" ] && echo yes || echo no)"
mount -o ro /dev/vda3 /mnt/check
root_uuid=$(jq -r .fs_uuid /mnt/state/fdewiz/boot-move-*.json)
say "GRUBCFG linux=$(grep -c '^[[:space:]]*linux[[:space:]]*/vmlinuz-' /mnt/check/grub/grub.cfg) root-by-uuid=$(grep -c "linux[[:space:]].* root=UUID=$root_uuid " /mnt/check/grub/grub.cfg) i386-pc=$([ -d /mnt/check/grub/i386-pc ] && echo yes || echo no)"
umount /mnt/check
for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
	cryptsetup close "$m" || die "cannot close $m"
done
cryptsetup open --key-file "$work/key" /dev/vda2 check || die "cryptsetup open"
rc=0
e2fsck -fn /dev/mapper/check >/run/fsck.log 2>&1 || rc=$?
say "FSCK rc=$rc"
[ "$rc" = 0 ] || { cat /run/fsck.log; die "fsck"; }
mount -o ro /dev/mapper/check /mnt/check
grep -v '^#' /mnt/check/etc/crypttab | grep . | tr -s ' \t' ' ' | sed 's/^/system-ubuntu: CRYPTTAB /'
say "FSTAB $(grep -v '^#' /mnt/check/etc/fstab | awk '{ print $1 ":" $2 }' | sed 's/^UUID=[^:]*:/UUID:/' | tr '\n' ' ')"
say "SWAPFILE $(blkid -p -o value -s TYPE /mnt/check/swap.img) holes=$(filefrag /mnt/check/swap.img 2>/dev/null | grep -c hole || true)"
umount /mnt/check
cryptsetup close check
phase checked
umount /mnt/state
echo FDEWIZ-SYSTEM-UBUNTU-OK
