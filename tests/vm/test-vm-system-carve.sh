#!/bin/bash
# fdewiz VM tests: an installed Debian 12 laid out as its installer's "all files in one
# partition" on BIOS (installed-image.sh's disk-bootinside.img: / with /boot inside on
# partition 1, swap on 2, GRUB in the MBR). Its root is encrypted from a live VM: first its
# /boot becomes a partition of its own carved from the root's end, and the power is cut
# inside that move (right after the partition table changed, before the step was
# recorded); 'resume' in a fresh live VM finishes the move, the new layout is checked
# (partition, fstab by UUID, kernels and GRUB's menu on the new /boot), then 'encrypt'
# converts the root and the power is cut again before its boot step (crypttab, initramfs);
# a third live VM runs 'resume', which asks for the passphrase and does the boot step
# (first killed inside its swap step, after crypttab and fstab name the random-key swap and
# before the plain swap is overwritten; resumed again, the swap is finished and no line is
# written twice). The image then boots from its own disk with the passphrase typed once at
# the initramfs prompt: all 300 files check out, / is on dm-crypt, the swap has a random
# key. Each phase's time is printed.
# Cost: three live VMs (about 5 min under TCG) and one boot of the installed system (3-5
# min). It took over the power cuts of the former test-vm-system-boot-powercut.sh, so the
# suite boots the installed system once for both.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-carve
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap
vm_find_fdewiz

vm_installed_copy image_bootinside bootinside.img
printf 'carve passphrase 3' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. list, the plan, then encrypt cut inside the move of /boot: fdewiz dies at the test
# point and the host kills QEMU as soon as the guest says so.
pidfile=$VM_WORK/qemu.pid
vm_cut_power_on 'system-carve: POWERCUT-NOW'
FDEWIZ_VM_PIDFILE=$pidfile vm_run --timeout 1800 --keep-going-on-kill --disk "$img" \
	--disk "$state" "$VM_HERE/guest/system-carve.sh" "$FDEWIZ" "$VM_WORK" cut
wait "$VM_CUTTER" 2>/dev/null || true
phase "list-plan-then-power-cut-in-the-move"
vm_check "the live VM was cut inside the move of /boot (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "fdewiz had reached the partition table step" grep -q '^system-carve: POWERCUT-NOW' "$VM_LOG"
vm_check "list offers the root, by shrinking, /boot inside" \
	grep -q '^system-carve: VERDICT \[true,"ok","shrink",false\]' "$VM_LOG"
vm_check "list says a /boot of its own is carved first" \
	grep -q '^system-carve: MESSAGE .*a /boot partition of its own (512 MiB) is carved from its end' "$VM_LOG"
vm_check "the plan lists the move of /boot" \
	grep -q '^system-carve: plan: .*reinstall GRUB (BIOS) on /dev/vda to read the new /boot' "$VM_LOG"
vm_check "the plan lists the boot steps after it" \
	grep -q '^system-carve: plan: .*rebuild its initramfs in a chroot' "$VM_LOG"
vm_check "the cut left the split unrecorded (record: shrunk)" \
	grep -q '^system-carve: RECORD shrunk$' "$VM_LOG"
vm_check "the cut came after the table had the new partition" \
	grep -q '^system-carve: TABLE-CUT .*3:[0-9.]*MiB:' "$VM_LOG"
cp "$VM_LOG" "$VM_WORK/cut.log"

# 2. resume finishes the move; encrypt converts the root and is cut before its boot step.
vm_cut_power_on 'system-carve: POWERCUT-NOW'
FDEWIZ_VM_PIDFILE=$pidfile vm_run --timeout 2400 --keep-going-on-kill --disk "$img" \
	--disk "$state" "$VM_HERE/guest/system-carve.sh" "$FDEWIZ" "$VM_WORK" resume
wait "$VM_CUTTER" 2>/dev/null || true
phase "resume-move-then-encrypt-then-power-cut"
vm_check "the second live VM was cut after the conversion (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "after the power cut the record still said shrunk" \
	grep -q '^system-carve: RECORD-AFTER-CUT shrunk$' "$VM_LOG"
vm_check "resume finished the move without a passphrase" grep -q '^system-carve: RESUME rc=0$' "$VM_LOG"
vm_check "resume said the system starts unencrypted from its new /boot" \
	grep -q '^system-carve: resume: /boot is a partition of its own now' "$VM_LOG"
vm_check "the record says done" grep -q '^system-carve: RECORD-AFTER-RESUME done$' "$VM_LOG"
vm_check "the table has one new partition (no second split)" \
	grep -Eq '^system-carve: TABLE-AFTER ([0-9]:[^ ]* ){3}$' "$VM_LOG"
vm_check "the new /boot is ext4" grep -q '^system-carve: NEWBOOT .*TYPE=ext4' "$VM_LOG"
vm_check "fstab mounts it at /boot by UUID, checked second" \
	grep -q '^system-carve: FSTAB-BOOT UUID=[0-9a-f-]* ext4 2$' "$VM_LOG"
