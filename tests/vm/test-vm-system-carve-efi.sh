#!/bin/bash
# fdewiz VM tests: an installed Debian 12 laid out as its installer does on an EFI machine
# with "all files in one partition" (installed-image.sh's disk-efi-bootinside.img: GPT, the
# ESP on 1, / with /boot inside on 2, swap on 3; GRUB for EFI). From a live VM one
# 'encrypt' moves its /boot to a partition of its own (GRUB for EFI reinstalled in the ESP,
# under its own name and as the firmware's fallback loader), converts the root and sets up
# its boot. The image then boots from its own disk under OVMF with the passphrase typed
# once at the initramfs prompt: all 3000 files check out, / is on dm-crypt, the swap has a
# random key. (The power cuts inside the move are test-vm-system-carve.sh's, on BIOS.)
# Cost: one live VM (about 2 min under TCG) and one OVMF boot (2-4 min).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-carve-efi
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap ovmf
vm_find_fdewiz

t0=$(date +%s)
phase() { echo "$VM_NAME: TIMING $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

prep=$("$VM_HERE/installed-image.sh") || { vm_fail "building the installed image"; vm_finish; }
cached=$(sed -n 's/^image_efi_bootinside=//p' <<<"$prep")
phase "image-ready (cached or built)"
img=$VM_WORK/efi-bootinside.img
cp --sparse=always "$cached" "$img"
chmod 0644 "$img"
printf 'efi carve passphrase 5' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. In the live VM: list, then encrypt (the move of /boot, the conversion, the boot step).
vm_run --timeout 2400 --disk "$img" --disk "$state" \
	"$VM_HERE/guest/system-carve-efi.sh" "$FDEWIZ" "$VM_WORK"
phase "move-encrypt-boot-step-in-live-vm"
vm_check "the live VM finished (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "list offers the root, by shrinking, /boot inside, GRUB for EFI" \
	grep -q '^system-carve-efi: VERDICT \[true,"ok","shrink",false,"grub-efi"\]' "$VM_LOG"
vm_check "encrypt said it makes /boot a partition of its own" \
	grep -q '^system-carve-efi: encrypt: Making /boot a partition of its own' "$VM_LOG"
vm_check "the plan named GRUB for EFI in the ESP" \
	grep -q '^system-carve-efi: encrypt: .*reinstall GRUB (EFI) in its EFI system partition' "$VM_LOG"
vm_check "encrypt converted the root and set up its boot" grep -q '^system-carve-efi: ENCRYPT rc=0$' "$VM_LOG"
vm_check "the move is recorded done" grep -q '^system-carve-efi: RECORD done$' "$VM_LOG"
vm_check "the new /boot is GPT entry 4, ext4, with the recorded UUID" \
	grep -q '^system-carve-efi: NEWBOOT ext4 uuid-matches=yes$' "$VM_LOG"
vm_check "both EFI loaders in the ESP were made again (EFI/debian, EFI/BOOT)" \
	grep -q '^system-carve-efi: ESP-LOADERS changed=2$' "$VM_LOG"
vm_check "GRUB's menu on the new /boot starts the kernel with the root by UUID" \
	grep -Eq '^system-carve-efi: GRUBCFG linux=[1-9][0-9]* root-by-uuid=[1-9]' "$VM_LOG"
vm_check "e2fsck of the encrypted root is clean" grep -q '^system-carve-efi: FSCK rc=0$' "$VM_LOG"
vm_check "crypttab names the root volume" grep -q '^system-carve-efi: CRYPTTAB vda2_crypt UUID=' "$VM_LOG"
vm_check "crypttab gives the swap a random key" \
	grep -q '^system-carve-efi: CRYPTTAB cryptswap1 PARTUUID=[0-9a-f-]* /dev/urandom swap,' "$VM_LOG"
vm_check "fstab mounts /, then /boot, then /boot/efi" \
	grep -q '^system-carve-efi: FSTAB / /boot /boot/efi none $' "$VM_LOG"
grep '^system-carve-efi: \(PHASE\|TABLE\|ESP\|GRUBCFG\)' "$VM_LOG" || true

# 2. It boots encrypted under OVMF, from its new /boot.
VM_BOOT_EFI=1 vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
phase "boot-encrypted-ovmf (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res"
tr -d '\r' <"$VM_WORK/boot.log" | grep -a '^FDW-\(ROOT\|SWAP\)' || true
vm_check "the initramfs asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "the system boots and all 3000 files check out" \
	grep -q '^FDW-BOOT-OK sums=ok files=3000 root=crypt$' <<<"$res"
vm_check "its swap is on dm-crypt" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-SWAP .*dmtype=crypt'"
if [ "$VM_FAILED" != 0 ]; then
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
