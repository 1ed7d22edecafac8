#!/bin/bash
# fdewiz VM tests: finishing an installation on a real kernel. A partition encrypted in place
# by fdewiz gets its crypttab entry from `fdewiz crypttab`; Debian's own cryptdisks_start
# opens it from that entry with the passphrase typed to its prompt; the fstab line that named
# the raw partition now names /dev/mapper/NAME and mounts it; every file verifies. Then
# `fdewiz erase-encrypt --fs ext4|vfat` makes new encrypted volumes that open, mount, take
# files and pass fsck.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-crypttab
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs dosfstools jq

vm_find_fdewiz

MiB=$((1024 * 1024))
img=$VM_WORK/crypttab.img
truncate -s 200M "$img"
vm_parted "$img" mklabel gpt mkpart Boot ext4 1MiB 33MiB mkpart Data ext4 33MiB 199MiB
mkdir -p "$VM_WORK/data/docs" "$VM_WORK/data/media"
for i in $(seq 1 300); do head -c $((i * 41 % 7000 + 1)) /dev/urandom >"$VM_WORK/data/docs/d$i"; done
for i in $(seq 1 5); do head -c $((i * 2 * MiB)) /dev/urandom >"$VM_WORK/data/media/m$i"; done
(cd "$VM_WORK/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$VM_WORK/before.sha256"
mkfs.ext4 -q -F -b 4096 -E "offset=$((33 * MiB)),nodiscard" -L data -d "$VM_WORK/data" \
	"$img" 166M
printf 'crypttab test key' >"$VM_WORK/key"

erase=$VM_WORK/erase.img
truncate -s 200M "$erase"
vm_parted "$erase" mklabel gpt mkpart Fresh ext4 1MiB 120MiB mkpart Small fat32 120MiB 199MiB
mkfs.ext4 -q -F -b 4096 -E "offset=$MiB,nodiscard" -L Old "$erase" 119M
printf 'erase test key' >"$VM_WORK/key2"

vm_run --timeout 900 --disk "$img" --disk "$erase" "$VM_HERE/guest/crypttab.sh" "$FDEWIZ" "$VM_WORK"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-CRYPTTAB-OK" grep -q '^FDEWIZ-CRYPTTAB-OK$' "$VM_LOG"
vm_check "cryptdisks_start opened the volume from fdewiz's entry" \
	grep -q '^crypttab: cryptdisks_start opened /dev/mapper/data$' "$VM_LOG"
vm_check "guest printed FDEWIZ-ERASE-OK" grep -q '^FDEWIZ-ERASE-OK$' "$VM_LOG"

# On the host: both partitions of the erase image are LUKS2 now (one erase each).
types=$("$FDEWIZ" list --json "$erase" | jq -r '[.disks[0].partitions[].fstype] | join(" ")')
vm_check "host sees two new LUKS2 volumes ($types)" [ "$types" = "crypto_LUKS crypto_LUKS" ]
vm_finish
