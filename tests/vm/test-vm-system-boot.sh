#!/bin/bash
# fdewiz VM tests: encrypt an installed system's root in place and keep it booting, with its
# /home encrypted too and one passphrase at boot.
# A real Debian 12 (tests/vm/installed-image.sh: mmdebstrap, GRUB for BIOS in the MBR,
# /boot, /, swap; built once and cached) gets a /home partition of its own (vm_add_home: the
# cache is not rebuilt), which fdewiz converts from outside, writing that system's crypttab
# and fstab, after refusing its /boot with every byte unchanged. The 9p "live" VM then runs
# fdewiz encrypt on its root partition (passphrase from a pipe, the same as /home's) with
# the state folder on a disk of its own, and a third disk holding another LUKS volume that
# the system's crypttab names with another passphrase. fdewiz writes the system's
# crypttab, gives /home a key file inside the encrypted root (the other volume keeps
# asking), and rebuilds its initramfs in a chroot; the live VM checks the volume with the
# cryptsetup program and e2fsck, the crypttab, the key file, the initramfs and the swap.
# Then the system boots from its own disk under QEMU: one passphrase typed (the
# initramfs's, for the root), /home opened with its key file and mounted from dm-crypt,
# and its check unit reports the sha256 of 3000 + 30 files. (The boot of a plain root with
# an encrypted /home, asking for its passphrase, was this test's until the key file; the
# crypttab line it boots from is checked by tests/root/test-system-partitions.sh.)
# Each phase's time is printed.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-boot
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap
vm_find_fdewiz

