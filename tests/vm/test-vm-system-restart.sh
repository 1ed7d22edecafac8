#!/bin/bash
# fdewiz VM tests: the running system's root encrypted with one restart, no live system.
# installed-image.sh's disk.img (GRUB for BIOS, /boot on 1, / on 2, swap on 3) boots from
# its own disk three times, each boot's own steps coming from a second disk
# (guest/system-restart-drive.sh, run by the image's check unit):
#   1. fdewiz is installed in it and runs there: the wizard, in tmux, prepares the
#      encryption of its own root at the next restart (the running root offered, the
#      plan, the passphrase, the recovery key shown, the initramfs made again carrying
#      the step); opened again it shows the preparation and cancels it (an initramfs
#      without the step); then 'encrypt --at-restart' prepares it again;
#   2. the restart: the passphrase typed once at the initramfs prompt, fdewiz's step
#      shrinks the root and writes the header before the root is mounted, the system
#      comes up on dm-crypt; files are written while the service converts in the
#      background; it finishes with crypttab and an initramfs without fdewiz's step;
#      the service's first run meets a battery at 10 % (fdewiz's power-supply test
#      folder) and waits for the charger, goes on once it is plugged in, is paused with
#      'fdewiz pause', stays paused across a restart, and 'fdewiz resume' goes on with it;
#      the power is cut four times on the way (below), each boot after it goes on (the
#      before/after benchmark: test-vm-system-restart-carve.sh, whose root has the room;
#      this one's is left with 91 MiB free by the files written, and the after-run rightly
#      refuses: it needs 128 MiB);
#   3. Debian's own cryptroot opens the root (the passphrase typed once): every old file
#      and every file written during the conversion checks out, the recovery key opens it;
# then a live VM checks the filesystem in full (e2fsck -f).
# Cost: seven SeaBIOS boots (four of them cut short) and one live VM, about 12 minutes
# under TCG.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-restart
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs mmdebstrap
vm_find_fdewiz

t0=$(date +%s)
phase() { echo "$VM_NAME: TIMING $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

prep=$("$VM_HERE/installed-image.sh") || { vm_fail "building the installed image"; vm_finish; }
cached=$(sed -n 's/^image=//p' <<<"$prep")
phase "image-ready (cached or built)"
img=$VM_WORK/disk.img
cp --sparse=always "$cached" "$img"
chmod 0644 "$img"
printf 'restart passphrase 27, typed once' >"$VM_WORK/key"

# The drive (vm_restart_drive): the guest's script, fdewiz, the passphrase, the phase, and
# the wizard's script with the tmux helpers it uses.
cp "$VM_HERE/guest/system-restart-wizard.sh" "$VM_WORK/wizard.sh"
vm_restart_drive /dev/vda2 "$VM_WORK/wizard.sh" "$VM_HERE/../lib/tmux.sh"

# 1. Plain, its own fdewiz prepares the restart.
vm_boot_installed "$img" "$VM_WORK/boot1.log" "" 1200
phase "boot-1-prepare (${VM_BOOT_SECONDS}s in qemu)"
tr -d '\r' <"$VM_WORK/boot1.log" | grep -a '^FDW-DRIVE \(PLAN\|ARM\|CAPTURE\|WIZ\)' || true
for c in PLAN RECOVERY; do
	tr -d '\r' <"$VM_WORK/boot1.log" | grep -a "^FDW-DRIVE CAPTURE-$c " >"$VM_WORK/capture-$c" || true
done
vm_check "the plan says the restart, the initramfs step and the background conversion" \
	bash -c "tr -d '\r' <'$VM_WORK/boot1.log' | grep -aq '^FDW-DRIVE PLAN .*At the next restart, before the system starts'"
vm_check "the wizard offered the running root and showed its plan at the next restart" \
	bash -c "grep -q 'holds the running system' '$VM_WORK/capture-PLAN' &&
		grep -q 'At the next restart, before the system starts' '$VM_WORK/capture-PLAN'"
vm_check "the wizard prepared it and showed the recovery key once" \
	grep -Eq '[A-Z0-9]{6}(-[A-Z0-9]{6}){7}' "$VM_WORK/capture-RECOVERY"
vm_check "after the wizard the initramfs carries the step, the service is enabled, it quit with 0" \
	bash -c "grep -q ' 5$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-INITRD-STEP)' &&
		grep -q ' enabled$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-SERVICE)' &&
		grep -q ' 0$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-EXIT)'"
vm_check "opened again, the wizard showed the preparation and cancelled it: no step, no file left" \
	bash -c "grep -q ' 0$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-CANCELLED-INITRD)' &&
		grep -q ' 0$' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-CANCELLED-FILES)' &&
		grep -q 'WIZ-DONE' <<<'$(vm_drive_line "$VM_WORK/boot1.log" WIZ-DONE)'"
