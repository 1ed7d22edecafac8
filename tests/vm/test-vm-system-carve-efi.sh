#!/bin/bash
# fdewiz VM tests: an installed Debian 12 laid out as its installer does on an EFI machine
# with "all files in one partition" (installed-image.sh's disk-efi-bootinside.img: GPT, the
# ESP on 1, / with /boot inside on 2, swap on 3; GRUB for EFI; clevis-tpm2 and
# clevis-initramfs installed), on a machine with OVMF and a TPM 2.0 (swtpm). In a live VM
# on that machine the wizard's plan for the root offers TPM unlock (ticked, it says what it
# protects against; then left, nothing changed), and one 'encrypt --tpm --recovery-key' moves its /boot to a partition of
# its own (GRUB for EFI reinstalled in the ESP, under its own name and as the firmware's
# fallback loader), converts the root, sets up its boot and seals a key to the TPM (PCR 7);
# there luksDump shows 3 keyslots and one clevis token, 'tpm status' that the TPM unseals
# it. Then it boots from its own disk under OVMF:
#   1. with the same TPM: nothing is typed, clevis unlocks it;
#   2. with another TPM (a new swtpm state, as after a TPM clear): the prompt appears and
#      the recovery key opens it.
# Each boot: all 300 files check out, / is on dm-crypt, the swap has a random key. (The
# power cuts inside the move are test-vm-system-carve.sh's, on BIOS; enrol and remove on
# an encrypted volume, with luksDump before and after, are tests/root/test-tpm.sh's.)
# Cost: one live VM (about 7 min under TCG) and two OVMF boots (60-80 s each); 555 s in the
# suite's run of 6fbffcf.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-carve-efi
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap ovmf swtpm swtpm-tools \
	clevis clevis-luks clevis-tpm2 tpm2-tools tmux
vm_find_fdewiz
trap 'rc=$?; vm_swtpm_stop; vm_cleanup "$rc"' EXIT
# The wizard's tmux helpers, from the source tree (the guest sees the host's files).
srcdir=$(realpath -m "${FDEWIZ_SRCDIR:-$VM_HERE/../..}")

vm_installed_copy image_efi_bootinside efi-bootinside.img
printf 'efi carve passphrase 5' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. In the live VM: list, then encrypt (the move of /boot, the conversion, the boot step,
# the TPM binding), on the machine's TPM.
vm_swtpm_start "$VM_WORK/tpm-machine"
vm_run --timeout 2400 --efi --tpm "$VM_SWTPM_SOCK" --disk "$img" --disk "$state" \
	"$VM_HERE/guest/system-carve-efi.sh" "$FDEWIZ" "$VM_WORK" "$srcdir"
vm_swtpm_stop
phase "move-encrypt-boot-step-tpm-in-live-vm"
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
vm_check "the wizard's plan offered TPM unlock; ticked, it said what it protects against" \
	grep -q "^system-carve-efi: WIZARD-TPM once it is encrypted, a key sealed to this computer's TPM 2.0 (PCR 7: .*stays locked" "$VM_LOG"
vm_check "the plan said what TPM unlock protects against" \
	grep -q '^system-carve-efi: encrypt: .*TPM unlock: .*stolen laptop' "$VM_LOG"
vm_check "encrypt said the system unlocks with the TPM" \
	grep -q "^system-carve-efi: encrypt: .*unlocks with this computer's TPM at its start (keyslot [0-9]*, sealed to PCR 7)" "$VM_LOG"
vm_check "luksDump: the passphrase, the recovery key, the TPM's key; one clevis token" \
	grep -q '^system-carve-efi: LUKSDUMP encrypted keyslots=3 tokens=1 slots=0,1,2,$' "$VM_LOG"
vm_check "tpm status: the TPM unseals the binding now" \
	grep -q '^system-carve-efi: tpm-status: .*the TPM unseals it now' "$VM_LOG"
vm_check "clevis lists one binding, tpm2, sha256 bank, PCR 7" \
	grep -q "^system-carve-efi: CLEVIS [0-9]*: tpm2 '.*\"pcr_bank\":\"sha256\".*\"pcr_ids\":\"7\"" "$VM_LOG"
grep '^system-carve-efi: \(PHASE\|TABLE\|ESP\|GRUBCFG\|TPM\|LUKSDUMP\|CLEVIS\|tpm-\)' "$VM_LOG" || true
sed -n 's/^system-carve-efi: RECOVERY //p' "$VM_LOG" | tr -d '\n' >"$VM_WORK/recovery"
vm_check "a recovery key was shown" grep -Eq '^[A-Z0-9]{6}(-[A-Z0-9]{6}){7}$' "$VM_WORK/recovery"

# boot N LABEL TPMSTATE KEYFILE: the image boots under OVMF with that TPM state, KEYFILE
# typed at each prompt (none: nothing typed); its check line and what the console said.
boot()
{
	local n=$1 label=$2 tpm=$3 key=${4:-}
	vm_swtpm_start "$tpm"
	VM_BOOT_EFI=1 VM_BOOT_TPM=$VM_SWTPM_SOCK vm_boot_installed "$img" "$VM_WORK/boot$n.log" \
		"$key" 900
	vm_swtpm_stop
	res=$(vm_boot_result "$VM_WORK/boot$n.log")
	phase "boot$n-$label (${VM_BOOT_SECONDS}s in qemu)"
	echo "$VM_NAME: boot $n ($label): $res"
	tr -d '\r' <"$VM_WORK/boot$n.log" | grep -a '^FDW-\(ROOT\|SWAP\)\|unlock disk\|set up successfully' || true
	vm_check "boot $n ($label): the system boots and all $VM_DATA_FILES files check out" \
		grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=crypt\$" <<<"$res"
	vm_check "boot $n ($label): its swap is on dm-crypt" \
		bash -c "tr -d '\r' <'$VM_WORK/boot$n.log' | grep -aq '^FDW-SWAP .*dmtype=crypt'"
	if ! grep -q '^FDW-BOOT-OK' <<<"$res"; then
		tr -d '\r' <"$VM_WORK/boot$n.log" | tail -n 40
	fi
}

# 2. The machine's own TPM: it starts with nothing typed (no key given to type).
boot 1 same-tpm "$VM_WORK/tpm-machine"
# The prompt appears (clevis answers it from the TPM in the background) and the volume
# opens with nothing typed.
vm_check "boot 1: the initramfs prompt opened the root with nothing typed" \
	bash -c "tr -d '\r' <'$VM_WORK/boot1.log' | grep -aA3 '^Please unlock disk vda2_crypt' |
		grep -aq '^cryptsetup: vda2_crypt: set up successfully'"

# 3. Another TPM (cleared, or the disk in another laptop): the prompt, and the recovery
# key, which is what such a day needs, typed there. (The passphrase at the same prompt is
# what every other boot test types.)
boot 2 other-tpm-recovery-key "$VM_WORK/tpm-other" "$VM_WORK/recovery"
vm_check "boot 2: the TPM refused and the prompt took the recovery key, once" \
	[ "$VM_BOOT_PROMPTS" = 1 ]
vm_finish
