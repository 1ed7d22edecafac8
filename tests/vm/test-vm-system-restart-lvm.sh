#!/bin/bash
# fdewiz VM tests: a root on LVM encrypted with one restart, no live system: the layout of
# Debian's guided "use entire disk and set up LVM" on an EFI machine (installed-image.sh's
# disk-lvm.img: GPT, the ESP on 1, /boot on 2, an LVM physical volume on 3 holding volume
# group fdw-installed-vg with root and swap_1 at its end, no free extents; GRUB for EFI),
# booted from its own disk under OVMF four times, each boot's own steps coming from a
# second disk (guest/system-restart-drive.sh, "lean"):
#   1. its own fdewiz prepares the encryption of the PV under its running root at the next
#      restart (the plan says the volume group's steps; the recovery key escrowed into a
#      folder first, --escrow-dir; the initramfs made again carries the step and LVM's
#      tools);
#   2a. a restart given a wrong passphrase at each of the step's three prompts: the step
#      does not begin, the system starts plain from its volume group, and status and the
#      service say it is still prepared and why this start is plain;
#   2. the restart: the passphrase typed once at the initramfs prompt; fdewiz's step finds
#      the preparation on the root volume, deactivates the volume group that udev opened,
#      makes the header's room at the PV's end (the swap volume 32 MiB smaller, its swap
#      area made again with its UUID, pvresize), writes the header, opens the volume and
#      the volume group inside it; the system comes up with / on a logical volume on
#      dm-crypt while the service converts and files are written; it finishes with crypttab
#      and an initramfs without fdewiz's step;
#   3. Debian's own cryptroot opens the PV, the recovery key typed at its prompt, then lvm
#      the volume group: every old file and every file written during the conversion checks
#      out, the smaller swap volume is in use; the escrowed document is named by the
#      volume's LUKS UUID and its key, the one shown, opens it;
# then a live VM runs e2fsck on the root volume inside the encrypted PV.
# Cost: four OVMF boots and one live VM, about 7 minutes under TCG (measured: 407 s, 351 s
# of CPU, beside another boot test: boots of 142, 46 (the wrong passphrase), 158 and 48 s;
# 305 s without the wrong passphrase's boot in the suite's cold run of b0713d8).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
VM_RESTART_LVM=1
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-restart-lvm
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs mmdebstrap ovmf lvm2
vm_find_fdewiz

vm_installed_copy image_lvm lvm.img
swap_uuid=$(vm_prep lv_swap_uuid)
printf 'restart on lvm, 27' >"$VM_WORK/key"
# Every boot under OVMF (vm_boot_installed).
export VM_BOOT_EFI=1
root_lv=/dev/mapper/fdw--installed--vg-root

# Its first restart is given a wrong passphrase (stepfail); the preparation escrows the
# recovery key into a folder of the drive (escrow).
vm_restart_drive /dev/vda3 lean stepfail escrow

# 1. Plain, on LVM: its own fdewiz prepares the restart.
vm_restart_lean_arm "$img" "root=$root_lv type=lvm" \
	'volume group fdw-installed-vg deactivated; 32 MiB made free at the end of its physical volume'
t0=$(date +%s)
vm_check "the plan says there is no benchmark of a PV, and why" \
	bash -c "tr -d '\r' <'$VM_WORK/boot1.log' | grep -aq '^FDW-DRIVE ARM-OUT   benchmark: *none (an LVM physical volume holds no filesystem'"
vm_check "the recovery key escrowed at the preparation: one document named by a UUID, mode 0600" \
	grep -Eq '^FDW-DRIVE ESCROWED [0-9a-f-]{36}\.json 600$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" ESCROWED)"
vm_check "it carries LVM's tools for the room (pvresize, lvreduce) and util-linux's mkswap" \
	grep -q '^FDW-DRIVE INITRD-LVM 3$' <<<"$(vm_drive_line "$VM_WORK/boot1.log" INITRD-LVM)"