vm_check "the old fstab is kept as a backup" grep -q '^system-carve: FSTAB-BACKUPS 1$' "$VM_LOG"
vm_check "the kernel, its initramfs and GRUB are on the new /boot" \
	grep -q '^system-carve: NEWBOOT-FILES kernels=1 initrds=1 grubcfg=yes i386-pc=yes$' "$VM_LOG"
vm_check "GRUB's menu finds the new /boot and starts the kernel from it" \
	grep -Eq '^system-carve: GRUBCFG search=[1-9][0-9]* linux=[1-9][0-9]* root-by-uuid=[1-9]' "$VM_LOG"
vm_check "encrypt had reached the boot step" grep -q '^system-carve: POWERCUT-NOW' "$VM_LOG"
vm_check "the new /boot is clean" grep -q '^system-carve: NEWBOOT-FSCK clean$' "$VM_LOG"
grep '^system-carve: \(PHASE\|CORE\)' "$VM_LOG" || true
cp "$VM_LOG" "$VM_WORK/resume.log"

# 3. resume in a fresh live VM: the boot step, from the record on the state disk. It
# crashes first at "swap-tables-written" (the target's crypttab and fstab name the
# random-key swap, the plain swap is not overwritten yet); resume then finishes it.
vm_run --timeout 2400 --disk "$img" --disk "$state" --env FDW_ROOT=/dev/vda1 \
	--env FDW_BOOT=/dev/vda3 --env FDW_SWAP=/dev/vda2 \
	"$VM_HERE/guest/system-boot.sh" "$FDEWIZ" "$VM_WORK" resume-swapcut
phase "resume-boot-step-in-live-vm (crash in the swap step, resume again)"
vm_check "resume exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "the first resume failed at the swap step" grep -q '^system-boot: SWAPCUT rc=[1-9]' "$VM_LOG"
vm_check "it said the boot step is left and how to finish it" \
	grep -q "^system-boot: swapcut: .*'fdewiz resume /dev/vda1' does this step again" "$VM_LOG"
vm_check "after that crash fstab named the mapping" \
	grep -q '^system-boot: SWAPCUT-FSTAB /dev/mapper/cryptswap1 $' "$VM_LOG"
vm_check "after that crash crypttab had the swap line" grep -q '^system-boot: SWAPCUT-CRYPTTAB 1$' "$VM_LOG"
vm_check "after that crash the plain swap was still there" \
	grep -q '^system-boot: SWAPCUT-SIGNATURE swap$' "$VM_LOG"
vm_check "resume --tpm on this VM without a TPM is refused and says why" \
	grep -q '^system-boot: RESUME-TPM rc=1 .*this computer has no TPM' "$VM_LOG"
vm_check "that refusal left the boot step's record without TPM unlock" \
	grep -q '^system-boot: RESUME-TPM-RECORD tpm-empty=1$' "$VM_LOG"
vm_check "resume overwrote the plain swap: its signature is gone" \
	grep -q '^system-boot: OLD-SWAP-SIGNATURE none$' "$VM_LOG"
vm_check "resume overwrote the plain swap: zeros" grep -q '^system-boot: SWAP-ZEROS yes$' "$VM_LOG"
vm_check "crypttab gives the swap a random key by PARTUUID" \
	grep -q '^system-boot: CRYPTTAB cryptswap1 PARTUUID=[0-9a-f]*-02 /dev/urandom swap,' "$VM_LOG"
vm_check "fstab names the encrypted swap" grep -q '^system-boot: FSTAB-SWAP /dev/mapper/cryptswap1$' "$VM_LOG"
vm_check "no duplicate lines in fstab or crypttab" \
	grep -q '^system-boot: LINES fstab-swap=1 crypttab-swap=1 crypttab-root=1$' "$VM_LOG"
vm_check "the initramfs waits for no hibernation image" grep -q '^system-boot: RESUME RESUME=none$' "$VM_LOG"
vm_check "resume said it sets up the boot" grep -q "is encrypted; setting up the installed system's boot" "$VM_LOG"
vm_check "resume listed the files it changed" grep -q '^  /etc/crypttab (' "$VM_LOG"
vm_check "the old initramfs is kept as a backup" \
	grep -q '^system-boot: BACKUPS .*initrd.img-.*\.fdewiz-bak' "$VM_LOG"
vm_check "e2fsck of the encrypted root is clean" grep -q '^system-boot: FSCK rc=0' "$VM_LOG"
vm_check "crypttab names the volume" grep -q '^system-boot: CRYPTTAB vda1_crypt UUID=' "$VM_LOG"
vm_check "the boot step found GRUB's kernel line naming the root by UUID" \
	grep -q 'GRUB configuration unchanged: it finds the root by the filesystem' "$VM_LOG"

# 4. It boots encrypted, from its new /boot.
vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
phase "boot-encrypted (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res"
tr -d '\r' <"$VM_WORK/boot.log" | grep -a '^FDW-\(ROOT\|SWAP\)' || true
vm_check "the initramfs asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "the system boots and all $VM_DATA_FILES files check out" \
	grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=crypt\$" <<<"$res"
vm_check "its swap is on dm-crypt" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-SWAP .*dmtype=crypt'"
if [ "$VM_FAILED" != 0 ]; then
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
