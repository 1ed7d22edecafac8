#!/bin/bash
# fdewiz VM tests: device-mapper tables (linear, over the disk's or the partition's sectors)
# and loop devices over a real partition node are found as holders by the bytes they map;
# list names them, encrypt and resume refuse, and no byte of the disk changes.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-holders
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq dmsetup
vm_find_fdewiz

img=$VM_WORK/holders.img
# Small partitions: every check hashes all three, and hashing is slow under emulation.
truncate -s 230M "$img"
vm_parted "$img" mklabel gpt \
	mkpart Data ext4 1MiB 73MiB \
	mkpart Other ext4 73MiB 145MiB \
	mkpart Begun ext4 145MiB 217MiB
MiB=$((1024 * 1024))
mkdir -p "$VM_WORK/data"
head -c 4M /dev/urandom >"$VM_WORK/data/file.bin"
mkfs.ext4 -q -F -b 4096 -E "offset=$MiB,nodiscard" -L data -d "$VM_WORK/data" "$img" 72M
mkfs.ext4 -q -F -b 4096 -E "offset=$((73 * MiB)),nodiscard" -L other "$img" 72M

vm_run --timeout 900 --env "ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0:detect_leaks=0}" \
	--disk "$img" "$VM_HERE/guest/holders.sh" "$FDEWIZ"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-HOLDERS-OK" grep -q '^FDEWIZ-HOLDERS-OK' "$VM_LOG"
vm_finish
