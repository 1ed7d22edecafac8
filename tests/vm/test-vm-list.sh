#!/bin/bash
# fdewiz VM tests: "fdewiz list" on a real kernel sees partition nodes, mounts and LUKS2.
#
# FDEWIZ names the binary (default: src/fdewiz of this tree); it must not live under
# /tmp, which the guest replaces by a tmpfs.  LIST_TRACE=1 traces the guest half with
# seconds since it started (where the time goes under TCG).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-list
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq python3-jsonschema

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
head -c 1M /dev/urandom >"$VM_WORK/boot/vmlinuz-test"
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

vm_run ${LIST_TRACE:+--env LIST_TRACE=1} --timeout 600 --disk "$img" \
	"$VM_HERE/guest/list.sh" "$FDEWIZ" "$VM_WORK/secret.sha256"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-LIST-OK" grep -q '^FDEWIZ-LIST-OK$' "$VM_LOG"

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
