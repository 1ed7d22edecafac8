#!/bin/bash
# fdewiz VM tests: the running system's root encrypted with one restart, no live system, on
# the layout Debian's installer makes by default ("all files in one partition";
# installed-image.sh's disk-bootinside.img: / with /boot a folder inside it on partition 1,
# swap on 2, GRUB for BIOS in the MBR). It boots from its own disk, each boot's own steps
# coming from a second disk (guest/system-restart-drive.sh, run by the image's check unit):
#   1. fdewiz is installed in it and runs there: the wizard, in tmux, prepares the
#      encryption of its own root at the next restart (the running root offered, the plan
#      saying /boot becomes a partition of its own first, the passphrase, the recovery key
#      shown, the initramfs made again carrying the step); opened again it shows the
#      preparation, and q leaves it prepared, saying how to undo it (the command line
#      prepares in test-vm-system-restart-lvm.sh and -btrfs.sh); then a kernel update: a
#      kernel package of another version installed with dpkg (its initramfs made with the
#      step), the kernel it was prepared on removed, status naming the kernels that carry
#      the step at each moment;
#   2. the restart, through the new kernel: the passphrase typed once at the initramfs
#      prompt; fdewiz's step, with
#      the root unmounted, shrinks it, makes /boot a partition of its own (split, copy,
#      fstab, GRUB reinstalled from a chroot of the root), writes the header and opens the
#      volume; the system comes up on dm-crypt; files are written while the service
#      converts in the background; it finishes with crypttab and an initramfs without
#      fdewiz's step; the service's first run meets a battery at 10 % (fdewiz's
#      power-supply test folder) and waits for the charger, goes on once it is plugged in,
#      refuses 'fdewiz cancel' (begun, it cannot be undone), is paused with 'fdewiz
#      pause', stays paused across a restart, and 'fdewiz resume' goes on with it; the power is cut five times on the way (below), each boot after it
#      starting (from the old GRUB or the new one), asking for the passphrase and going on;
#   3. Debian's own cryptroot opens the root from the new /boot (GRUB reads it there), the
#      recovery key shown at the preparation typed at its prompt: every old file and every
#      file written during the conversion checks out;
# then a live VM checks both filesystems in full (e2fsck -f).
# With FDEWIZ_VM_RESTART_BENCH=1 the plain root's baseline benchmark (at the preparation)
# is compared with the encrypted one's at the end (minutes more; the suite leaves it out).
# Cost: eight SeaBIOS boots (five of them cut short) and one live VM: about 14 minutes under
# TCG with a second emulated machine beside it, as in the suite (measured there: 846 s; 994
# s when the first boot also cancelled the wizard's preparation and prepared again from the
# command line). The kernel update adds about 4 minutes to the first boot (measured: 1325
# s in all beside another boot test, the first boot 479 s, of which the new kernel's dpkg
# -i took 197 s, its initramfs made with the step, and the old one's removal 22 s).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-restart
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs mmdebstrap
vm_find_fdewiz

vm_installed_copy image_bootinside bootinside.img
printf 'restart passphrase 27, typed once' >"$VM_WORK/key"

# The drive (vm_restart_drive): the guest's script, fdewiz, the passphrase, the root, the
# phase, the wizard's script with the tmux helpers it uses; with the before/after
# benchmark when FDEWIZ_VM_RESTART_BENCH=1.
bench=${FDEWIZ_VM_RESTART_BENCH:-0}
cp "$VM_HERE/guest/system-restart-wizard.sh" "$VM_WORK/wizard.sh"
# A kernel update once it is prepared: a kernel package of another version (fetched once
# into the test cache), installed by the guest, the image's own kernel then removed.
kernel_old=$(vm_prep kernel)
kernel_deb=$(vm_second_kernel_deb "$kernel_old")
[ -n "$kernel_deb" ] || { vm_fail "a kernel package other than $kernel_old to install"; vm_finish; }
kernel_new=$(dpkg-deb -f "$kernel_deb" Package | sed 's/^linux-image-//')
vm_restart_drive /dev/vda1 "$VM_WORK/wizard.sh" "$VM_HERE/../lib/tmux.sh" "$kernel_deb" \
	$([ "$bench" = 0 ] || echo bench)

# 1. Plain, /boot inside the root: its own fdewiz prepares the restart.
vm_boot_installed "$img" "$VM_WORK/boot1.log" "" 1200
phase "boot-1-prepare (${VM_BOOT_SECONDS}s in qemu)"
tr -d '\r' <"$VM_WORK/boot1.log" | grep -a '^FDW-DRIVE \(PLAN\|ARM\|BOOT-BEFORE\|INITRD\|WIZ\)' || true
for c in PLAN RECOVERY REOPENED FAREWELL; do
	tr -d '\r' <"$VM_WORK/boot1.log" | grep -a "^FDW-DRIVE CAPTURE-$c " |
		sed "s/^FDW-DRIVE CAPTURE-$c | //" >"$VM_WORK/capture-$c" || true