# 2a. The restart with a wrong passphrase typed at each of the step's three prompts: the
# step does not begin; the system starts plain from its volume group, still prepared, and
# says why at that start.
printf 'not the passphrase' >"$VM_WORK/wrong-key"
log=$VM_WORK/boot2f.log
vm_boot_installed "$img" "$log" "$VM_WORK/wrong-key" 900
echo "$VM_NAME: TIMING boot-2-wrong-passphrase ${VM_BOOT_SECONDS}s in qemu"
not_begun=$(vm_drive_line "$log" STEP-NOT-BEGUN)
service=$(vm_drive_line "$log" STEP-SERVICE)
printf '%s\n%s\n' "$not_begun" "$service"
vm_check "asked three times, then started plain from its volume group, every file good" \
	bash -c "[ '$VM_BOOT_PROMPTS' = 3 ] &&
		grep -q '^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=lvm\$' <<<'$(vm_boot_result "$log")'"
vm_check "status: still prepared, and why this start is plain" \
	grep -q 'prepared: encrypted at the next restart .*At this start its step did not begin: the passphrase typed at the start did not open the prepared header' <<<"$not_begun"
vm_check "the service: the step did not encrypt it, why, still prepared; nothing failed" \
	grep -q "^FDW-DRIVE STEP-SERVICE success .*did not encrypt /dev/vda3: the passphrase typed at the start did not open the prepared header. It stays prepared for the next restart" <<<"$service"

# 2. The restart: the step in the initramfs, then the service converts.
vm_restart_converts "$img" "$VM_WORK/key" vda3_crypt 0
t0=$(date +%s)
# In a file, not inside the check's quotes: the step logs what its tools said, quotes
# and all ("Please run 'e2fsck -f /dev/vda2' first" for a /boot not cleanly unmounted).
steplog=$VM_WORK/steplog
{ tr -d '\r' <"$VM_WORK/boot2.log" | grep -a '^FDW-DRIVE STEPLOG ' || true; } >"$steplog"
grep 'lvm room\|volume group' "$steplog" || true
vm_check "the step made the room: the swap volume shrank, its swap area made again, pvresize" \
	bash -c "grep -q 'lvm room: swap-reduced' '$steplog' && grep -q 'lvm room: swap-made' '$steplog' &&
		grep -q 'lvm room: pv-resized' '$steplog'"
vm_check "the system came up with / on the logical volume, on dm-crypt" \
	grep -q "root=$root_lv type=lvm crypt=vda3_crypt\$" <<<"$(vm_drive_line "$VM_WORK/boot2.log" 'PHASE convert')"

# 3. Debian's own boot of the encrypted PV; the recovery key typed at cryptroot's prompt.
vm_restart_recovery
vm_restart_final "$img" "$VM_WORK/recovery" vda3_crypt
vm_check "the escrowed document is named by the volume's LUKS UUID, holds the key shown, which opens it" \
	grep -q '^FDW-DRIVE ESCROW-FINAL name=luks-uuid key=same opens=yes$' <<<"$(vm_drive_line "$VM_WORK/boot3.log" ESCROW-FINAL)"
vm_check "/ is a logical volume on dm-crypt on partition 3" \
	bash -c "tr -d '\r' <'$VM_WORK/boot3.log' | grep -aq '^FDW-ROOT-CHAIN lvm,crypt,part,disk,'"
vm_check "the swap volume is in use, about 96 MiB (32 MiB gave the header its room)" \
	bash -c "grep -Eq '^FDW-DRIVE SWAPS /dev/dm-[0-9]+ 1006[0-9]{5} ' <<<'$(vm_drive_line "$VM_WORK/boot3.log" SWAPS)' &&
		tr -d '\r' <'$VM_WORK/boot3.log' | grep -aq '^FDW-SWAP .*dmtype=lvm'"

# 4. The root volume checked from a live VM.
vm_restart_fsck "$img" /dev/vda3
vm_check "the volume group inside: root, and swap_1 at 96 MiB" \
	grep -Eq '^system-restart: LVS .*swap_1 96\.00m' "$VM_LOG"
vm_check "the swap area made again kept its UUID" \
	grep -q "^system-restart: SWAP-UUID $swap_uuid\$" "$VM_LOG"
if [ "$VM_FAILED" != 0 ]; then
	for b in 1 2 3; do tr -d '\r' <"$VM_WORK/boot$b.log" | tail -n 60; done
fi
vm_finish
