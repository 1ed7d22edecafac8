#!/bin/bash
# fdewiz VM tests: a power cut after an installed system's root is converted but before its
# boot step (crypttab, initramfs) ran. The live VM encrypts the root of the real Debian
# image (installed-image.sh); fdewiz is stopped at the point "before-system-boot" and QEMU
# is killed there (no unmount, no sync: a power cut). The image must then not boot plain
# by mistake nor lose data: a second live VM runs "fdewiz resume", which asks for the
# passphrase and does the boot step (first killed inside the swap step, at
# "swap-tables-written", then run again: the swap is finished, no line twice); the image then boots with the passphrase typed at
# the initramfs prompt and all 3000 files check out. Each phase's time is printed.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-boot-powercut
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap
vm_find_fdewiz

t0=$(date +%s)
phase() { echo "$VM_NAME: TIMING $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

prep=$("$VM_HERE/installed-image.sh") || { vm_fail "building the installed image"; vm_finish; }
cached=$(sed -n 's/^image=//p' <<<"$prep")
phase "image-ready (cached or built)"
img=$VM_WORK/installed.img
cp --sparse=always "$cached" "$img"
chmod 0644 "$img"
printf 'power cut passphrase 7' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 1. Converted, then cut before the boot step: fdewiz dies at the test point and the host
# kills QEMU as soon as the guest says so.
pidfile=$VM_WORK/qemu.pid
(
	while [ ! -s "$VM_WORK/vm.log" ] || ! grep -q '^system-boot: POWERCUT-NOW' "$VM_WORK/vm.log"; do
		sleep 1
	done
	kill -KILL "$(cat "$pidfile")"
) &
killer=$!
FDEWIZ_VM_PIDFILE=$pidfile vm_run --timeout 2400 --keep-going-on-kill --disk "$img" \
	--disk "$state" --env FDEWIZ_TEST_KILL_AT=before-system-boot \
	"$VM_HERE/guest/system-boot.sh" "$FDEWIZ" "$VM_WORK" powercut
wait "$killer" 2>/dev/null || true
phase "encrypt-then-power-cut"
vm_check "the live VM was cut after the conversion (rc $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "fdewiz had reached the boot step" grep -q '^system-boot: POWERCUT-NOW' "$VM_LOG"
vm_check "the verdict offered the installed system's root" \
	grep -q '^system-boot: verdict: \[true,"ok",true,"grub-bios"\]' "$VM_LOG"
vm_check "the plan listed the boot steps" grep -q 'rebuild its initramfs in a chroot' "$VM_LOG"
cp "$VM_LOG" "$VM_WORK/cut.log"

# 2. resume in a fresh live VM: the boot step, from the record on the state disk. It
# crashes first at "swap-tables-written" (the target's crypttab and fstab name the
# random-key swap, the plain swap is not overwritten yet); resume then finishes it.
vm_run --timeout 2400 --disk "$img" --disk "$state" \
	"$VM_HERE/guest/system-boot.sh" "$FDEWIZ" "$VM_WORK" resume-swapcut
phase "resume-in-live-vm (crash in the swap step, resume again)"
vm_check "resume exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "the first resume failed at the swap step" grep -q '^system-boot: SWAPCUT rc=[1-9]' "$VM_LOG"
vm_check "it said the boot step is left and how to finish it" \
	grep -q "^system-boot: swapcut: .*'fdewiz resume /dev/vda2' does this step again" "$VM_LOG"
vm_check "after that crash fstab named the mapping" \
	grep -q '^system-boot: SWAPCUT-FSTAB /dev/mapper/cryptswap1 $' "$VM_LOG"
vm_check "after that crash crypttab had the swap line" grep -q '^system-boot: SWAPCUT-CRYPTTAB 1$' "$VM_LOG"
vm_check "after that crash the plain swap was still there" \
	grep -q '^system-boot: SWAPCUT-SIGNATURE swap$' "$VM_LOG"
vm_check "resume overwrote the plain swap: its signature is gone" \
	grep -q '^system-boot: OLD-SWAP-SIGNATURE none$' "$VM_LOG"
vm_check "resume overwrote the plain swap: zeros" grep -q '^system-boot: SWAP-ZEROS yes$' "$VM_LOG"
vm_check "crypttab gives the swap a random key by PARTUUID" \
	grep -q '^system-boot: CRYPTTAB cryptswap1 PARTUUID=[0-9a-f]*-03 /dev/urandom swap,' "$VM_LOG"
vm_check "fstab names the encrypted swap" grep -q '^system-boot: FSTAB-SWAP /dev/mapper/cryptswap1$' "$VM_LOG"
vm_check "no duplicate lines in fstab or crypttab" \
	grep -q '^system-boot: LINES fstab-swap=1 crypttab-swap=1 crypttab-root=1$' "$VM_LOG"
vm_check "the initramfs waits for no hibernation image" grep -q '^system-boot: RESUME RESUME=none$' "$VM_LOG"
vm_check "resume said it sets up the boot" grep -q "is encrypted; setting up the installed system's boot" "$VM_LOG"
vm_check "resume listed the files it changed" grep -q '^  /etc/crypttab (' "$VM_LOG"
vm_check "the old initramfs is kept as a backup" \
	grep -q '^system-boot: BACKUPS .*initrd.img-.*\.fdewiz-bak' "$VM_LOG"
vm_check "e2fsck of the encrypted root is clean" grep -q '^system-boot: FSCK rc=0' "$VM_LOG"
vm_check "crypttab names the volume" grep -q '^system-boot: CRYPTTAB vda2_crypt UUID=' "$VM_LOG"

# 3. It boots encrypted.
vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
phase "boot-encrypted (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res"
vm_check "the initramfs asked for the passphrase once" [ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "the system boots and all 3000 files check out" \
	grep -q '^FDW-BOOT-OK sums=ok files=3000 root=crypt$' <<<"$res"
if [ "$VM_FAILED" != 0 ]; then
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
