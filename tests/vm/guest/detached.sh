#!/bin/bash
# Guest half of test-vm-detached.sh: make XFS on /dev/vda1, fill it, encrypt it in place with
# a detached header, check list, write crypttab with fdewiz, open it with cryptdisks_start.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /run/keep /mnt/media
step() { echo "detached: $*"; }
die() { echo "detached: FAIL: $*"; exit 1; }

modprobe xfs 2>/dev/null || true
mkfs.xfs -q -f -L media /dev/vda1 || die "mkfs.xfs"
mount /dev/vda1 /mnt/media && cp -a "$work/data/." /mnt/media/ && umount /mnt/media ||
	die "fill the filesystem"

step "encrypt /dev/vda1 in place with its header in /run/keep/media.luks"
"$fdewiz" encrypt --yes --fast-pbkdf --foreground --offline --no-bench \
	--strategy detached-header=/run/keep/media.luks --key-file "$work/key" \
	--header-backup /run/hdr.bak /dev/vda1 >/run/encrypt.log 2>&1 ||
	{ cat /run/encrypt.log; die "encrypt"; }
[ -z "$(blkid -p -o value -s TYPE /dev/vda1 || true)" ] || die "a signature is still visible"

"$fdewiz" list --json /dev/vda | jq -r '.disks[0].partitions[0].verdict.message' >/run/list.txt
grep -q "header kept at /run/keep/media.luks" /run/list.txt || die "list: $(cat /run/list.txt)"
step "list: encrypted, header kept at $("$fdewiz" list --json /dev/vda |
	jq -r '.disks[0].partitions[0].detached_header')"

"$fdewiz" crypttab --no-fstab /dev/vda1 || die "fdewiz crypttab"
step "crypttab: $(tail -n1 /etc/crypttab)"
tail -n1 /etc/crypttab | grep -q ' luks,header=/run/keep/media.luks$' || die "no header= option"

step "cryptdisks_start media: the passphrase is typed at its prompt on a terminal"
mkfifo /run/tty-in
script -qfec "cryptdisks_start media" /run/cds.log </run/tty-in >/dev/null 2>&1 &
cds=$!
exec 7>/run/tty-in
for _ in $(seq 1 600); do
	grep -q "Please unlock disk media" /run/cds.log 2>/dev/null && break
	kill -0 "$cds" 2>/dev/null || break
	sleep 0.1
done
grep -q "Please unlock disk media" /run/cds.log ||
	{ cat /run/cds.log; die "cryptdisks_start never asked"; }
{ cat "$work/key"; echo; } >&7
rc=0; wait "$cds" || rc=$?
exec 7>&-
tr -d '\r' </run/cds.log
[ "$rc" = 0 ] || die "cryptdisks_start exit $rc"
[ -b /dev/mapper/media ] || die "no /dev/mapper/media"
step "cryptdisks_start opened /dev/mapper/media"

mount -o ro /dev/mapper/media /mnt/media || die "mount /dev/mapper/media"
(cd /mnt/media && sha256sum -c --quiet "$work/before.sha256") || die "files differ"
step "$(wc -l <"$work/before.sha256") files verified through /dev/mapper/media"
umount /mnt/media
xfs_repair -n /dev/mapper/media >/run/repair.log 2>&1 || { cat /run/repair.log; die "xfs_repair"; }
cryptdisks_stop media >/dev/null 2>&1 || cryptsetup close media
echo FDEWIZ-DETACHED-OK
