#!/bin/bash
# fdewiz VM tests: an installed Debian 12 laid out as its installer's guided LVM on an EFI
# machine (installed-image.sh's disk-lvm.img: GPT, the ESP on 1, /boot on 2, an LVM physical
# volume on 3 holding volume group fdw-installed-vg with root and swap_1 at its end, no
# free extents). From a live VM, the step at a restart from a stale initramfs (its
# preparation cancelled: no stage record in the root volume) refuses and changes nothing;
# 'list' offers the PV and says how the header's room is
# made; 'encrypt' deactivates the volume group and shrinks the swap volume, and the power
# is cut right after that (before the step was recorded); 'resume' in a fresh live VM makes
# the swap area again with its UUID and ends the PV 32 MiB earlier (pvresize), then the
# wizard, driven in tmux, names the system and its plan (the volume group deactivated, the
# boot steps with it, no benchmark) and converts the whole PV in place, setting up the
# system's boot (crypttab for the PV, the initramfs with lvm after cryptsetup). The image then boots from its own disk
# under OVMF with the passphrase typed once at the initramfs prompt: all 300 files check
# out, / is a logical volume on dm-crypt, the swap volume is in use. Each phase's time is
# printed.
# Cost: about 5 minutes under TCG: two live VMs (30 s; about 3 min with the conversion of
# the 1 GiB PV and the boot step) and one OVMF boot (70 s). In tier vmsys2 (run-all.sh).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-lvm
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap ovmf lvm2 tmux ncurses-base
vm_find_fdewiz
srcdir=$(realpath -m "${FDEWIZ_SRCDIR:-$VM_HERE/../..}")

vm_installed_copy image_lvm lvm.img
swap_uuid=$(vm_prep lv_swap_uuid)
printf 'lvm system passphrase 7' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. list, the plan, then encrypt cut inside the room-making: fdewiz dies at the test point
# and the host kills QEMU as soon as the guest says so.
pidfile=$VM_WORK/qemu.pid
vm_cut_power_on 'system-lvm: POWERCUT-NOW'
FDEWIZ_VM_PIDFILE=$pidfile vm_run --timeout 1800 --keep-going-on-kill --disk "$img" \
	--disk "$state" "$VM_HERE/guest/system-lvm.sh" "$FDEWIZ" "$VM_WORK" cut "$srcdir"
wait "$VM_CUTTER" 2>/dev/null || true
phase "list-plan-then-power-cut-in-the-room-making"
vm_check "the live VM was cut inside the room-making (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "a stale initramfs's step on the PV (no stage record in its root volume) refuses" \
	grep -q '^system-lvm: STALE rc=1 out=0 type=LVM2_member ends=same$' "$VM_LOG"
vm_check "it says the encryption was cancelled, nothing was changed, what to do" \
	grep -q "^system-lvm: stale: .*the encryption was cancelled in the system ('fdewiz cancel').*nothing was changed; make its initramfs again" "$VM_LOG"
vm_check "fdewiz had shrunk the swap volume" grep -q '^system-lvm: POWERCUT-NOW' "$VM_LOG"
vm_check "list offers the PV, converted as it is (free-tail), /boot apart, GRUB for EFI" \
	grep -q '^system-lvm: VERDICT \[true,"ok","free-tail",true,"grub-efi"\]' "$VM_LOG"
vm_check "list names the system and says the swap volume gives the header's room" \
	grep -q '^system-lvm: MESSAGE Holds Debian GNU/Linux 12 (bookworm).*volume group fdw-installed-vg is encrypted in place.*from the swap volume swap_1 at its end, which shrinks from 128 MiB to 96 MiB' "$VM_LOG"
vm_check "the plan lists the room-making first" \
	grep -q '^system-lvm: plan: .*shrink its swap volume swap_1 from 128 MiB to 96 MiB (lvreduce)' "$VM_LOG"
vm_check "the plan lists the boot steps with the volume group" \
	grep -q '^system-lvm: plan: .*activate volume group fdw-installed-vg on it, mount its root /dev/mapper/fdw--installed--vg-root' "$VM_LOG"
vm_check "the cut left the shrink unrecorded (record: planned)" \
	grep -q '^system-lvm: RECORD planned$' "$VM_LOG"
vm_check "the cut came after the swap volume shrank" \
	grep -q '^system-lvm: LVS-CUT .*swap_1 96\.00' "$VM_LOG"
cp "$VM_LOG" "$VM_WORK/cut.log"

