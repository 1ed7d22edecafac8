#!/bin/bash
# Guest half of test-vm-adiantum.sh: on a CPU without AES instructions, encrypt /dev/vda2
# with the advised cipher, then open it with cryptsetup and verify every file.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/vol
step() { echo "adiantum: $*"; }
die() { echo "adiantum: FAIL: $*"; exit 1; }

grep -qw aes /proc/cpuinfo && die "this CPU has AES instructions (qemu -cpu without aes=off?)"
step "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), no 'aes' flag"

# The advisor, through the plan (changes nothing).
"$fdewiz" encrypt --dry-run /dev/vda2 >/run/plan.txt 2>&1 || { cat /run/plan.txt; die "dry run"; }
grep -E 'cipher|advised' /run/plan.txt | sed 's/^/adiantum: plan: /'
grep -q 'cipher: *xchacha12,aes-adiantum-plain64, 256-bit key' /run/plan.txt ||
	die "the plan does not use Adiantum"
grep -q 'advised for this CPU: .*Adiantum' /run/plan.txt || die "the plan does not say why"

step "encrypt /dev/vda2 (no --cipher)"
"$fdewiz" encrypt --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--header-backup /run/hdr.bak /dev/vda2 || die "encrypt"
timeout 1200 "$fdewiz" status --watch /dev/vda2 >/run/watch.log || die "status --watch"
final=$("$fdewiz" status --json /dev/vda2 | jq -r '.conversions[0].state')
tail -1 /run/watch.log | sed 's/^/adiantum: /'
[ "$final" = complete ] || die "final state $final"
# Online conversions leave the volume open under fdewiz's name: close it first.
name=$(jq -r '.active_name' "$FDEWIZ_STATE_DIR"/jobs/*.json)
if [ -n "$name" ] && [ -b "/dev/mapper/$name" ]; then
	umount "/dev/mapper/$name" 2>/dev/null || true
	cryptsetup close "$name"
fi

cryptsetup luksDump /dev/vda2 >/run/dump.txt
grep -E 'cipher:|Requirements' /run/dump.txt | sed 's/^/adiantum: luksDump: /'
grep -q 'cipher: xchacha12,aes-adiantum-plain64' /run/dump.txt || die "luksDump: not Adiantum"
grep -q 'Requirements:' /run/dump.txt && die "luksDump: a reencryption is left"

cryptsetup open --key-file "$work/key" /dev/vda2 netbook || die "cryptsetup open"
dmsetup table netbook | grep -q ' crypt xchacha12,aes-adiantum-plain64 ' ||
	die "the mapping is not Adiantum: $(dmsetup table netbook | cut -d' ' -f1-4)"
step "dm-crypt: $(dmsetup table netbook | cut -d' ' -f1-4)"
e2fsck -fn /dev/mapper/netbook >/dev/null 2>&1 || die "e2fsck"
mount -o ro /dev/mapper/netbook /mnt/vol
(cd /mnt/vol && sha256sum -c --quiet "$work/before.sha256") || die "files differ"
step "$(wc -l <"$work/before.sha256") files verified"
umount /mnt/vol
cryptsetup close netbook
echo FDEWIZ-ADIANTUM-OK
