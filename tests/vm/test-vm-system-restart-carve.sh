#!/bin/bash
# fdewiz VM tests: the running system's root encrypted with one restart when its /boot is
# a folder inside it: the layout Debian's installer makes by default ("all files in one
# partition"; installed-image.sh's disk-bootinside.img: / with /boot inside on partition 1,
# swap on 2, GRUB for BIOS in the MBR). Its own fdewiz prepares the restart (the plan says
# /boot becomes a partition of its own first); at the restart the initramfs step shrinks
# the root, makes /boot a partition of its own, copies /boot there, names it in fstab and
# reinstalls GRUB from the unmounted root, then writes the header. The power is cut twice
# on the way (guest/system-restart-drive.sh, "lean": no wizard, guard or pause, which
# test-vm-system-restart.sh covers):
#   a. at a random moment inside the move of /boot;
#   b. after the move (done again from the start: the shrink and the split found made),
#      while the header is written;
# each boot after it starts (from the old GRUB or the new one), asks for the passphrase and
# goes on. The system comes up on dm-crypt while the service converts and files are
# written; then Debian's own cryptroot boots it from the new /boot (GRUB reads it there),
# every file checks out, the recovery key opens it; a live VM checks both filesystems.
# With FDEWIZ_VM_RESTART_BENCH=1 the plain root's baseline benchmark (at the preparation)
# is compared with the encrypted one's at the end (minutes more; the suite leaves it out).
# Cost: five SeaBIOS boots (two of them cut short) and one live VM, about 11 minutes under
# TCG (measured 680 s).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-restart-carve
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs mmdebstrap
vm_find_fdewiz

