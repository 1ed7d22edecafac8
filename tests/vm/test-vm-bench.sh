#!/bin/bash
# fdewiz VM tests: the benchmark around an online encryption. The baseline runs on the
# plain ext4 partition before anything changes, the after-run on the opened dm-crypt
# volume when the conversion is done; both are saved, compared side by side, and the
# data verifies afterwards.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-bench
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq

vm_find_fdewiz

MiB=$((1024 * 1024))
img=$VM_WORK/bench.img
truncate -s 450M "$img"
vm_parted "$img" mklabel gpt mkpart Boot ext4 1MiB 33MiB mkpart Data ext4 33MiB 449MiB
mkdir -p "$VM_WORK/data/docs"
for i in $(seq 1 300); do head -c $((i * 53 % 12000 + 1)) /dev/urandom >"$VM_WORK/data/docs/d$i"; done
head -c $((20 * MiB)) /dev/urandom >"$VM_WORK/data/big"
(cd "$VM_WORK/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$VM_WORK/before.sha256"
mkfs.ext4 -q -F -b 4096 -E "offset=$((33 * MiB)),nodiscard" -L data -d "$VM_WORK/data" \
	"$img" 416M
printf 'bench test key' >"$VM_WORK/key"

vm_run --timeout 1500 --disk "$img" "$VM_HERE/guest/bench.sh" "$FDEWIZ" "$VM_WORK"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-BENCH-OK" grep -q '^FDEWIZ-BENCH-OK$' "$VM_LOG"

# The comparison the guest saved is on the host too, with every I/O test paired.
cmp=$VM_WORK/compare.json
sed -n 's/^COMPARE-JSON //p' "$VM_LOG" | tr -d '\r' >"$cmp"
vm_check "comparison printed as JSON" jq -e '.tests | length > 0' "$cmp"
n=$(jq '[.tests[] | select(.id | startswith("io."))] | length' "$cmp" 2>/dev/null || echo 0)
# The default I/O set: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1 and RND4K Q1T1, each read and
# write, and RND4K Q32T1 mix 70/30.
vm_check "9 I/O tests compared plain against encrypted (got $n)" [ "$n" = 9 ]
n=$(jq '[.tests[] | select(.id | startswith("build."))] | length' "$cmp" 2>/dev/null || echo 0)
vm_check "build steps compared (got $n)" [ "$n" -ge 3 ]
echo "comparison table from the guest:"
sed -n '/^COMPARE-BEGIN$/,/^COMPARE-END$/p' "$VM_LOG" | sed '1d;$d'
vm_finish