vm_check "encrypt --at-restart prepared it again (no baseline benchmark)" \
	grep -q "rc=0 .*baseline=0\$" \
	<<<"$(vm_drive_line "$VM_WORK/boot1.log" 'ARM ')"
vm_check "a recovery key was shown" \
	grep -q '^FDW-DRIVE RECOVERY-SHOWN 56$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" RECOVERY-SHOWN)"
vm_check "the new initramfs carries fdewiz, its script, the stage and the header, resize2fs" \
	grep -q '^FDW-DRIVE INITRD-STEP 5$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" INITRD-STEP)"
vm_check "the service is enabled" \
	grep -q '^FDW-DRIVE SERVICE enabled$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" 'SERVICE ')"
vm_check "the prepared system still booted plain, all files good" \
	grep -q '^FDW-BOOT-OK sums=ok files=3000 root=part$' <<<"$(vm_boot_result "$VM_WORK/boot1.log")"

# 2. The restart, with the power cut four times on the way: inside fdewiz's step in the
# initramfs right after it opened the volume, while the conversion is paused, during the
# online conversion, while the boot is set up; each at a random moment after its mark on the
# console. Every boot after a cut asks for the passphrase and goes on by itself. (Cuts while
# the step shrinks the root and writes the header: test-vm-system-restart-carve.sh, whose
# step does both after moving /boot.)
# vm_boot_cut (installed-lib.sh): boot with the passphrase typed, cut as it says.
boot_cut() { vm_boot_cut "2$1" "$img" "$VM_WORK/key" "$2" "$3"; t0=$(date +%s); }
boot_cut c '^fdewiz: the root is encrypted from here on' 5
boot_cut d '^FDW-DRIVE PAUSED-MARK' 30
vm_check "on battery at 10 % the service waited for the charger at a safe point" \
	grep -q 'waiting for the charger' <<<"$(vm_drive_line "$VM_WORK/boot-2d.log" GUARD-WAIT)"
vm_check "nothing moved while it waited" \
	grep -Eq '^FDW-DRIVE GUARD-HELD ([0-9.]+%) \1$' <<<"$(vm_drive_line "$VM_WORK/boot-2d.log" GUARD-HELD)"
vm_check "the charger plugged in, it went on by itself" \
	grep -q ' running ' <<<"$(vm_drive_line "$VM_WORK/boot-2d.log" GUARD-GOES-ON)"
vm_check "'fdewiz pause' paused it, nothing moved, the service ended without a failure" \
	grep -Eq '^FDW-DRIVE PAUSED rc=0 .* paused .* held=([0-9.]+%),\1 service=inactive,success$' \
	<<<"$(vm_drive_line "$VM_WORK/boot-2d.log" 'PAUSED ')"
boot_cut e 'FDW-DRIVE STATUS /dev/vda2 *running *[1-8][0-9]\.[0-9]%' 20
vm_check "after a restart it stayed paused, and the service said so" \
	grep -Eq '^FDW-DRIVE STILL-PAUSED .* paused .* held=([0-9.]+%),\1 service=success said=[1-9]' \
	<<<"$(vm_drive_line "$VM_WORK/boot-2e.log" STILL-PAUSED)"
vm_check "'fdewiz resume' went on with it in the background" \
	grep -q '^FDW-DRIVE RESUMED rc=0 .* running ' <<<"$(vm_drive_line "$VM_WORK/boot-2e.log" RESUMED)"
boot_cut f 'FDW-DRIVE STATUS /dev/vda2 *running (setting up the boot)' 150
vm_check "the power was cut four times: once in the initramfs step, three after it" [ "$VM_CUTS" = 4 ]
vm_restart_converts "$img" "$VM_WORK/key" vda2_crypt 0
t0=$(date +%s)

# 3. Debian's own boot of the encrypted root.
vm_restart_final "$img" "$VM_WORK/key" vda2_crypt

# 4. The whole filesystem checked from a live VM.
vm_restart_fsck "$img" /dev/vda2
if [ "$VM_FAILED" != 0 ]; then
	for b in 2 3; do tr -d '\r' <"$VM_WORK/boot$b.log" | tail -n 60; done
fi
vm_finish
