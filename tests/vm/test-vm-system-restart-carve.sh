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

prep=$("$VM_HERE/installed-image.sh") || { vm_fail "building the installed image"; vm_finish; }
cached=$(sed -n 's/^image_bootinside=//p' <<<"$prep")
phase "image-ready (cached or built)"
img=$VM_WORK/bootinside.img
cp --sparse=always "$cached" "$img"
chmod 0644 "$img"
printf 'restart with /boot inside, 27' >"$VM_WORK/key"

# The drive (vm_restart_drive), lean; with the before/after benchmark when
# FDEWIZ_VM_RESTART_BENCH=1.
bench=${FDEWIZ_VM_RESTART_BENCH:-0}
vm_restart_drive /dev/vda1 lean $([ "$bench" = 0 ] || echo bench)

# 1. Plain, /boot inside the root: its own fdewiz prepares the restart.
vm_boot_installed "$img" "$VM_WORK/boot1.log" "" 1200
phase "boot-1-prepare (${VM_BOOT_SECONDS}s in qemu)"
tr -d '\r' <"$VM_WORK/boot1.log" | grep -a '^FDW-DRIVE \(PLAN\|ARM\|BOOT-BEFORE\|INITRD\)' || true
vm_check "before: /boot is a folder inside the root, the disk has two partitions" \
	grep -q '^FDW-DRIVE BOOT-BEFORE inside parts=2$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" BOOT-BEFORE)"
vm_check "the plan says /boot becomes a partition of its own at the restart" \
	bash -c "tr -d '\r' <'$VM_WORK/boot1.log' | grep -aq '^FDW-DRIVE PLAN .*/boot made a partition of its own (512 MiB from the root.s end'"
vm_check "encrypt --at-restart prepared it (baseline benchmark: $bench)" \
	grep -q "rc=0 .*baseline=$([ "$bench" = 0 ] && echo 0 || echo 1)\$" \
	<<<"$(vm_drive_line "$VM_WORK/boot1.log" 'ARM ')"
vm_check "a recovery key was shown" \
	grep -q '^FDW-DRIVE RECOVERY-SHOWN 56$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" RECOVERY-SHOWN)"
vm_check "the new initramfs carries the step, the stage and the header" \
	grep -q '^FDW-DRIVE INITRD-STEP 5$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" INITRD-STEP)"
vm_check "it carries the planned move of /boot, mke2fs, coreutils' cp and chroot" \
	grep -q '^FDW-DRIVE INITRD-MOVE 4$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" INITRD-MOVE)"
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
vm_restart_converts "$img" "$VM_WORK/key" vda1_crypt "$bench"
t0=$(date +%s)

# 3. Debian's own boot of the encrypted root, GRUB reading the new /boot.
vm_restart_final "$img" "$VM_WORK/key" vda1_crypt
vm_drive_line "$VM_WORK/boot3.log" BOOT-FROM
vm_check "/boot is the new partition, and GRUB started the kernel from it" \
	grep -q '^FDW-DRIVE BOOT-FROM /dev/vda3 BOOT_IMAGE=/vmlinuz-' <<<"$(vm_drive_line "$VM_WORK/boot3.log" BOOT-FROM)"
vm_check "one partition was added, however often the move was begun" \
	grep -q '^FDW-DRIVE PARTS 3$' <<<"$(vm_drive_line "$VM_WORK/boot3.log" PARTS)"

# 4. Both filesystems checked from a live VM.
vm_restart_fsck "$img" /dev/vda1 /dev/vda3
if [ "$VM_FAILED" != 0 ]; then
	for b in 2 3; do tr -d '\r' <"$VM_WORK/boot$b.log" | tail -n 60; done
fi
vm_finish
