#!/bin/bash
# fdewiz VM tests: guest half of test-vm-powercut.sh, boot 1: start "fdewiz encrypt" on
# /dev/vda2 and keep going until the host cuts the power (kills qemu).
#
# Usage: powercut-encrypt.sh FDEWIZ KEY_FILE
# /dev/vda: 1 small ext4, 2 the ext4 to encrypt.  /dev/vdb: ext4 for the state directory
# (job records, status, header backup), which survives the power cut.
#
# Progress goes to the console one line per update ("encrypting  42.0%  ..."): the host
# watches for it.  Reaching the end means the power was never cut: exit 3.
set -euo pipefail

FDEWIZ=$1
key=$2
state=/var/lib/fdewiz

die()
{
	echo "powercut: FAIL: $*"
	exit 1
}

[ "${FDEWIZ_IN_VM:-}" = 1 ] || die "run me through tests/vm/vm-run.sh, not on the host"
[ -x "$FDEWIZ" ] || die "$FDEWIZ is not executable in the guest"
[ -r "$key" ] || die "cannot read the key file $key"
for n in /dev/vda1 /dev/vda2 /dev/vdb; do
	[ -b "$n" ] || die "$n is not a block device"
done

mkdir -p "$state"
mount /dev/vdb "$state" || die "cannot mount the state disk /dev/vdb on $state"
export FDEWIZ_STATE_DIR=$state

echo "POWERCUT-ENCRYPT-START"
# stderr carries the progress line, redrawn with CR: one line per update on the console.
rc=0
{ "$FDEWIZ" encrypt --foreground --yes --key-file "$key" --fast-pbkdf --no-bench \
	--header-backup "$state/vda2.header" /dev/vda2 2>&1 1>&3 |
	stdbuf -oL tr '\r' '\n'; } 3>&1 || rc=$?
echo "powercut: fdewiz encrypt ended with $rc: the power was not cut in time"
echo "POWERCUT-NOT-CUT"
exit 3
