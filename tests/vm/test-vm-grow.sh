#!/bin/bash
# fdewiz VM tests: the grow strategy on a real kernel with partition nodes: libparted
# moves the partition's end, the kernel must see the new size before the header goes
# on, and the volume then opens and verifies.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-grow
vm_need_pkgs parted cryptsetup-bin e2fsprogs

vm_find_fdewiz

MiB=$((1024 * 1024))
img=$VM_WORK/grow.img
truncate -s 300M "$img"
vm_parted "$img" mklabel gpt mkpart Data ext4 1MiB 200MiB
mkdir -p "$VM_WORK/data"
for i in $(seq 1 300); do head -c $((i * 131 % 20000 + 1)) /dev/urandom >"$VM_WORK/data/f$i"; done
(cd "$VM_WORK/data" && sha256sum f*) >"$VM_WORK/sums"
mkfs.ext4 -q -F -b 4096 -E "offset=$MiB,nodiscard" -d "$VM_WORK/data" "$img" 199M
printf 'grow test key' >"$VM_WORK/key"

vm_run --timeout 400 --disk "$img" "$VM_HERE/guest/grow.sh" "$FDEWIZ" "$VM_WORK"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-GROW-OK" grep -q '^FDEWIZ-GROW-OK$' "$VM_LOG"
end=$(parted -m -s "$img" unit MiB print 2>/dev/null | awk -F: '$1 == 1 { print $3 }')
vm_check "partition 1 now ends at 232MiB (got $end)" [ "$end" = 232MiB ]
vm_finish
