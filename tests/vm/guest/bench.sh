#!/bin/bash
# Guest half of test-vm-bench.sh: encrypt /dev/vda2 online with the benchmark on, then
# compare the two saved runs and verify every file.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/vol
step() { echo "bench: $*"; }
die() { echo "bench: FAIL: $*"; exit 1; }

step "encrypt /dev/vda2 online in the foreground, benchmark before and after"
"$fdewiz" encrypt --foreground --yes --fast-pbkdf --bench-scale tiny --key-file "$work/key" \
	--header-backup /run/hdr.bak /dev/vda2 || die "encrypt"
job=$(ls "$FDEWIZ_STATE_DIR"/jobs/*.json)
before=$(jq -r '.bench_before' "$job")
after=$(jq -r '.bench_after' "$job")
name=$(jq -r '.active_name' "$job")
step "before: $before; after: $after; note: $(jq -r '.bench_note' "$job")"
[ -s "$before" ] || die "no baseline saved"
[ -s "$after" ] || die "no after-benchmark saved"
[ "$(jq -r '.label' "$before")" = before ] || die "baseline label"
[ "$(jq -r '.label' "$after")" = after ] || die "after label"
[ -n "$(jq -r '.cipher' "$after")" ] || die "the after run does not name its cipher"
[ -n "$(jq -r '.kernel' "$after")" ] || die "the after run does not name its kernel"
# Nothing of the benchmarks is left on the filesystem or mounted.
grep -q /run/fdewiz/bench /proc/mounts && die "a benchmark mount was left behind"

echo COMPARE-BEGIN
"$fdewiz" bench --compare "$before" "$after" || die "bench --compare"
echo COMPARE-END
# The host reads the comparison from the console: this root is read-only for the guest.
"$fdewiz" bench --compare --json "$before" "$after" >/run/compare.json || die "compare --json"
echo "COMPARE-JSON $(jq -c . /run/compare.json)"

# The data: a fresh open, fsck, every file.
[ -b "/dev/mapper/$name" ] || die "no /dev/mapper/$name"
cryptsetup close "$name" || die "close"
cryptsetup open --key-file "$work/key" /dev/vda2 check
e2fsck -fn /dev/mapper/check >/dev/null 2>&1 || die "e2fsck"
mount -o ro /dev/mapper/check /mnt/vol
(cd /mnt/vol && sha256sum -c --quiet "$work/before.sha256") || die "files differ"
ls -A /mnt/vol | grep -qv -e '^docs$' -e '^big$' -e '^lost+found$' && die "scratch files left"
step "$(wc -l <"$work/before.sha256") files verified through dm-crypt"
umount /mnt/vol
cryptsetup close check
echo FDEWIZ-BENCH-OK