t0=$(date +%s)
phase() { echo "$VM_NAME: TIMING $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

prep=$("$VM_HERE/installed-image.sh") || { vm_fail "building the installed image"; vm_finish; }
cached=$(sed -n 's/^image=//p' <<<"$prep")
root_uuid=$(sed -n 's/^root_uuid=//p' <<<"$prep")
phase "image-ready (cached or built)"
img=$VM_WORK/installed.img
cp --sparse=always "$cached" "$img"
chmod 0644 "$img"
printf 'correct horse battery staple 12' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 64M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"

# 0. Refusals on this real system, each with every byte unchanged: without
# cryptsetup-initramfs (its hook removed), and with a boot loader fdewiz does not know
# (GRUB's modules removed). The partition is changed with debugfs in a copy.
root_off=$(vm_parted -m "$img" unit B print | awk -F: '$1 == "2" { sub("B", "", $2); print $2 }')
root_len=$(vm_parted -m "$img" unit B print | awk -F: '$1 == "2" { sub("B", "", $4); print $4 }')
refusal() # NAME DEBUGFS-COMMANDS EXPECTED-TEXT
{
	local bad=$VM_WORK/refuse-$1.img fs=$VM_WORK/refuse-$1.fs out rc=0 sum
	cp --sparse=always "$img" "$bad"
	dd if="$bad" of="$fs" bs=1M iflag=skip_bytes,count_bytes skip="$root_off" \
		count="$root_len" status=none
	printf '%s\n' "$2" | debugfs -w -f - "$fs" >/dev/null 2>&1
	dd if="$fs" of="$bad" bs=1M oflag=seek_bytes seek="$root_off" conv=notrunc,sparse status=none
	rm -f "$fs"
	sum=$(sha256sum <"$bad")
	out=$(FDEWIZ_STATE_DIR=$VM_WORK/state-$1 "$FDEWIZ" encrypt --yes --foreground --no-bench \
		--fast-pbkdf --key-file - --header-backup "$VM_WORK/$1.hdr" "$bad:2" \
		<"$VM_WORK/key" 2>&1) || rc=$?
	echo "$VM_NAME: refusal ($1): $out"
	vm_check "$1: encrypt refuses (exit $rc)" [ "$rc" != 0 ]
	vm_check "$1: it says why and what to do" grep -qF "$3" <<<"$out"
	vm_check "$1: it says nothing was changed" grep -qF "Nothing was changed" <<<"$out"
	vm_check "$1: every byte of the image is unchanged" [ "$(sha256sum <"$bad")" = "$sum" ]
	vm_check "$1: no header backup was written" [ ! -e "$VM_WORK/$1.hdr" ]
	rm -f "$bad"
}
refusal no-cryptsetup-initramfs "rm /usr/share/initramfs-tools/hooks/cryptroot" \
	"install cryptsetup-initramfs"
refusal unknown-boot-loader "$(printf '%s\n' 'link /usr/lib/grub/i386-pc /usr/lib/grub/gone' \
	'unlink /usr/lib/grub/i386-pc')" "boot loader is not one fdewiz knows"
phase "refusals"

# 1. Its /home on a partition of its own, converted from outside (as from a live USB
# stick): its /boot is refused, every byte unchanged; /home gets that system's crypttab.
vm_add_home "$img" || vm_fail "adding a /home partition to the image"
sum=$(sha256sum <"$img")
rc=0
out=$(FDEWIZ_STATE_DIR=$VM_WORK/state-home "$FDEWIZ" encrypt --yes --foreground --no-bench \
	--fast-pbkdf --key-file - --header-backup "$VM_WORK/boot.hdr" "$img:1" \
	<"$VM_WORK/key" 2>&1) || rc=$?
echo "$VM_NAME: /boot: $out"
vm_check "its /boot is refused (exit $rc)" [ "$rc" != 0 ]
vm_check "it says whose /boot it is" \
	grep -qF "/boot of Debian GNU/Linux 12 (bookworm) on $img:2" <<<"$out"
vm_check "every byte is unchanged after that refusal" [ "$(sha256sum <"$img")" = "$sum" ]
rc=0
out=$(FDEWIZ_STATE_DIR=$VM_WORK/state-home "$FDEWIZ" encrypt --yes --foreground --no-bench \
	--fast-pbkdf --key-file - --header-backup "$VM_WORK/home.hdr" "$img:4" \
	<"$VM_WORK/key" 2>&1) || rc=$?
echo "$VM_NAME: /home: $out"
vm_check "its /home is converted from outside (exit $rc)" [ "$rc" = 0 ]
vm_check "that system's crypttab got /home" \
	grep -qF "its etc/crypttab has 'home_crypt UUID=" <<<"$out"
vm_check "that system's fstab was changed (with a backup)" grep -qF "$img:2 /etc/fstab (" <<<"$out"
phase "home-from-outside"

# 2. The live VM encrypts its root partition; fdewiz sets up the system's boot. A third
# disk holds another LUKS volume of that system, with another passphrase.
plain_sum=$(sha256sum <"$img")
other=$VM_WORK/other.img
truncate -s 32M "$other"
vm_run --timeout 2400 --mem 1024 --disk "$img" --disk "$state" --disk "$other" \
	"$VM_HERE/guest/system-boot.sh" "$FDEWIZ" "$VM_WORK" encrypt
phase "encrypt-in-live-vm"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-SYSTEM-BOOT-OK" grep -q '^FDEWIZ-SYSTEM-BOOT-OK' "$VM_LOG"
vm_check "a state folder on tmpfs is refused, with what to do" \
	grep -q '^system-boot: VOLATILE rc=1 .*held in memory.*FDEWIZ_STATE_DIR.*Nothing was changed' "$VM_LOG"
vm_check "that refusal left the root partition unchanged" grep -q '^system-boot: VOLATILE-UNCHANGED' "$VM_LOG"
vm_check "the verdict offered the installed system's root" \
	grep -q '^system-boot: verdict: \[true,"ok",true,"grub-bios"\]' "$VM_LOG"
vm_check "the plan listed the boot steps" grep -q 'rebuild its initramfs in a chroot' "$VM_LOG"
vm_check "encrypt listed the files it changed" grep -q '^  /etc/crypttab (' "$VM_LOG"
luks=$(tr -d '\r' <"$VM_LOG" | sed -n 's/^system-boot: LUKSUUID //p')
vm_check "crypttab names the volume by its LUKS UUID" \
	grep -q "^system-boot: CRYPTTAB vda2_crypt UUID=$luks none luks" "$VM_LOG"
vm_check "e2fsck of the encrypted root is clean" grep -q '^system-boot: FSCK rc=0' "$VM_LOG"
vm_check "the old initramfs is kept as a backup" \
	grep -q '^system-boot: BACKUPS .*initrd.img-.*\.fdewiz-bak' "$VM_LOG"
vm_check "crypttab gives the swap a random key by PARTUUID" \
	grep -q '^system-boot: CRYPTTAB cryptswap1 PARTUUID=[0-9a-f]*-03 /dev/urandom swap,' "$VM_LOG"
vm_check "fstab names the encrypted swap" grep -q '^system-boot: FSTAB-SWAP /dev/mapper/cryptswap1$' "$VM_LOG"
vm_check "the old swap signature is gone" grep -q '^system-boot: OLD-SWAP-SIGNATURE none$' "$VM_LOG"
vm_check "the plain swap partition is overwritten" grep -q '^system-boot: SWAP-ZEROS yes$' "$VM_LOG"
vm_check "the initramfs waits for no hibernation image" grep -q '^system-boot: RESUME RESUME=none$' "$VM_LOG"
vm_check "the image changed" [ "$(sha256sum <"$img")" != "$plain_sum" ]
vm_check "the plan said /home gets a key file inside the encrypted root" \
	grep -q 'get a key file inside the encrypted root, so one' "$VM_LOG"
vm_check "the system's crypttab opens /home with the key file" \
	grep -q '^system-boot: CRYPTTAB home_crypt UUID=[0-9a-f-]* /etc/cryptsetup-keys.d/home_crypt.key luks$' "$VM_LOG"
vm_check "the key file is 64 bytes, readable by root only, in a folder of mode 700" \
	grep -q '^system-boot: KEYFILE home_crypt.key 400 64 dir 700$' "$VM_LOG"
vm_check "the key file opens /home (cryptsetup), in a slot tried first" \
	grep -q '^system-boot: HOME-KEY opens slots=2 prefer=1$' "$VM_LOG"
vm_check "encrypt listed the key file as a new file" \
	grep -q '^  /etc/cryptsetup-keys.d/home_crypt.key (new file)' "$VM_LOG"
vm_check "the volume with another passphrase keeps asking: its line, no key file, one slot" \
	grep -q '^system-boot: OTHER line=none,nofail keyfile=no slots=1$' "$VM_LOG"

# 3. The system boots from its own disk: one passphrase, for the root; /home by key file.
vm_boot_installed "$img" "$VM_WORK/boot1.log" "$VM_WORK/key" 900
res=$(vm_boot_result "$VM_WORK/boot1.log")
home=$(vm_home_result "$VM_WORK/boot1.log")
phase "boot-encrypted-root-and-home (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res; $home"
vm_check "the system boots encrypted from its own disk and its 3000 files check out" \
	grep -q '^FDW-BOOT-OK sums=ok files=3000 root=crypt$' <<<"$res"
vm_check "one passphrase was asked at boot (the root's; /home opened with its key file)" \
	[ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "/home is mounted from dm-crypt and its 30 files check out" \
	grep -q '^FDW-HOME source=/dev/mapper/home_crypt type=crypt sums=ok files=30$' <<<"$home"
vm_finish
