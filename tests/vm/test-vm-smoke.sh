#!/bin/bash
# fdewiz VM tests: the harness itself works (partitions, dm-crypt, ext4, exit codes).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-smoke
vm_need_pkgs parted cryptsetup-bin e2fsprogs

img=$VM_WORK/smoke.img
truncate -s 64M "$img"
vm_parted "$img" mklabel gpt mkpart one ext4 1MiB 17MiB mkpart two ext4 17MiB 63MiB

vm_run --timeout 300 --disk "$img" "$VM_HERE/guest/smoke.sh"
vm_check "guest script exited 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-SMOKE-OK" grep -q '^FDEWIZ-SMOKE-OK ' "$VM_LOG"

# The guest's writes reached the image file: a LUKS2 header at partition 2's start.
off=$(vm_parted -m "$img" unit B print | awk -F: '$1 == "2" { sub("B", "", $2); print $2 }')
magic=$(od -An -c -j "$off" -N 6 "$img" | tr -d ' ')
vm_check "LUKS header on partition 2 of the image (host view)" [ "$magic" = 'LUKS272276' ]

vm_finish
