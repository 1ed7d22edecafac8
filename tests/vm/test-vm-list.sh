#!/bin/bash
# fdewiz VM tests: "fdewiz list" on a real kernel sees partition nodes, mounts and LUKS2;
# a FAT partition without the esp flag that holds Windows' boot manager (a fourth disk) is
# looked into through the kernel's FAT driver and refused, its bytes unchanged.
#
# FDEWIZ names the binary (default: src/fdewiz of this tree); it must not live under
# /tmp, which the guest replaces by a tmpfs.  LIST_TRACE=1 traces the guest half with
# seconds since it started (where the time goes under TCG).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-list
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq python3-jsonschema dosfstools mtools

top=$(cd "$VM_HERE/../.." && pwd)
vm_find_fdewiz
schema=$top/data/fdewiz-list.schema.json

MiB=$((1024 * 1024))
img=$VM_WORK/list.img
# Boot 96 MiB, Data 128 MiB, Secret 128 MiB, then 32 MiB left free at the end.  Boot is
# not 64 MiB: fdewiz shrinks by 32 MiB only when twice that is free, which a 64 MiB ext4
# never has.
truncate -s 386M "$img"
vm_parted "$img" mklabel gpt \
	mkpart Boot ext4 1MiB 97MiB \
	mkpart Data ext4 97MiB 225MiB \
	mkpart Secret ext4 225MiB 353MiB

# Some files in each filesystem; Secret's are checked again after encryption.
for p in boot data secret; do
	mkdir -p "$VM_WORK/$p"
done
head -c 1M /dev/urandom >"$VM_WORK/boot/notes.bin"
head -c 5M /dev/urandom >"$VM_WORK/data/photos.bin"
head -c 6M /dev/urandom >"$VM_WORK/secret/keys.bin"
echo "not for your eyes" >"$VM_WORK/secret/diary.txt"
(cd "$VM_WORK/secret" && sha256sum keys.bin diary.txt) >"$VM_WORK/secret.sha256"

# 4 KiB blocks: mke2fs would pick 1 KiB on filesystems this small.  nodiscard: a
# discard on an image file would punch holes outside the filesystem too.
mk()
{
	mkfs.ext4 -q -F -b 4096 -E "offset=$(($1 * MiB)),nodiscard" -L "$2" -d "$VM_WORK/$2" \
		"$img" "$3"
}
mk 1 boot 96M
mk 97 data 128M
mk 225 secret 128M

# A second and a third disk: an installed Debian's root on one (its fstab names /boot by
# UUID), its /boot on the other. Encrypting that /boot by its own node scans only its own
# disk; fdewiz must still find whose it is, refuse it, and change no byte.
root_uuid=$(cat /proc/sys/kernel/random/uuid)
boot_uuid=$(cat /proc/sys/kernel/random/uuid)
mkdir -p "$VM_WORK/sysroot/etc" "$VM_WORK/sysroot/usr/lib" "$VM_WORK/sysboot"
printf 'UUID=%s / ext4 errors=remount-ro 0 1\nUUID=%s /boot ext4 defaults 0 2\n' \
	"$root_uuid" "$boot_uuid" >"$VM_WORK/sysroot/etc/fstab"
printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n' \
	>"$VM_WORK/sysroot/usr/lib/os-release"
head -c 1M /dev/urandom >"$VM_WORK/sysboot/vmlinuz-6.1.0-test"
for d in sys boot2; do
	truncate -s 100M "$VM_WORK/$d.img"
	vm_parted "$VM_WORK/$d.img" mklabel gpt mkpart p ext4 1MiB 99MiB
done
mkfs.ext4 -q -F -b 4096 -U "$root_uuid" -d "$VM_WORK/sysroot" \
	-E "offset=$MiB,nodiscard" "$VM_WORK/sys.img" 98M
mkfs.ext4 -q -F -b 4096 -U "$boot_uuid" -d "$VM_WORK/sysboot" \
	-E "offset=$MiB,nodiscard" "$VM_WORK/boot2.img" 98M
boot2_sum=$(sha256sum <"$VM_WORK/boot2.img")

# The fourth disk: Windows' boot manager on FAT, in a partition without the esp flag (an
# MBR's, whose type no flag tells), written with mtools: nothing mounts it here.
truncate -s 100M "$VM_WORK/win.img"
vm_parted "$VM_WORK/win.img" mklabel msdos mkpart primary fat32 1MiB 99MiB
mkfs.vfat -F 32 -n WINBOOT --offset 2048 "$VM_WORK/win.img" $((98 * 1024)) >/dev/null
head -c 65536 /dev/urandom >"$VM_WORK/bootmgfw.efi"
MTOOLS_SKIP_CHECK=1 mmd -i "$VM_WORK/win.img@@$MiB" ::/EFI ::/EFI/Microsoft \
	::/EFI/Microsoft/Boot 2>/dev/null
MTOOLS_SKIP_CHECK=1 mcopy -i "$VM_WORK/win.img@@$MiB" "$VM_WORK/bootmgfw.efi" \
	::/EFI/Microsoft/Boot/ 2>/dev/null
win_sum=$(sha256sum <"$VM_WORK/win.img")

vm_run ${LIST_TRACE:+--env LIST_TRACE=1} --timeout 600 --disk "$img" \
	--disk "$VM_WORK/sys.img" --disk "$VM_WORK/boot2.img" --disk "$VM_WORK/win.img" \
	"$VM_HERE/guest/list.sh" "$FDEWIZ" "$VM_WORK/secret.sha256"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-LIST-OK" grep -q '^FDEWIZ-LIST-OK$' "$VM_LOG"
for how in encrypt encrypt-dry-run erase-encrypt; do
	vm_check "$how of a /boot on another disk than its root is refused, saying whose" \
		grep -q "^list: CROSS-DISK $how rc=[1-9][0-9]* .*/boot of Debian GNU/Linux 12 (bookworm) on /dev/vdb1" "$VM_LOG"
done
vm_check "list over all disks says whose /boot it is" \
	grep -q '^list: CROSS-DISK list vdc1 installed-system-boot /dev/vdb1$' "$VM_LOG"
vm_check "that disk's bytes are unchanged" [ "$(sha256sum <"$VM_WORK/boot2.img")" = "$boot2_sum" ]
vm_check "Windows' boot manager on FAT is seen through the kernel's driver and refused" \
	grep -q '^list: WINDOWS-BOOT list other-os-boot \["efi","windows-boot"\] top$' "$VM_LOG"
vm_check "encrypting it is refused, saying Windows starts from it" \
	grep -q "^list: WINDOWS-BOOT encrypt rc=1 .*Holds Windows' boot manager: Windows starts from it.*Nothing was changed" "$VM_LOG"
vm_check "its disk's bytes are unchanged" [ "$(sha256sum <"$VM_WORK/win.img")" = "$win_sum" ]

# The guest printed the JSON; check it against the schema here, where python is fast.
sed -n '/^FDEWIZ-LIST-JSON-BEGIN$/,/^FDEWIZ-LIST-JSON-END$/p' "$VM_LOG" | sed '1d;$d' \
	>"$VM_WORK/list.json"
schema_ok()
{
	python3 - "$schema" "$VM_WORK/list.json" <<'PY'
import json, sys, jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:3])
jsonschema.validate(doc, schema)
PY
}
if [ -f "$schema" ]; then
	vm_check "fdewiz list --json output in the guest matches the schema" schema_ok
fi

vm_finish
