#!/bin/bash
# fdewiz VM tests: a btrfs root encrypted with one restart, no live system: the layout
# Debian's installer makes on btrfs on an EFI machine (installed-image.sh's disk-btrfs.img:
# GPT, the ESP on 1, /boot on 2, btrfs on 3 holding the root in subvolume @rootfs, swap on
# 4; GRUB for EFI), booted from its own disk under OVMF four times, each boot's own steps
# coming from a second disk (guest/system-restart-drive.sh, "lean": the wizard, the battery
# guard, the pause and the power cuts are test-vm-system-restart.sh's):
#   1. its own fdewiz prepares the encryption of its running root at the next restart (the
#      plan, the recovery key shown; the initramfs made again carrying the step, the stage
#      and the btrfs tool);
#   2. the restart: the passphrase typed once at the initramfs prompt; fdewiz's step checks
#      the unmounted btrfs (btrfs check), shrinks it (mounted privately), writes the header
#      and opens the volume; the system comes up with the subvolume on dm-crypt while the
#      service converts; at a twentieth the machine is suspended to RAM (systemd's
#      suspend, S3) and an RTC alarm wakes it 15 s later: the conversion goes on by itself,
#      its journal says how long it slept and where, status says "asleep 0:15 (not
#      counted)"; once it has converted a tenth the system is restarted cleanly
#      ('systemctl reboot'): at that shutdown the service stops at a safe point, as
#      interrupted (not paused), and says where in its journal (kept on disk for the
#      test), failing nothing; the next start asks once and the service goes on by itself
#      while files are written; at half an update-initramfs is started (as apt's after an
#      update), held by a hook of the test's after cryptroot's until the service, setting
#      up the boot, says it waits for it: the service makes its own once it has ended; it
#      finishes with crypttab and an initramfs without fdewiz's step;
#   3. Debian's own cryptroot opens it, the recovery key typed at its prompt: every old file
#      and every file written during the conversion checks out, / is the subvolume;
# then a live VM runs btrfs check inside the volume.
# Cost: four OVMF boots and one live VM, about 7 minutes under TCG (measured 375 s, 339 s of
# CPU, alone, with the sleep: it adds the 15 s asleep and a few to wake; 403 s beside the
# other tiers in the suite's cold run of b0713d8, without it). The racing update-initramfs
# adds about 70 s, the service waiting for it (measured: 865 s in all beside another boot
# test; the boot set up in 143 s, 69 of them waiting).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-restart-btrfs
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs mmdebstrap ovmf btrfs-progs
vm_find_fdewiz

vm_installed_copy image_btrfs btrfs.img
subvol=$(vm_prep bt_subvol)
printf 'restart on btrfs, 27' >"$VM_WORK/key"
# Every boot under OVMF (vm_boot_installed).
export VM_BOOT_EFI=1

# With the plan alone first (dryrun): 'encrypt --at-restart --dry-run' in one of the tests;
# a suspend to RAM (sleep) and a clean restart (reboot) during the conversion; an
# update-initramfs of the person's racing the service's own at the end (race).
vm_restart_drive /dev/vda3 lean dryrun sleep reboot race

# 1. Plain, on btrfs (/ the subvolume): its own fdewiz prepares the restart.
vm_restart_lean_arm "$img" 'root=/dev/vda3 type=part' ' checked and shrunk by 32 MiB'
t0=$(date +%s)
vm_check "it carries the btrfs tool and module" \
	grep -q '^FDW-DRIVE INITRD-BTRFS [2-9]$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" INITRD-BTRFS)"

