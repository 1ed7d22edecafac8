#!/bin/bash
# Guest half of test-vm-system-btrfs.sh, the "live" system: /dev/vda is an installed Debian
# laid out as its installer does on btrfs on an EFI machine (ESP on 1, /boot on 2, btrfs on
# 3 with the root in subvolume SUBVOL, swap on 4), /dev/vdb a persistent disk for fdewiz's
# state. list and the plan, then one 'encrypt' (the btrfs shrunk for the header, the
# conversion, the boot step); then checked from here: btrfs check inside the LUKS volume,
# its UUID kept, the subvolume's crypttab and fstab (its initramfs is listed by the
# encrypted system's first boot: guest/initramfs-list.sh).
set -euo pipefail
fdewiz=$1
work=$2
subvol=$3
say() { echo "system-btrfs: $*"; }
die() { echo "system-btrfs: FAIL: $*"; exit 1; }
t0=$(date +%s)
phase() { say "PHASE $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

mkdir -p /mnt/state /mnt/check
mount /dev/vdb /mnt/state
export FDEWIZ_STATE_DIR=/mnt/state/fdewiz
say "BEFORE $(blkid -p -o value -s TYPE /dev/vda3) $(blkid -p -o value -s UUID /dev/vda3)"
"$fdewiz" list --json /dev/vda >/run/list.json
say "VERDICT $(jq -c '.disks[0].partitions[] | select(.number == 3) | [.verdict.eligible, .verdict.reason, .verdict.strategy, .installed_system.boot_separate, .installed_system.boot_loader, .installed_system.root_subvolume]' /run/list.json)"
"$fdewiz" list /dev/vda >/run/list.txt 2>&1
# Partition 3's row and the lines under it, up to the next partition's row.
awk '/^ +[0-9]+ / { p = ($1 == 3) } p && NF' /run/list.txt | sed 's/^/system-btrfs: list: /'
"$fdewiz" encrypt --dry-run /dev/vda3 >/run/plan.txt 2>&1 || { cat /run/plan.txt; die "dry run"; }
sed 's/^/system-btrfs: plan: /' /run/plan.txt
phase listed
rc=0
"$fdewiz" --verbose encrypt --yes --fast-pbkdf --no-bench --foreground \
	--header-backup /mnt/state/root.hdr --key-file /dev/stdin /dev/vda3 \
	<"$work/key" >/run/encrypt.log 2>&1 || rc=$?
sed 's/^/system-btrfs: encrypt: /' /run/encrypt.log
say "ENCRYPT rc=$rc"
[ "$rc" = 0 ] || die "encrypt"
phase encrypted
say "TABLE $(parted -s -m /dev/vda unit MiB print | tail -n +3 | tr '\n' ' ')"

# Checked from outside: the btrfs inside the LUKS volume, clean and with its UUID; the
# system's tables in its subvolume.
for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
	cryptsetup close "$m" || die "cannot close $m"
done
say "LUKS uuid=$(cryptsetup luksUUID /dev/vda3)"
cryptsetup open --key-file "$work/key" /dev/vda3 check || die "cryptsetup open"
rc=0
btrfs check --readonly /dev/mapper/check >/run/fsck.log 2>&1 || rc=$?
say "BTRFSCK rc=$rc"
[ "$rc" = 0 ] || { cat /run/fsck.log; die "btrfs check"; }
say "INSIDE $(blkid -p -o value -s TYPE /dev/mapper/check) $(blkid -p -o value -s UUID /dev/mapper/check)"
phase btrfs-checked
mount -o "ro,subvol=$subvol" /dev/mapper/check /mnt/check
phase mounted
say "SUBVOLS $(btrfs subvolume list /mnt/check | awk '{ print $NF }' | tr '\n' ' ')"
grep -v '^#' /mnt/check/etc/crypttab | grep . | tr -s ' \t' ' ' | sed 's/^/system-btrfs: CRYPTTAB /'
say "FSTAB $(grep -v '^#' /mnt/check/etc/fstab | awk '{ print $2 }' | tr '\n' ' ')"
say "FSTAB-ROOT $(grep -v '^#' /mnt/check/etc/fstab | awk '$2 == "/"' | tr -s ' \t' ' ')"
umount /mnt/check
cryptsetup close check
phase closed
umount /mnt/state
echo FDEWIZ-SYSTEM-BTRFS-OK
