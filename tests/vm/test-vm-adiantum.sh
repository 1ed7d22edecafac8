#!/bin/bash
# fdewiz VM tests: the netbook without AES instructions (qemu -cpu max,aes=off). The
# cipher advisor recommends Adiantum, `encrypt` with no --cipher uses it (cryptsetup
# luksDump shows xchacha12,aes-adiantum-plain64), and the volume opens with the cryptsetup
# program in the VM and every file verifies.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-adiantum
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq

vm_find_fdewiz

MiB=$((1024 * 1024))
img=$VM_WORK/netbook.img
truncate -s 200M "$img"
vm_parted "$img" mklabel gpt mkpart Boot ext4 1MiB 17MiB mkpart Data ext4 17MiB 199MiB
mkdir -p "$VM_WORK/data/docs" "$VM_WORK/data/media"
for i in $(seq 1 200); do head -c $((i * 37 % 9000 + 1)) /dev/urandom >"$VM_WORK/data/docs/d$i"; done
for i in $(seq 1 4); do head -c $((i * 3 * MiB)) /dev/urandom >"$VM_WORK/data/media/m$i"; done
(cd "$VM_WORK/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$VM_WORK/before.sha256"
mkfs.ext4 -q -F -b 4096 -E "offset=$((17 * MiB)),nodiscard" -L data -d "$VM_WORK/data" \
	"$img" 182M
printf 'netbook test key' >"$VM_WORK/key"

FDEWIZ_VM_CPU=max,aes=off vm_run --timeout 1500 --disk "$img" "$VM_HERE/guest/adiantum.sh" \
	"$FDEWIZ" "$VM_WORK"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-ADIANTUM-OK" grep -q '^FDEWIZ-ADIANTUM-OK$' "$VM_LOG"
grep -E '^adiantum: ' "$VM_LOG" | sed 's/^/    /' || true

# On the host: a finished LUKS2 volume whose cipher is Adiantum.
off=$(vm_parted -m "$img" unit B print | awk -F: '$1 == "2" { sub("B", "", $2); print $2 }')
dev=$(losetup -f --show -o "$off" --sizelimit $((182 * MiB)) "$img")
dump=$(cryptsetup luksDump "$dev" 2>&1 || true)
losetup -d "$dev"
vm_check "host luksDump: cipher xchacha12,aes-adiantum-plain64" \
	grep -q 'cipher: xchacha12,aes-adiantum-plain64' <<<"$dump"
vm_check "host luksDump: no reencryption left" sh -c "! grep -q 'Requirements:' <<'EOF'
$dump
EOF"
vm_finish