t0=$(date +%s)
phase() { echo "$VM_NAME: TIMING $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }
drive_line() { tr -d '\r' <"$1" | grep -a "^FDW-DRIVE $2" | tail -n1; }

prep=$("$VM_HERE/installed-image.sh") || { vm_fail "building the installed image"; vm_finish; }
cached=$(sed -n 's/^image_bootinside=//p' <<<"$prep")
phase "image-ready (cached or built)"
img=$VM_WORK/bootinside.img
cp --sparse=always "$cached" "$img"
chmod 0644 "$img"
printf 'restart with /boot inside, 27' >"$VM_WORK/key"

mkdir -p "$VM_WORK/drive"
install -m 0755 "$VM_HERE/guest/system-restart-drive.sh" "$VM_WORK/drive/drive.sh"
install -m 0755 "$FDEWIZ" "$VM_WORK/drive/fdewiz"
cp "$VM_WORK/key" "$VM_WORK/drive/key"
echo /dev/vda1 >"$VM_WORK/drive/root"
touch "$VM_WORK/drive/lean"
echo arm >"$VM_WORK/drive/phase"
# The before/after benchmark, as in test-vm-system-restart.sh: FDEWIZ_VM_RESTART_BENCH=1.
bench=${FDEWIZ_VM_RESTART_BENCH:-0}
[ "$bench" = 0 ] || touch "$VM_WORK/drive/bench"
truncate -s 128M "$VM_WORK/drive.img"
mkfs.ext4 -q -F -L fdw-drive -d "$VM_WORK/drive" "$VM_WORK/drive.img"
export VM_BOOT_DISK2=$VM_WORK/drive.img

# 1. Plain, /boot inside the root: its own fdewiz prepares the restart.
vm_boot_installed "$img" "$VM_WORK/boot1.log" "" 1200
phase "boot-1-prepare (${VM_BOOT_SECONDS}s in qemu)"
tr -d '\r' <"$VM_WORK/boot1.log" | grep -a '^FDW-DRIVE \(PLAN\|ARM\|BOOT-BEFORE\|INITRD\)' || true
vm_check "before: /boot is a folder inside the root, the disk has two partitions" \
	grep -q '^FDW-DRIVE BOOT-BEFORE inside parts=2$' <<<"$(drive_line "$VM_WORK/boot1.log" BOOT-BEFORE)"
vm_check "the plan says /boot becomes a partition of its own at the restart" \
	bash -c "tr -d '\r' <'$VM_WORK/boot1.log' | grep -aq '^FDW-DRIVE PLAN .*/boot made a partition of its own (512 MiB from the root.s end'"
vm_check "encrypt --at-restart prepared it (baseline benchmark: $bench)" \
	grep -q "rc=0 .*baseline=$([ "$bench" = 0 ] && echo 0 || echo 1)\$" \
	<<<"$(drive_line "$VM_WORK/boot1.log" 'ARM ')"
vm_check "a recovery key was shown" \
	grep -q '^FDW-DRIVE RECOVERY-SHOWN 56$' <<<"$(drive_line "$VM_WORK/boot1.log" RECOVERY-SHOWN)"
vm_check "the new initramfs carries the step, the stage and the header" \
	grep -q '^FDW-DRIVE INITRD-STEP 5$' <<<"$(drive_line "$VM_WORK/boot1.log" INITRD-STEP)"
vm_check "it carries the planned move of /boot, mke2fs, coreutils' cp and chroot" \
	grep -q '^FDW-DRIVE INITRD-MOVE 4$' <<<"$(drive_line "$VM_WORK/boot1.log" INITRD-MOVE)"
vm_check "the prepared system still booted plain, all files good" \
	grep -q '^FDW-BOOT-OK sums=ok files=3000 root=part$' <<<"$(vm_boot_result "$VM_WORK/boot1.log")"

# 2. The restart, cut twice: inside the move of /boot, then after it.
vm_boot_cut 2a "$img" "$VM_WORK/key" '^fdewiz: making /boot a partition of its own' 150
t0=$(date +%s)
vm_boot_cut 2b "$img" "$VM_WORK/key" '^fdewiz: writing the LUKS2 header' 15
t0=$(date +%s)
vm_check "the power was cut twice in the initramfs step" [ "$VM_CUTS" = 2 ]
vm_check "after the cut inside the move the system started again and the step went on" \
	bash -c "tr -d '\r' <'$VM_WORK/boot-2b.log' | grep -aq '^fdewiz: making /boot a partition of its own'"
vm_boot_installed "$img" "$VM_WORK/boot2.log" "$VM_WORK/key" 2400
phase "boot-2-completes (${VM_BOOT_SECONDS}s in qemu)"
tr -d '\r' <"$VM_WORK/boot2.log" | grep -a '^fdewiz: \|^FDW-DRIVE \(PHASE\|SERVICE\|THROUGHPUT\|CRYPTTAB\|INITRD\|LEFT\|WORK\|COMPARE\)' || true
vm_check "the passphrase was asked once, before the root was mounted" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "fdewiz's step opened the root in the initramfs" \
	bash -c "tr -d '\r' <'$VM_WORK/boot2.log' | grep -aq '^fdewiz: the root is encrypted from here on'"
vm_check "the system came up with / on dm-crypt" \
	grep -Eq 'root=/dev/mapper/vda1_crypt type=crypt$' <<<"$(drive_line "$VM_WORK/boot2.log" 'PHASE convert')"
vm_check "the service finished the conversion" \
	grep -q 'SERVICE-RESULT success' <<<"$(drive_line "$VM_WORK/boot2.log" SERVICE-RESULT)"
vm_check "crypttab names the root volume by UUID" \
	grep -q '^FDW-DRIVE CRYPTTAB vda1_crypt UUID=' <<<"$(drive_line "$VM_WORK/boot2.log" CRYPTTAB)"
vm_check "the initramfs has Debian's cryptroot for it and no step of fdewiz" \
	grep -q 'step=0 cryptroot=1$' <<<"$(drive_line "$VM_WORK/boot2.log" INITRD-AFTER)"
[ "$bench" = 0 ] ||
	vm_check "the plain root's baseline (prepared with it) compares with the encrypted root" \
		bash -c "tr -d '\r' <'$VM_WORK/boot2.log' | grep -a '^FDW-DRIVE COMPARE SEQ1M Q1T1 read ' | grep -Eq '[0-9] MB/s +[0-9.]+ MB/s'"
vm_check "no stage, hook or service of the restart is left" \
	grep -q '^FDW-DRIVE LEFT 0$' <<<"$(drive_line "$VM_WORK/boot2.log" LEFT)"
vm_check "the files checked out on the converting system, with those written meanwhile" \
	grep -Eq "^FDW-BOOT-OK sums=ok files=3[0-9]{3} root=crypt$" <<<"$(vm_boot_result "$VM_WORK/boot2.log")"

# 3. Debian's own boot of the encrypted root, GRUB reading the new /boot.
vm_boot_installed "$img" "$VM_WORK/boot3.log" "$VM_WORK/key" 1200
phase "boot-3-encrypted (${VM_BOOT_SECONDS}s in qemu)"
res=$(vm_boot_result "$VM_WORK/boot3.log")
echo "$VM_NAME: last boot: $res"
drive_line "$VM_WORK/boot3.log" BOOT-FROM
vm_check "cryptroot asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "every old file and every file written during the conversion checks out" \
	grep -Eq '^FDW-BOOT-OK sums=ok files=3[0-9]{3} root=crypt$' <<<"$res"
vm_check "/boot is the new partition, and GRUB started the kernel from it" \
	grep -q '^FDW-DRIVE BOOT-FROM /dev/vda3 BOOT_IMAGE=/vmlinuz-' <<<"$(drive_line "$VM_WORK/boot3.log" BOOT-FROM)"
vm_check "one partition was added, however often the move was begun" \
	grep -q '^FDW-DRIVE PARTS 3$' <<<"$(drive_line "$VM_WORK/boot3.log" PARTS)"
vm_check "the root is opened under its crypttab name" \
	grep -q '^FDW-DRIVE DMNAME vda1_crypt$' <<<"$(drive_line "$VM_WORK/boot3.log" DMNAME)"
vm_check "the recovery key shown at the preparation opens it" \
	grep -q 'yes$' <<<"$(drive_line "$VM_WORK/boot3.log" RECOVERY-OPENS)"

# 4. Both filesystems checked from a live VM.
unset VM_BOOT_DISK2
vm_run --timeout 600 --disk "$img" "$VM_HERE/guest/system-restart-fsck.sh" "$VM_WORK" \
	/dev/vda1 /dev/vda3
phase "fsck-in-live-vm"
vm_check "the conversion is complete (no reencryption left in the header)" \
	grep -q '^system-restart: REENCRYPT-LEFT no$' "$VM_LOG"
vm_check "e2fsck -f of the encrypted root is clean" grep -q '^system-restart: FSCK rc=0$' "$VM_LOG"
vm_check "e2fsck -f of the new /boot is clean" grep -q '^system-restart: FSCK-BOOT rc=0$' "$VM_LOG"
if [ "$VM_FAILED" != 0 ]; then
	for b in 2 3; do tr -d '\r' <"$VM_WORK/boot$b.log" | tail -n 60; done
fi
vm_finish
