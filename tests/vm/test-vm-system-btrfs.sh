#!/bin/bash
# fdewiz VM tests: an installed Debian 12 laid out as its installer does on btrfs on an EFI
# machine (installed-image.sh's disk-btrfs.img: GPT, the ESP on 1, /boot on 2, btrfs on 3
# holding the root in subvolume @rootfs, swap on 4; GRUB for EFI). From a live VM, 'list'
# offers the btrfs partition, by shrinking, and names the subvolume the root is in; one
# 'encrypt' shrinks the btrfs for the header, converts it and sets up the system's boot
# (crypttab for the root, the swap with a random key, the initramfs made again in a chroot
# of the subvolume). Checked from the live VM: btrfs check inside the LUKS volume is clean,
# the file system keeps its UUID, the subvolume's crypttab and fstab (every file is checked
# by the boot that follows). The image then boots from its own disk under OVMF with the
# passphrase typed once at the initramfs prompt: all 300 files check out, / is the
# subvolume @rootfs of a btrfs on dm-crypt, the swap is on dm-crypt, and the initramfs it
# started from holds cryptsetup, dm-crypt, the root's crypttab and btrfs (listed there by
# its own lsinitramfs). Each phase's time is printed.
# Cost: about 3 minutes under TCG: one live VM (about 2 min with the conversion and the
# boot step) and one OVMF boot (about 50 s); 174 s in the suite's run of 6fbffcf.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-btrfs
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap ovmf btrfs-progs
vm_find_fdewiz

vm_installed_copy image_btrfs btrfs.img
btrfs_uuid=$(vm_prep bt_root_uuid)
subvol=$(vm_prep bt_subvol)
printf 'btrfs system passphrase 3' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. In the live VM: list and the plan, then encrypt (the shrink, the conversion, the boot
# step), checked from there.
vm_run --timeout 2400 --disk "$img" --disk "$state" \
	"$VM_HERE/guest/system-btrfs.sh" "$FDEWIZ" "$VM_WORK" "$subvol"
phase "list-encrypt-boot-step-in-live-vm"
vm_check "the live VM finished (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "partition 3 is the btrfs of the layout" \
	grep -q "^system-btrfs: BEFORE btrfs $btrfs_uuid\$" "$VM_LOG"
vm_check "list offers the root, by shrinking, /boot apart, GRUB for EFI, in subvolume $subvol" \
	grep -q "^system-btrfs: VERDICT \[true,\"ok\",\"shrink\",true,\"grub-efi\",\"$subvol\"\]" "$VM_LOG"
vm_check "list's text names the subvolume" grep -q "^system-btrfs: list: .*$subvol" "$VM_LOG"
vm_check "the plan names the subvolume" grep -q "^system-btrfs: plan: .*$subvol" "$VM_LOG"
vm_check "encrypt converted the root and set up its boot" grep -q '^system-btrfs: ENCRYPT rc=0$' "$VM_LOG"
vm_check "btrfs check of the encrypted root is clean" grep -q '^system-btrfs: BTRFSCK rc=0$' "$VM_LOG"
vm_check "the btrfs inside keeps its UUID" \
	grep -q "^system-btrfs: INSIDE btrfs $btrfs_uuid\$" "$VM_LOG"
vm_check "the top level still holds the one subvolume" \
	grep -q "^system-btrfs: SUBVOLS $subvol \$" "$VM_LOG"
luks=$(sed -n 's/^system-btrfs: LUKS uuid=//p' "$VM_LOG")
vm_check "crypttab names the root volume by its LUKS UUID" \
	grep -Eq "^system-btrfs: CRYPTTAB vda3_crypt UUID=${luks:-none} none luks(,|\$)" "$VM_LOG"
vm_check "crypttab gives the swap a random key" \
	grep -q '^system-btrfs: CRYPTTAB cryptswap1 PARTUUID=[0-9a-f-]* /dev/urandom swap,' "$VM_LOG"
vm_check "fstab mounts /, then /boot, then /boot/efi" \
	grep -q '^system-btrfs: FSTAB / /boot /boot/efi none $' "$VM_LOG"
vm_check "fstab still mounts the subvolume as / by the btrfs UUID" \
	grep -q "^system-btrfs: FSTAB-ROOT UUID=$btrfs_uuid / btrfs defaults,subvol=$subvol " "$VM_LOG"
grep '^system-btrfs: \(PHASE\|TABLE\|LUKS\|INSIDE\)' "$VM_LOG" || true

# 2. It boots encrypted under OVMF: one passphrase, the subvolume mounted from dm-crypt;
# there its initramfs is listed by its own lsinitramfs (guest/initramfs-list.sh, from a
# second disk: 3 s, where a chroot of the encrypted btrfs in the live VM took 38 s).
mkdir -p "$VM_WORK/drive"
install -m 0755 "$VM_HERE/guest/initramfs-list.sh" "$VM_WORK/drive/drive.sh"
vm_drive_image 16
VM_BOOT_EFI=1 vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
phase "boot-encrypted-ovmf (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res"
tr -d '\r' <"$VM_WORK/boot.log" | grep -a '^FDW-\(ROOT\|SWAP\|CMDLINE\|DRIVE\)' || true
vm_check "the initramfs asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "the system boots and all $VM_DATA_FILES files check out, / on dm-crypt" \
	grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=crypt\$" <<<"$res"
vm_check "/ is subvolume $subvol of a btrfs" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-ROOT-FS fstype=btrfs fsroot=/$subvol\$'"
vm_check "the root's btrfs lies on dm-crypt on partition 3" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-ROOT-CHAIN crypt,part,disk,'"
vm_check "its swap is on dm-crypt" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-SWAP .*dmtype=crypt'"
vm_check "the initramfs it started from holds cryptsetup, dm-crypt, the root's crypttab and btrfs" \
	grep -Eq '^FDW-DRIVE INITRAMFS .* cryptsetup=[1-9][0-9]* dm-crypt=[1-9][0-9]* btrfs-ko=[1-9][0-9]* btrfs-tool=[1-9][0-9]* crypttab=[1-9]' \
	<<<"$(vm_drive_line "$VM_WORK/boot.log" INITRAMFS)"
if [ "$VM_FAILED" != 0 ]; then
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
