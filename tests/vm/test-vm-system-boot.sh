#!/bin/bash
# fdewiz VM tests: what an installed system's root and /boot refuse, on the real Debian 12
# that the boot tests boot (tests/vm/installed-image.sh: mmdebstrap, GRUB for BIOS in the
# MBR, /boot, /, swap; built once and cached). Each refusal leaves every byte of the image
# unchanged: the root without cryptsetup-initramfs (its hook removed) or with a boot loader
# fdewiz does not know (GRUB's modules removed), and its /boot, which its boot loader reads
# before a passphrase can be asked for; and the root when fdewiz's state folder is held in
# memory (a tmpfs), on the image attached as a loop device. No VM is booted here: the conversions and boots of
# this system are test-vm-system-wizard.sh's (the wizard; /home from outside with one
# passphrase at boot) and test-vm-system-carve.sh's (the command line on a /boot inside the
# root, cut by power losses and finished by resume). Each phase's time is printed.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-boot
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap
vm_find_fdewiz

vm_installed_copy image installed.img
root_uuid=$(vm_prep root_uuid)
printf 'correct horse battery staple 12' >"$VM_WORK/key"

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

# 1. Its /boot, from outside (as from a live USB stick): refused, every byte unchanged.
sum=$(sha256sum <"$img")
rc=0
out=$(FDEWIZ_STATE_DIR=$VM_WORK/state-boot "$FDEWIZ" encrypt --yes --foreground --no-bench \
	--fast-pbkdf --key-file - --header-backup "$VM_WORK/boot.hdr" "$img:1" \
	<"$VM_WORK/key" 2>&1) || rc=$?
echo "$VM_NAME: /boot: $out"
vm_check "its /boot is refused (exit $rc)" [ "$rc" != 0 ]
vm_check "it says whose /boot it is" \
	grep -qF "/boot of Debian GNU/Linux 12 (bookworm) on $img:2" <<<"$out"
vm_check "it says what to do instead" grep -qF "encrypt that system's root ($img:2) instead" <<<"$out"
vm_check "every byte is unchanged after that refusal" [ "$(sha256sum <"$img")" = "$sum" ]
vm_check "no header backup was written" [ ! -e "$VM_WORK/boot.hdr" ]
phase "boot-refused"

# 2. Its root from a live system whose state folder is held in memory (a live USB stick's
# /var/lib, a tmpfs): a power cut would take the job record, so it is refused before
# anything changes. On the image's own partitions (a loop device, as a disk), since an
# image file's partition is refused earlier for another reason.
loop=$(losetup --find --show --partscan "$img")
partx -a "$loop" 2>/dev/null || true	# where the kernel's own scan makes no nodes
volatile=$VM_WORK/volatile
mkdir -p "$volatile"
mount -t tmpfs -o size=16m fdewiz-volatile "$volatile"
trap 'rc=$?; umount "$volatile" 2>/dev/null; partx -d "$loop" 2>/dev/null; losetup -d "$loop"
	vm_cleanup "$rc"' EXIT
udevadm settle 2>/dev/null || true
for _ in $(seq 1 50); do [ -b "${loop}p2" ] && break; sleep 0.1; done
sum=$(sha256sum <"${loop}p2")
rc=0
out=$(FDEWIZ_STATE_DIR=$volatile/state "$FDEWIZ" encrypt --yes --foreground --no-bench \
	--fast-pbkdf --key-file - --header-backup "$VM_WORK/volatile.hdr" "${loop}p2" \
	<"$VM_WORK/key" 2>&1) || rc=$?
echo "$VM_NAME: volatile state folder: $out"
vm_check "a state folder on tmpfs is refused (exit $rc)" [ "$rc" != 0 ]
vm_check "it says why and what to do" \
	grep -q 'held in memory.*FDEWIZ_STATE_DIR.*Nothing was changed' <<<"$(tr '\n' ' ' <<<"$out")"
vm_check "that refusal left the root partition unchanged" [ "$(sha256sum <"${loop}p2")" = "$sum" ]
vm_check "no header backup was written" [ ! -e "$VM_WORK/volatile.hdr" ]
phase "volatile-state-refused"
vm_finish