# 2. resume finishes the room; the wizard converts the PV and sets up the boot.
vm_run --timeout 2400 --disk "$img" --disk "$state" \
	"$VM_HERE/guest/system-lvm.sh" "$FDEWIZ" "$VM_WORK" finish "$srcdir"
phase "resume-room-then-wizard-in-live-vm"
vm_check "the live VM finished (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "resume went on from the room-making" \
	grep -q '^system-lvm: resume: .*making room for the header at the end of the physical volume was cut short' "$VM_LOG"
vm_check "resume finished it (rc 0), recorded done" \
	bash -c "grep -q '^system-lvm: RESUME rc=0$' '$VM_LOG' && grep -q '^system-lvm: RECORD-AFTER-RESUME done$' '$VM_LOG'"
vm_check "the swap volume has its swap area again, with its UUID" \
	grep -q "^system-lvm: SWAP-AFTER swap $swap_uuid\$" "$VM_LOG"
capture() { sed -n "/^CAPTURE-$1-BEGIN/,/^CAPTURE-$1-END/p" "$VM_LOG" | sed '1d;$d' | tr -d '\r'; }
joined() { tr '\n' ' ' | tr -s ' '; }
disks=$(capture DISKS)
plan=$(capture PLAN)
results=$(capture RESULTS)
vm_check "wizard, disks pane: the PV is offered" grep -qE '^>.* 3 .*yes \(' <<<"$disks"
vm_check "wizard, disks pane: the system in its volume group is named" \
	grep -qF "The whole LVM physical volume of volume group fdw-installed-vg is encrypted in place" \
	<(joined <<<"$disks")
vm_check "wizard, plan: the room is made already, the volume group is deactivated" \
	grep -qF "first, deactivate volume group fdw-installed-vg (the header's room at the end of its physical volume is made already)" \
	<(joined <<<"$plan")
vm_check "wizard, plan: the boot steps with the volume group" \
	grep -qF "activate volume group fdw-installed-vg on it" <(joined <<<"$plan")
vm_check "wizard, plan: no benchmark, and why" \
	grep -qF "No benchmark: an LVM physical volume holds no filesystem" <(joined <<<"$plan")
vm_check "wizard, results: the boot is set up" \
	grep -qF "The installed system's boot is set up" <(joined <<<"$results")
vm_check "the wizard's conversion is complete" grep -q '^system-lvm: WIZARD state=complete$' "$VM_LOG"
vm_check "the volume group is found inside the LUKS volume" \
	grep -Eq '^system-lvm: PV-INSIDE +/dev/mapper/check ' "$VM_LOG"
vm_check "e2fsck of the root volume is clean" grep -q '^system-lvm: FSCK rc=0$' "$VM_LOG"
vm_check "the swap volume keeps its swap area and UUID inside" \
	grep -q "^system-lvm: SWAP-INSIDE swap $swap_uuid\$" "$VM_LOG"
vm_check "crypttab names the PV's LUKS volume" grep -q '^system-lvm: CRYPTTAB vda3_crypt UUID=' "$VM_LOG"
vm_check "fstab still names the root and swap volumes" \
	grep -q '^system-lvm: FSTAB /dev/mapper/fdw--installed--vg-root=/ .*/dev/mapper/fdw--installed--vg-swap_1=none' "$VM_LOG"
grep '^system-lvm: \(PHASE\|LVS\|PV-\|RESUMECONF\)' "$VM_LOG" || true
echo "plan screen in the VM:"
printf '%s\n' "$plan"
echo "results screen in the VM:"
printf '%s\n' "$results"

# 3. It boots encrypted under OVMF: one passphrase, the volume group opened after it.
VM_BOOT_EFI=1 vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
phase "boot-encrypted-ovmf (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res"
tr -d '\r' <"$VM_WORK/boot.log" | grep -a '^FDW-\(ROOT\|SWAP\|CMDLINE\)' || true
vm_check "the initramfs asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "the system boots and all $VM_DATA_FILES files check out, / on a logical volume" \
	grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=lvm\$" <<<"$res"
vm_check "its root volume lies on dm-crypt" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-ROOT-CHAIN lvm,crypt,part,disk,'"
vm_check "its swap volume is in use" \
	bash -c "tr -d '\r' <'$VM_WORK/boot.log' | grep -aq '^FDW-SWAP .*dmtype=lvm'"
if [ "$VM_FAILED" != 0 ]; then
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