done
vm_check "before: /boot is a folder inside the root, the disk has two partitions" \
	grep -q '^FDW-DRIVE BOOT-BEFORE inside parts=2$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" BOOT-BEFORE)"
vm_check "the wizard offered the running root and showed its plan at the next restart" \
	bash -c "grep -q 'holds the running system' '$VM_WORK/capture-PLAN' &&
		grep -q 'At the next restart, before the system starts' '$VM_WORK/capture-PLAN'"
# Each step of the plan whole (the step at the restart takes six lines at 100 columns).
vm_check "the plan says /boot made a partition of its own, every step whole" \
	bash -c "tr '\n' ' ' <'$VM_WORK/capture-PLAN' | tr -s ' ' |
		grep -q '/boot made a partition of its own (512 MiB from the root.s end.* the step is tried again at the next restart\. 3\. In the started system'"
vm_check "the wizard prepared it and showed the recovery key once" \
	grep -Eq '[A-Z0-9]{6}(-[A-Z0-9]{6}){7}' "$VM_WORK/capture-RECOVERY"
vm_check "opened again, the wizard showed the preparation; q left it prepared, saying how to undo it" \
	bash -c "grep -q 'Prepared: /dev/vda1 is encrypted at the next restart' '$VM_WORK/capture-REOPENED' &&
		tr '\n' ' ' <'$VM_WORK/capture-FAREWELL' | grep -q \"'fdewiz cancel' undoes\" &&
		grep -q ' 0$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-REOPENED-EXIT)'"
vm_restart_prepared "$VM_WORK/boot1.log" "$([ "$bench" = 0 ] && echo 0 || echo 1)"
vm_check "it carries the planned move of /boot, mke2fs, coreutils' cp and chroot" \
	grep -q '^FDW-DRIVE INITRD-MOVE 4$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" INITRD-MOVE)"
# The kernel update while prepared: installed, the step in its initramfs too; the kernel
# the preparation was made on removed; status names the kernels that carry the step.
tr -d '\r' <"$VM_WORK/boot1.log" | grep -a '^FDW-DRIVE \(KERNEL\|STATUS-\|GRUB-\)' || true
# (That its initramfs carries the step whole is what the restart through it shows: its
# step moves /boot and writes the header, below; a listing here was 15 s more.)
vm_check "a new kernel ($kernel_new) installed with dpkg once prepared, its initramfs made" \
	grep -q "^FDW-DRIVE KERNEL-INSTALLED $kernel_new rc=0 initrd=1\$" <<<"$(vm_drive_line "$VM_WORK/boot1.log" KERNEL-INSTALLED)"
vm_check "status then names both kernels, the step in their initramfs" \
	grep -q "prepared: encrypted at the next restart (its step is in the initramfs of $kernel_old, $kernel_new; " \
	<<<"$(vm_drive_line "$VM_WORK/boot1.log" STATUS-TWO-KERNELS)"
vm_check "the kernel it was prepared on removed, GRUB's menu names the new one alone" \
	bash -c "grep -q '^FDW-DRIVE KERNEL-REMOVED $kernel_old rc=0 left=/boot/vmlinuz-$kernel_new \$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" KERNEL-REMOVED)' &&
		grep -q '^FDW-DRIVE GRUB-KERNELS vmlinuz-$kernel_new \$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" GRUB-KERNELS)'"
vm_check "status then names the new kernel alone" \
	grep -q "prepared: encrypted at the next restart (its step is in the initramfs of $kernel_new; " \
	<<<"$(vm_drive_line "$VM_WORK/boot1.log" STATUS-NEW-KERNEL)"

# 2. The restart, with the power cut five times on the way, each at a random moment after
# its mark on the console: inside the move of /boot; after the move (done again from the
# start: the shrink and the split found made) while the header is written; while the
# conversion is paused; during the online conversion; while the boot is set up. Every boot
# after a cut asks for the passphrase and goes on by itself. Every boot after the header
# was written opens the volume again in the step, so a cut right after that opening is
# not one of them (it proved nothing those boots do not, for 53 s of the suite).
# vm_boot_cut (installed-lib.sh): boot with the passphrase typed, cut as it says.
boot_cut() { vm_boot_cut "2$1" "$img" "$VM_WORK/key" "$2" "$3"; t0=$(date +%s); }
boot_cut a '^fdewiz: making /boot a partition of its own' 150
boot_cut b '^fdewiz: writing the LUKS2 header' 15
vm_check "after the cut inside the move the system started again and the step went on" \
	bash -c "tr -d '\r' <'$VM_WORK/boot-2b.log' | grep -aq '^fdewiz: making /boot a partition of its own'"
