#!/bin/bash
# Guest half of test-vm-system-carve.sh, the "live" system: /dev/vda is an installed Debian
# whose /boot is a folder inside its root (/dev/vda1; swap /dev/vda2), /dev/vdb a
# persistent disk for fdewiz's state. MODE:
#   cut     list and the plan, then encrypt, killed inside the move of /boot right after
#           the partition table changed and before that step was recorded; the host then
#           cuts the power.
#   resume  'resume' finishes the move (no passphrase), the system's new layout is
#           printed, then 'encrypt' converts the root and is killed before its boot step;
#           the host cuts the power again.
set -euo pipefail
fdewiz=$1
work=$2
mode=$3
say() { echo "system-carve: $*"; }
die() { echo "system-carve: FAIL: $*"; exit 1; }
t0=$(date +%s)
phase() { say "PHASE $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

mkdir -p /mnt/state /mnt/check
mount /dev/vdb /mnt/state
export FDEWIZ_STATE_DIR=/mnt/state/fdewiz

table() { parted -s -m /dev/vda unit MiB print | tail -n +3 | tr '\n' ' '; }

if [ "$mode" = cut ]; then
	# Booted since its last check: resize2fs wants a fresh e2fsck to measure the root.
	e2fsck -f -p /dev/vda1 >/run/fsck0.log 2>&1 || [ $? -le 1 ] || { cat /run/fsck0.log; die "e2fsck"; }
	say "TABLE-BEFORE $(table)"
	"$fdewiz" list --json /dev/vda >/run/list.json
	say "VERDICT $(jq -c '.disks[0].partitions[] | select(.number == 1) | [.verdict.eligible, .verdict.reason, .verdict.strategy, .installed_system.boot_separate]' /run/list.json)"
	say "MESSAGE $(jq -r '.disks[0].partitions[] | select(.number == 1) | .verdict.message' /run/list.json)"
	"$fdewiz" encrypt --dry-run /dev/vda1 >/run/plan.txt 2>&1 || { cat /run/plan.txt; die "dry run"; }
	sed 's/^/system-carve: plan: /' /run/plan.txt
	phase listed
	rc=0
	FDEWIZ_TEST_KILL_AT=boot-move-split "$fdewiz" --verbose encrypt --yes --fast-pbkdf \
		--no-bench --foreground --header-backup /mnt/state/root.hdr --key-file /dev/stdin \
		/dev/vda1 <"$work/key" >/run/encrypt.log 2>&1 || rc=$?
	sed 's/^/system-carve: cut: /' /run/encrypt.log
	grep -q "test hook: killed at 'boot-move-split'" /run/encrypt.log ||
		die "encrypt was not stopped at boot-move-split (exit $rc)"
	say "RECORD $(jq -r .step /mnt/state/fdewiz/boot-move-*.json)"
	say "TABLE-CUT $(table)"
	phase cut
	echo "system-carve: POWERCUT-NOW"
	sleep 600
	die "still running after the power cut"
fi

say "RECORD-AFTER-CUT $(jq -r .step /mnt/state/fdewiz/boot-move-*.json)"
say "TABLE-AFTER-CUT $(table)"
rc=0
"$fdewiz" --verbose resume /dev/vda1 </dev/null >/run/resume.log 2>&1 || rc=$?
sed 's/^/system-carve: resume: /' /run/resume.log
say "RESUME rc=$rc"
[ "$rc" = 0 ] || die "resume"
phase resumed
say "RECORD-AFTER-RESUME $(jq -r .step /mnt/state/fdewiz/boot-move-*.json)"
say "TABLE-AFTER $(table)"
boot_uuid=$(jq -r .boot_uuid /mnt/state/fdewiz/boot-move-*.json)
say "NEWBOOT $(blkid -p -o export /dev/vda3 | grep -E '^(TYPE|UUID)=' | tr '\n' ' ')"
mount -o ro /dev/vda1 /mnt/check
say "FSTAB-BOOT $(awk '$2 == "/boot" { print $1, $3, $6 }' /mnt/check/etc/fstab)"
say "FSTAB-BACKUPS $(cd /mnt/check/etc && ls fstab.fdewiz-*.bak 2>/dev/null | wc -l)"
umount /mnt/check
mount -o ro /dev/vda3 /mnt/check
# The kernels and GRUB's menu are on the new /boot, the menu reading them from there.
say "NEWBOOT-FILES kernels=$(ls /mnt/check/vmlinuz-* | wc -l) initrds=$(ls /mnt/check/initrd.img-* | wc -l) grubcfg=$([ -f /mnt/check/grub/grub.cfg ] && echo yes || echo no) i386-pc=$([ -f /mnt/check/grub/i386-pc/normal.mod ] && echo yes || echo no)"
root_uuid=$(blkid -p -s UUID -o value /dev/vda1)
say "GRUBCFG search=$(grep -c "search .*$boot_uuid" /mnt/check/grub/grub.cfg) linux=$(grep -c '^[[:space:]]*linux[[:space:]]*/vmlinuz-' /mnt/check/grub/grub.cfg) root-by-uuid=$(grep -c "linux[[:space:]].* root=UUID=$root_uuid " /mnt/check/grub/grub.cfg)"
umount /mnt/check
# GRUB's core image in front of the first partition now names the new /boot.
say "CORE-NAMES-NEWBOOT $(dd if=/dev/vda bs=512 skip=1 count=2047 status=none | grep -ac "$boot_uuid" || true)"
phase layout-checked

# The conversion, cut once more after it and before the boot step (guest/system-boot.sh's
# resume-swapcut mode goes on from there in the next live VM).
rc=0
FDEWIZ_TEST_KILL_AT=before-system-boot "$fdewiz" --verbose encrypt --yes --fast-pbkdf \
	--no-bench --foreground --header-backup /mnt/state/root.hdr --key-file /dev/stdin \
	/dev/vda1 <"$work/key" >/run/encrypt.log 2>&1 || rc=$?
sed 's/^/system-carve: encrypt: /' /run/encrypt.log
grep -q "test hook: killed at 'before-system-boot'" /run/encrypt.log ||
	die "encrypt was not stopped at before-system-boot (exit $rc)"
say "NEWBOOT-FSCK $(e2fsck -fn /dev/vda3 >/dev/null 2>&1 && echo clean || echo errors)"
phase converted
echo "system-carve: POWERCUT-NOW"
sleep 600
die "still running after the power cut"
