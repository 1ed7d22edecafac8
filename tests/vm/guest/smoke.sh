#!/bin/bash
# fdewiz VM tests: guest half of test-vm-smoke.sh; partition nodes, dm-crypt and ext4 work.
set -euo pipefail

fail()
{
	echo "smoke: FAIL: $*"
	exit 1
}

[ "${FDEWIZ_IN_VM:-}" = 1 ] || fail "run me through tests/vm/vm-run.sh, not on the host"

for n in /dev/vda /dev/vda1 /dev/vda2; do
	[ -b "$n" ] || fail "$n is not a block device"
done
[ -c /dev/mapper/control ] || fail "/dev/mapper/control missing: no device-mapper"
echo "smoke: partition nodes and /dev/mapper/control present"

# The key stays in a file on the guest's tmpfs, never on a command line.
key=/tmp/smoke.key
(umask 077 && head -c 64 /dev/urandom >"$key")
# pbkdf2 with the minimum count: argon2 under TCG would take most of the test's time.
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-file "$key" /dev/vda2
cryptsetup open --key-file "$key" /dev/vda2 smoke
[ -b /dev/mapper/smoke ] || fail "/dev/mapper/smoke missing after cryptsetup open"
dmsetup table smoke | grep -q ' crypt aes-xts-plain64 ' || fail "not a dm-crypt mapping"
echo "smoke: dm-crypt mapping: $(dmsetup table smoke | cut -d' ' -f1-4) ..."

mkfs.ext4 -q /dev/mapper/smoke
mkdir -p /mnt/smoke
mount /dev/mapper/smoke /mnt/smoke
# A recognisable pattern, so that we can look for it on the raw partition below.
head -c 2M < <(yes FDEWIZ-SMOKE-PLAINTEXT) >/mnt/smoke/plain
head -c 2M /dev/urandom >>/mnt/smoke/plain
want=$(sha256sum </mnt/smoke/plain | cut -d' ' -f1)
umount /mnt/smoke
cryptsetup close smoke

if grep -q FDEWIZ-SMOKE-PLAINTEXT /dev/vda2; then
	fail "plaintext visible on /dev/vda2: data was not encrypted"
fi
echo "smoke: no plaintext on the raw partition"

cryptsetup open --key-file "$key" /dev/vda2 smoke
e2fsck -fn /dev/mapper/smoke >/dev/null 2>&1 || fail "e2fsck found errors"
mount -o ro /dev/mapper/smoke /mnt/smoke
got=$(sha256sum </mnt/smoke/plain | cut -d' ' -f1)
umount /mnt/smoke
cryptsetup close smoke
[ "$got" = "$want" ] || fail "sha256 after reopen is $got, wrote $want"

echo "FDEWIZ-SMOKE-OK sha256=$want"