# 2. The restart: the step in the initramfs, then the service converts; at a tenth the
# system is restarted cleanly ('systemctl reboot', as at the end of a day), and the next
# start goes on by itself.
log=$VM_WORK/boot2s.log
vm_boot_installed "$img" "$log" "$VM_WORK/key" 1800
echo "$VM_NAME: TIMING boot-2-shutdown ${VM_BOOT_SECONDS}s in qemu"
slept=$(vm_drive_line "$log" SLEPT)
echo "$slept"
tr -d '\r' <"$log" | grep -a '^FDW-DRIVE SLEEP-JOURNAL ' || true
vm_check "suspended to RAM mid-conversion (S3), woken by the RTC: it went on by itself, and said it slept" \
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { exit !(v["deep"] == 1 && v["noted"] == 1 && v["p2"] + 0 > v["p1"] + 0) }' <<<"$slept"
vm_check "status after the wake: running, the sleep shown and not counted" \
	grep -Eq 'after=/dev/vda3 running .* asleep 0:[0-9]{2} \(not counted\)' <<<"$slept"
vm_drive_line "$log" REBOOTING
vm_check "the service converted, then the system restarted cleanly (systemctl reboot)" \
	bash -c "grep -Eq '^FDW-DRIVE REBOOTING /dev/vda3 running [1-9][0-9]\.' <<<'$(vm_drive_line "$log" REBOOTING)' &&
		tr -d '\r' <'$log' | grep -aq 'reboot: Restarting system'"
vm_restart_converts "$img" "$VM_WORK/key" vda3_crypt 0
t0=$(date +%s)
tr -d '\r' <"$VM_WORK/boot2.log" | grep -a '^FDW-DRIVE PREV-' || true
vm_check "at the shutdown the service stopped at a safe point, said where, and failed nothing" \
	grep -q '^FDW-DRIVE PREV-STOP 1 0$' <<<"$(vm_drive_line "$VM_WORK/boot2.log" PREV-STOP)"
vm_drive_line "$VM_WORK/boot2.log" RACE-STARTED
vm_check "an update-initramfs begun at half, held after cryptroot's hook until the service waited for it: the service made its own once it had ended" \
	bash -c "grep -q '^FDW-DRIVE RACE-BUILD rc=0 waited=1$' <<<'$(vm_drive_line "$VM_WORK/boot2.log" RACE-BUILD)' &&
		grep -q '^FDW-DRIVE RACE-RELEASED .*(setting up the boot)' <<<'$(vm_drive_line "$VM_WORK/boot2.log" RACE-RELEASED)'"
# The step itself ran at the first restart (boot2s.log); the second one only opened it.
vm_check "the step checked the btrfs (no error found) and shrank it before the header" \
	bash -c "tr -d '\r' <'$VM_WORK/boot2s.log' | grep -aq '^FDW-DRIVE STEPLOG info: btrfs: .*no error found' &&
		tr -d '\r' <'$VM_WORK/boot2s.log' | grep -aq '^FDW-DRIVE STEPLOG info: btrfs: Resize device id 1 (/dev/vda3)'"

# 3. Debian's own boot of the encrypted root; the recovery key typed at cryptroot's prompt.
vm_restart_recovery
vm_restart_final "$img" "$VM_WORK/recovery" vda3_crypt
vm_check "/ is subvolume $subvol of the btrfs, on dm-crypt on partition 3" \
	bash -c "tr -d '\r' <'$VM_WORK/boot3.log' | grep -aq '^FDW-ROOT-FS fstype=btrfs fsroot=/$subvol\$' &&
		tr -d '\r' <'$VM_WORK/boot3.log' | grep -aq '^FDW-ROOT-CHAIN crypt,part,disk,'"
vm_check "its swap is on dm-crypt (a random key at each start)" \
	bash -c "tr -d '\r' <'$VM_WORK/boot3.log' | grep -aq '^FDW-SWAP .*dmtype=crypt'"

# 4. The filesystem checked from a live VM.
vm_restart_fsck "$img" /dev/vda3
if [ "$VM_FAILED" != 0 ]; then
	for b in 1 2 3; do tr -d '\r' <"$VM_WORK/boot$b.log" | tail -n 60; done
fi
vm_finish
