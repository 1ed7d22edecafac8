#!/bin/bash
# Guest half of test-vm-crypttab.sh: encrypt /dev/vda2, write crypttab and fstab with fdewiz,
# open the volume with cryptdisks_start and mount it through fstab; then erase-encrypt /dev/vdb1
# (ext4) and /dev/vdb2 (vfat) and use them.
set -euo pipefail
fdewiz=$1
work=$2
export FDEWIZ_STATE_DIR=/run/fdewiz-state DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup /mnt/data /mnt/fresh
step() { echo "crypttab: $*"; }
die() { echo "crypttab: FAIL: $*"; exit 1; }

step "encrypt /dev/vda2 in place"
extra=()
"$fdewiz" encrypt --help 2>&1 | grep -q -- --no-bench && extra+=(--no-bench)
"$fdewiz" encrypt --yes --fast-pbkdf --foreground --offline "${extra[@]}" \
	--key-file "$work/key" --header-backup /run/hdr.bak /dev/vda2 >/run/encrypt.log 2>&1 ||
	{ cat /run/encrypt.log; die "encrypt"; }
uuid=$(cryptsetup luksUUID /dev/vda2)

step "fstab on a scratch root names the raw partition; crypttab goes to the real /etc"
mkdir -p /run/sysroot/etc
printf '# test fstab\n/dev/vda2\t/mnt/data\text4\tdefaults\t0 2\n' >/run/sysroot/etc/fstab
old_crypttab=
[ -f /etc/crypttab ] && old_crypttab=$(cat /etc/crypttab)
"$fdewiz" crypttab --root /run/sysroot /dev/vda2 || die "fdewiz crypttab --root /run/sysroot"
"$fdewiz" crypttab --no-fstab /dev/vda2 || die "fdewiz crypttab (root /)"
expect="data UUID=$uuid none luks"
[ "$(tail -n1 /etc/crypttab)" = "$expect" ] || die "/etc/crypttab ends with '$(tail -n1 /etc/crypttab)'"
[ "$(tail -n1 /run/sysroot/etc/crypttab)" = "$expect" ] || die "scratch crypttab"
if [ -n "$old_crypttab" ]; then
	[ "$(head -c ${#old_crypttab} /etc/crypttab)" = "$old_crypttab" ] || die "old crypttab lines changed"
	ls /etc/crypttab.fdewiz-*.bak >/dev/null || die "no backup of the old crypttab"
fi
grep -q $'^/dev/mapper/data\t/mnt/data\text4\tdefaults\t0 2$' /run/sysroot/etc/fstab ||
	die "fstab not rewritten: $(cat /run/sysroot/etc/fstab)"
before=$(sha256sum /etc/crypttab)
"$fdewiz" crypttab --no-fstab /dev/vda2 | grep -q "nothing to add" || die "second run added something"
[ "$(sha256sum /etc/crypttab)" = "$before" ] || die "second run changed crypttab"

step "cryptdisks_start data: the passphrase is typed at its prompt on a terminal"
# askpass reads the console; on a terminal (a pty made by script) it prompts there with echo
# off, as at boot. The passphrase is typed only once the prompt is shown.
mkfifo /run/tty-in
script -qfec "cryptdisks_start data" /run/cds.log </run/tty-in >/dev/null 2>&1 &
cds=$!
exec 7>/run/tty-in
for _ in $(seq 1 600); do
	grep -q "Please unlock disk data" /run/cds.log 2>/dev/null && break
	kill -0 "$cds" 2>/dev/null || break
	sleep 0.1
done
grep -q "Please unlock disk data" /run/cds.log || { cat /run/cds.log; die "cryptdisks_start never asked"; }
{ cat "$work/key"; echo; } >&7
rc=0; wait "$cds" || rc=$?
exec 7>&-
tr -d '\r' </run/cds.log
grep -qF "$(cat "$work/key")" /run/cds.log && die "the passphrase was echoed"
[ "$rc" = 0 ] || die "cryptdisks_start exit $rc"
[ -b /dev/mapper/data ] || die "no /dev/mapper/data"
step "cryptdisks_start opened /dev/mapper/data"

