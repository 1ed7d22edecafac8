#!/bin/bash
# Guest half of test-vm-online.sh: encrypt /dev/vda2 online, write while it converts,
# then check sizes, files and the header with the real kernel.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/vol
step() { echo "online: $*"; }
die() { echo "online: FAIL: $*"; exit 1; }

step "encrypt /dev/vda2 online, mounted at /mnt/vol"
"$fdewiz" encrypt --yes --fast-pbkdf --no-bench --key-file "$work/key" --header-backup /run/hdr.bak \
	--mount /mnt/vol /dev/vda2 || die "encrypt"
mountpoint -q /mnt/vol || die "/mnt/vol is not mounted during the conversion"
name=$(jq -r '.active_name' "$FDEWIZ_STATE_DIR"/jobs/*.json)
[ -b "/dev/mapper/$name" ] || die "no /dev/mapper/$name"

# Write while it converts; note the percent before and after to prove it was mid-way.
p0=$("$fdewiz" status --json /dev/vda2 | jq -r '.conversions[0] | "\(.state) \(.percent)"')
mkdir -p /mnt/vol/during
for i in $(seq 1 40); do
	head -c $((i * 50000)) /dev/urandom >"/mnt/vol/during/w$i"
done
sync
(cd /mnt/vol/during && sha256sum w*) >/run/during.sha256
p1=$("$fdewiz" status --json /dev/vda2 | jq -r '.conversions[0] | "\(.state) \(.percent)"')
step "status when writing began: $p0; after: $p1"
case "$p0" in running*) ;; *) die "the conversion was not running while we wrote ($p0)";; esac

timeout 600 "$fdewiz" status --watch /dev/vda2 >/run/watch.log || die "status --watch"
final=$("$fdewiz" status --json /dev/vda2 | jq -r '.conversions[0].state')
[ "$final" = complete ] || die "final state $final"
tail -1 /run/watch.log

# The shrunk filesystem was grown back to fill the volume.
vol=$(blockdev --getsize64 "/dev/mapper/$name")
fs=$(dumpe2fs -h "/dev/mapper/$name" 2>/dev/null | awk -F: '/^Block count/ {b=$2} /^Block size/ {s=$2} END {print b*s}')
step "volume $vol bytes, filesystem $fs bytes"
[ "$fs" -gt $((vol - 4 * 1024 * 1024)) ] || die "filesystem not grown back ($fs of $vol)"

umount /mnt/vol
cryptsetup close "$name"
cryptsetup luksDump /dev/vda2 | grep -q online-reencrypt && die "header still has a reencrypt requirement"
cryptsetup open --key-file "$work/key" /dev/vda2 check
e2fsck -fn /dev/mapper/check >/dev/null 2>&1 || die "e2fsck"
mount -o ro /dev/mapper/check /mnt/vol
(cd /mnt/vol && sha256sum -c --quiet "$work/before.sha256") || die "files from before differ"
(cd /mnt/vol/during && sha256sum -c --quiet /run/during.sha256) || die "files written during differ"
step "$(wc -l <"$work/before.sha256") old files and 40 written during the conversion verified"
umount /mnt/vol
cryptsetup close check
echo FDEWIZ-ONLINE-OK
