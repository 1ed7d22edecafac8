#!/bin/bash
# fdewiz VM tests: online in-place encryption on a real kernel with device-mapper: the
# volume is mounted and written to while it converts, the shrunk ext4 grows back, and
# every file (old and written during the conversion) verifies after a fresh open.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-online
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq

vm_find_fdewiz asan

MiB=$((1024 * 1024))
img=$VM_WORK/online.img
truncate -s 450M "$img"
vm_parted "$img" mklabel gpt mkpart Boot ext4 1MiB 33MiB mkpart Data ext4 33MiB 449MiB
mkdir -p "$VM_WORK/data/docs" "$VM_WORK/data/media"
for i in $(seq 1 600); do head -c $((i * 37 % 9000 + 1)) /dev/urandom >"$VM_WORK/data/docs/d$i"; done
for i in $(seq 1 8); do head -c $((i * 3 * MiB)) /dev/urandom >"$VM_WORK/data/media/m$i"; done
(cd "$VM_WORK/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$VM_WORK/before.sha256"
mkfs.ext4 -q -F -b 4096 -E "offset=$((33 * MiB)),nodiscard" -L data -d "$VM_WORK/data" \
	"$img" 416M
printf 'online test key' >"$VM_WORK/key"

vm_run --timeout 900 --disk "$img" "$VM_HERE/guest/online.sh" "$FDEWIZ" "$VM_WORK"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-ONLINE-OK" grep -q '^FDEWIZ-ONLINE-OK$' "$VM_LOG"

# On the host: the partition is a finished LUKS2 volume.
state=$("$FDEWIZ" list --json "$img" | jq -r '.disks[0].partitions[1] | "\(.fstype) \(.luks.reencrypt_unfinished)"')
vm_check "host sees a finished LUKS2 volume ($state)" [ "$state" = "crypto_LUKS false" ]
vm_finish
