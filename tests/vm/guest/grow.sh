#!/bin/bash
# Guest half of test-vm-grow.sh: grow-strategy encryption of /dev/vda1, then a fresh open.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/g
die() { echo "grow: FAIL: $*"; exit 1; }

"$fdewiz" encrypt --foreground --offline --yes --fast-pbkdf --no-bench --key-file "$work/key" \
	--header-backup /run/h.bak /dev/vda1 2>&1 | tr '\r' '\n' | grep -v '^encrypting' ||
	die "encrypt"
size=$(blockdev --getsize64 /dev/vda1)
echo "grow: the kernel sees vda1 as $size bytes"
[ "$size" -eq $((231 * 1024 * 1024)) ] || die "vda1 is $size bytes, expected 231 MiB"
cryptsetup open --key-file "$work/key" /dev/vda1 g || die "cryptsetup open"
e2fsck -fn /dev/mapper/g >/dev/null 2>&1 || die "e2fsck"
mount -o ro /dev/mapper/g /mnt/g
(cd /mnt/g && sha256sum -c --quiet "$work/sums") || die "checksums"
echo "grow: $(wc -l <"$work/sums") files verified through the kernel's dm-crypt"
umount /mnt/g
cryptsetup close g
echo FDEWIZ-GROW-OK