mount --fstab /run/sysroot/etc/fstab /mnt/data || die "mount through the rewritten fstab"
[ "$(findmnt -n -o SOURCE /mnt/data)" = /dev/mapper/data ] || die "mounted from $(findmnt -n -o SOURCE /mnt/data)"
(cd /mnt/data && sha256sum -c --quiet "$work/before.sha256") || die "files differ"
step "$(wc -l <"$work/before.sha256") files verified through /dev/mapper/data"
umount /mnt/data
e2fsck -fn /dev/mapper/data >/run/fsck.log 2>&1 || { cat /run/fsck.log; die "e2fsck"; }
cryptdisks_stop data >/dev/null 2>&1 || cryptsetup close data
[ -b /dev/mapper/data ] && die "still open after cryptdisks_stop"
echo FDEWIZ-CRYPTTAB-OK

step "erase-encrypt /dev/vdb1 with ext4 (typed confirmation on stdin)"
printf 'wrong\n' | "$fdewiz" erase-encrypt --fs ext4 --key-file "$work/key2" /dev/vdb1 &&
	die "a wrong answer was accepted"
[ "$(blkid -o value -s LABEL /dev/vdb1)" = Old ] || die "a wrong answer changed /dev/vdb1"
printf '/dev/vdb1\n' | "$fdewiz" erase-encrypt --fs ext4 --label Fresh --fast-pbkdf \
	--key-file "$work/key2" /dev/vdb1 || die "erase-encrypt ext4"
cryptsetup open --key-file "$work/key2" /dev/vdb1 fresh || die "open the new volume"
[ "$(blkid -o value -s TYPE /dev/mapper/fresh) $(blkid -o value -s LABEL /dev/mapper/fresh)" = "ext4 Fresh" ] ||
	die "no ext4 'Fresh' inside: $(blkid /dev/mapper/fresh)"
mount /dev/mapper/fresh /mnt/fresh
cp -a /mnt/data/. /mnt/fresh/ 2>/dev/null || true
mkdir -p /mnt/fresh/w
for i in $(seq 1 20); do head -c $((i * 30000)) /dev/urandom >"/mnt/fresh/w/f$i"; done
(cd /mnt/fresh/w && sha256sum f*) >/run/fresh.sha256
umount /mnt/fresh
e2fsck -fn /dev/mapper/fresh >/run/fsck2.log 2>&1 || { cat /run/fsck2.log; die "e2fsck of the new ext4"; }
cryptsetup close fresh
cryptsetup open --key-file "$work/key2" /dev/vdb1 fresh
mount -o ro /dev/mapper/fresh /mnt/fresh
(cd /mnt/fresh/w && sha256sum -c --quiet /run/fresh.sha256) || die "files on the new volume differ"
umount /mnt/fresh
cryptsetup close fresh
step "ext4: 20 files written, fsck clean, verified after reopening"

step "erase-encrypt /dev/vdb2 with vfat"
"$fdewiz" erase-encrypt --fs vfat --label SMALL --fast-pbkdf --yes-destroy-data \
	--key-file "$work/key2" /dev/vdb2 || die "erase-encrypt vfat"
cryptsetup open --key-file "$work/key2" /dev/vdb2 small
[ "$(blkid -o value -s TYPE /dev/mapper/small)" = vfat ] || die "no vfat inside"
mount /dev/mapper/small /mnt/fresh
head -c 100000 /dev/urandom >/mnt/fresh/x
sum=$(sha256sum </mnt/fresh/x)
umount /mnt/fresh
fsck.vfat -n /dev/mapper/small >/dev/null || die "fsck.vfat"
mount -o ro /dev/mapper/small /mnt/fresh
[ "$(sha256sum </mnt/fresh/x)" = "$sum" ] || die "vfat file differs"
umount /mnt/fresh
cryptsetup close small
ls /dev/mapper | grep -q fdewiz-erase && die "erase-encrypt left a mapping open"
echo FDEWIZ-ERASE-OK