boot_cut c '^FDW-DRIVE PAUSED-MARK' 30
vm_check "on battery at 10 % the service waited for the charger at a safe point" \
	grep -q 'waiting for the charger' <<<"$(vm_drive_line "$VM_WORK/boot-2c.log" GUARD-WAIT)"
vm_check "nothing moved while it waited" \
	grep -Eq '^FDW-DRIVE GUARD-HELD ([0-9.]+%) \1$' <<<"$(vm_drive_line "$VM_WORK/boot-2c.log" GUARD-HELD)"
vm_check "the charger plugged in, it went on by itself" \
	grep -q ' running ' <<<"$(vm_drive_line "$VM_WORK/boot-2c.log" GUARD-GOES-ON)"
vm_check "begun at the restart, 'fdewiz cancel' refused: it cannot be undone, pause it instead" \
	grep -q '^FDW-DRIVE CANCEL-REFUSED rc=1 .*has begun (at a restart) and cannot be undone; pause it with: fdewiz pause /dev/vda1' \
	<<<"$(vm_drive_line "$VM_WORK/boot-2c.log" CANCEL-REFUSED)"
vm_check "'fdewiz pause' paused it, nothing moved, the service ended without a failure" \
	grep -Eq '^FDW-DRIVE PAUSED rc=0 .* paused .* held=([0-9.]+%),\1 service=inactive,success$' \
	<<<"$(vm_drive_line "$VM_WORK/boot-2c.log" 'PAUSED ')"
boot_cut d 'FDW-DRIVE STATUS /dev/vda1 *running *[1-8][0-9]\.[0-9]%' 20
vm_check "after a restart it stayed paused, and the service said so" \
	grep -Eq '^FDW-DRIVE STILL-PAUSED .* paused .* held=([0-9.]+%),\1 service=success said=[1-9]' \
	<<<"$(vm_drive_line "$VM_WORK/boot-2d.log" STILL-PAUSED)"
vm_check "'fdewiz resume' went on with it in the background" \
	grep -q '^FDW-DRIVE RESUMED rc=0 .* running ' <<<"$(vm_drive_line "$VM_WORK/boot-2d.log" RESUMED)"
boot_cut e 'FDW-DRIVE STATUS /dev/vda1 *running (setting up the boot)' 150
vm_check "the power was cut five times: two in the initramfs step, three after it" [ "$VM_CUTS" = 5 ]
vm_restart_converts "$img" "$VM_WORK/key" vda1_crypt "$bench"
# The start after the cut in the boot setup, whose old initramfs still names the plain swap
# that the setup replaced as its resume device: fdewiz's step cleared it (the stage says the
# swap is replaced), so nothing waited for it (it was 30 s at each such start).
vm_check "the start after the cut in the boot setup waited for no resume device" \
	bash -c "! tr -d '\r' <'$VM_WORK/boot2.log' | grep -aq 'Waiting for suspend/resume device'"
vm_check "the restart went through the new kernel ($kernel_new)" \
	grep -q "^FDW-DRIVE KERNEL-RUNNING $kernel_new\$" <<<"$(vm_drive_line "$VM_WORK/boot2.log" KERNEL-RUNNING)"
t0=$(date +%s)

# 3. Debian's own boot of the encrypted root, GRUB reading the new /boot; the recovery key
# shown at the preparation (kept on the drive by its guest) typed at cryptroot's prompt.
vm_restart_recovery
vm_restart_final "$img" "$VM_WORK/recovery" vda1_crypt
vm_check "/boot is the new partition, and GRUB started the kernel from it" \
	grep -q "^FDW-DRIVE BOOT-FROM /dev/vda3 BOOT_IMAGE=/vmlinuz-$kernel_new\$" <<<"$(vm_drive_line "$VM_WORK/boot3.log" BOOT-FROM)"
vm_check "one partition was added, however often the move was begun" \
	grep -q '^FDW-DRIVE PARTS 3$' <<<"$(vm_drive_line "$VM_WORK/boot3.log" PARTS)"

# 4. Both filesystems checked from a live VM.
vm_restart_fsck "$img" /dev/vda1 /dev/vda3
if [ "$VM_FAILED" != 0 ]; then
	for b in 2 3; do tr -d '\r' <"$VM_WORK/boot$b.log" | tail -n 60; done
fi
vm_finish
