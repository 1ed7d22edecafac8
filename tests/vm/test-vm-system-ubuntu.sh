#!/bin/bash
# fdewiz VM tests: an installed Debian 12 laid out as Ubuntu's installer does on a BIOS
# machine (installed-image.sh's disk-ubuntu.img: a GPT; a BIOS boot partition on 1 holding
# GRUB's core; / on 2 with /boot a folder inside it and the swap file /swap.img; GRUB for
# BIOS). From a live VM one 'encrypt' moves its /boot to a partition of its own (GRUB for
# BIOS reinstalled, its core into the BIOS boot partition), converts the root and sets up
# its boot; the swap file stays where it is, inside the encrypted root. The image then
# boots from its own disk under SeaBIOS with the passphrase typed once at the initramfs
# prompt: all 300 files check out, / is on dm-crypt, the swap file is in use.
# Cost: one live VM (about 3 min under TCG) and one SeaBIOS boot (1-2 min).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-ubuntu
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap
vm_find_fdewiz

vm_installed_copy image_ubuntu ubuntu.img
printf 'ubuntu layout passphrase 6' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. In the live VM: list, then encrypt (the move of /boot, the conversion, the boot step).
vm_run --timeout 2400 --disk "$img" --disk "$state" \
	"$VM_HERE/guest/system-ubuntu.sh" "$FDEWIZ" "$VM_WORK"
phase "move-encrypt-boot-step-in-live-vm"
vm_check "the live VM finished (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "list offers the root, by shrinking, /boot inside, GRUB for BIOS, one swap file" \
	grep -q '^system-ubuntu: VERDICT \[true,"ok","shrink",false,"grub-bios",1\]' "$VM_LOG"
vm_check "list keeps the BIOS boot partition plain" \
	grep -q '^system-ubuntu: BIOSBOOT-VERDICT \[false,' "$VM_LOG"
vm_check "list says a /boot of its own is carved first" \
	grep -q '^system-ubuntu: MESSAGE .*a /boot partition of its own (512 MiB) is carved from its end' "$VM_LOG"
vm_check "the plan says the swap file stays, encrypted with the root" \
	grep -q '^system-ubuntu: encrypt: .*/swap.img (a swap file) stays where it is, inside the root' "$VM_LOG"
vm_check "the plan names GRUB for BIOS reinstalled on the disk" \
	grep -q '^system-ubuntu: encrypt: .*reinstall GRUB (BIOS) on /dev/vda to read the new /boot' "$VM_LOG"
vm_check "encrypt converted the root and set up its boot" grep -q '^system-ubuntu: ENCRYPT rc=0$' "$VM_LOG"
vm_check "the move is recorded done" grep -q '^system-ubuntu: RECORD done$' "$VM_LOG"
vm_check "the new /boot is GPT entry 3, ext4, with the recorded UUID" \
	grep -q '^system-ubuntu: NEWBOOT ext4 uuid-matches=yes$' "$VM_LOG"
vm_check "GRUB's core in the BIOS boot partition was made again" \
	grep -q '^system-ubuntu: CORE changed=yes ' "$VM_LOG"
vm_check "GRUB's menu on the new /boot starts the kernel with the root by UUID" \
	grep -Eq '^system-ubuntu: GRUBCFG linux=[1-9][0-9]* root-by-uuid=[1-9][0-9]* i386-pc=yes' "$VM_LOG"
vm_check "e2fsck of the encrypted root is clean" grep -q '^system-ubuntu: FSCK rc=0$' "$VM_LOG"
vm_check "crypttab names the root volume, and no swap (the file is inside it)" \
	bash -c "grep '^system-ubuntu: CRYPTTAB ' '$VM_LOG' | grep -q '^system-ubuntu: CRYPTTAB vda2_crypt UUID=' &&
		[ \$(grep -c '^system-ubuntu: CRYPTTAB ' '$VM_LOG') = 1 ]"
vm_check "fstab mounts /, /boot by UUID and keeps the swap file" \
	grep -q '^system-ubuntu: FSTAB UUID:/ UUID:/boot /swap.img:none $' "$VM_LOG"
vm_check "the swap file is still a swap area, without holes" \
	grep -q '^system-ubuntu: SWAPFILE swap holes=0$' "$VM_LOG"
grep '^system-ubuntu: \(PHASE\|TABLE\|CORE\)' "$VM_LOG" || true

# 2. It boots encrypted under SeaBIOS, from its new /boot.
vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
phase "boot-encrypted-seabios (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res"
tr -d '\r' <"$VM_WORK/boot.log" | grep -a '^FDW-\(ROOT\|SWAP\)' || true
vm_check "the initramfs asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "the system boots and all $VM_DATA_FILES files check out" \
	grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=crypt\$" <<<"$res"
vm_check "its swap file is in use" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-SWAP name=/swap.img type=file'"
if [ "$VM_FAILED" != 0 ]; then
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
