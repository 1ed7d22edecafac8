#!/bin/bash
# fdewiz VM tests: guest half of test-vm-holders.sh; device-mapper tables and a loop device
# over a real partition are holders, found by the bytes they map.
#
# Usage: holders.sh FDEWIZ
# /dev/vda: 1 Data ext4, 2 Other ext4, 3 Begun (a conversion cryptsetup began), free space.
set -euo pipefail

FDEWIZ=$1
key=/tmp/holders.key
fails=0

ok() { echo "holders: PASS: $*"; }
bad() { echo "holders: FAIL: $*"; fails=$((fails + 1)); }
die() { echo "holders: FAIL: $*"; exit 1; }

[ "${FDEWIZ_IN_VM:-}" = 1 ] || die "run me through tests/vm/vm-run.sh, not on the host"
for n in /dev/vda1 /dev/vda2 /dev/vda3; do
	[ -b "$n" ] || die "$n is not a block device"
done
[ -c /dev/mapper/control ] || die "no device-mapper in the guest"
(umask 077 && head -c 64 /dev/urandom >"$key")
cryptsetup reencrypt -q --encrypt --init-only --type luks2 --reduce-device-size 32M \
	--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$key" /dev/vda3 ||
	die "cryptsetup reencrypt --init-only vda3"

sector() { echo $(($(cat "/sys/class/block/$1/start"))); }
sectors() { cat "/sys/class/block/$1/size"; }
# Every byte of the three partitions, before and after each refusal, as CRC-32 (cksum): a
# stray write changes it as it would a sha256, at several times the speed under emulation.
sums() { cksum /dev/vda1 /dev/vda2 /dev/vda3 | cut -d' ' -f1 | tr '\n' ' '; }

# part_field N FIELD: a field of partition N of /dev/vda from fdewiz list --json.
list_json() { "$FDEWIZ" list --json /dev/vda >/tmp/list.json 2>/tmp/list.err || true; }
field() { jq -c ".disks[0].partitions[] | select(.number == $1) | .$2" /tmp/list.json; }

# expect CASE N HOLDER MOUNTPOINT ADDRESS: list names the holder of partition N, encrypt
# (or resume, for the begun vda3) refuses naming it, and no byte of the disk changes.
expect()
{
	local what=$1 n=$2 holder=$3 mnt=$4 addr=$5 before out rc=0

	before=$(sums)
	list_json
	[ "$(field "$n" verdict.eligible)" = false ] && ok "$what: list: not eligible" ||
		bad "$what: list: eligible $(field "$n" verdict.eligible)"
	field "$n" holders | grep -q "\"$holder\"" && ok "$what: list names $holder" ||
		bad "$what: list holders $(field "$n" holders), expected $holder"
	if [ -n "$mnt" ]; then
		field "$n" mountpoints | grep -q "\"$mnt\"" && ok "$what: list names $mnt" ||
			bad "$what: list mountpoints $(field "$n" mountpoints)"
	fi
	if [ "$n" = 3 ]; then
		out=$("$FDEWIZ" resume --foreground --key-file "$key" "$addr" 2>&1) || rc=$?
	else
		out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
			--key-file "$key" --header-backup /tmp/h.$$ "$addr" 2>&1) || rc=$?
	fi
	[ "$rc" = 1 ] && ok "$what: refused" || bad "$what: exit $rc: $out"
	case $out in
	*"$holder"*"Nothing was changed"*) ok "$what: the message names $holder" ;;
	*) bad "$what: message: $out" ;;
	esac
	[ "$(sums)" = "$before" ] && ok "$what: every byte of vda1..3 unchanged" ||
		bad "$what: the disk changed"
}

# The kernel name (dm-0) of a device-mapper device, from its device number.
dmname()
{
	basename "$(readlink -f "/sys/dev/block/$(dmsetup info -c --noheadings -o major,minor \
		--separator : "$1" | tr -d ' ')")"
}

# 1. A linear table over Data's sectors, set up through the whole disk (so vda1 has no
# sysfs holder): found by its table. Other, next to it, is not held by it.
dmsetup create h-disk --table "0 $(sectors vda1) linear /dev/vda $(sector vda1)"
expect "dm linear over vda's range of vda1" 1 "$(dmname h-disk)" "" /dev/vda1
[ "$(field 2 holders)" = '[]' ] && ok "vda2 is not held by a table over vda1's sectors" ||
	bad "vda2 holders: $(field 2 holders)"
mkdir -p /mnt/h
mount -o ro /dev/mapper/h-disk /mnt/h
expect "dm linear over vda, mounted read-only" 1 "$(dmname h-disk)" /mnt/h /dev/vda1
umount /mnt/h
dmsetup remove h-disk

# 2. A linear table over a piece in the middle of Other, through vda2 itself.
dmsetup create h-part --table "0 2048 linear /dev/vda2 4096"
expect "dm linear inside vda2" 2 "$(dmname h-part)" "" /dev/vda2
dmsetup remove h-part

# 3. The begun conversion on vda3, held through the disk's sectors: resume refuses.
dmsetup create h-begun --table "0 $(sectors vda3) linear /dev/vda $(sector vda3)"
expect "dm linear over vda3, resume" 3 "$(dmname h-begun)" "" /dev/vda3
dmsetup remove h-begun

# 4. A loop device over the partition node itself, and one with -o over the whole disk.
loop=$(losetup --find --show /dev/vda1)
expect "loop over /dev/vda1" 1 "${loop#/dev/}" "" /dev/vda1
mount -o ro "$loop" /mnt/h
expect "loop over /dev/vda1, mounted read-only" 1 "${loop#/dev/}" /mnt/h /dev/vda1
umount /mnt/h
losetup -d "$loop"
loop=$(losetup --find --show -o $(($(sector vda1) * 512 + 4096)) /dev/vda)
expect "losetup -o over /dev/vda" 1 "${loop#/dev/}" "" /dev/vda1
losetup -d "$loop"

# 5. All gone: nothing holds Data any more; its verdict is about its own size alone (what
# the filesystem's real minimum allows), no longer about a user.
sleep 0.5
list_json
[ "$(field 1 holders)$(field 1 mountpoints)" = '[][]' ] && ok "after: nothing holds vda1" ||
	bad "after: vda1 holders $(field 1 holders), mounts $(field 1 mountpoints)"
case "$(field 1 verdict.reason)" in
'"ok"' | '"full"') ok "after: vda1's verdict is about its size alone" ;;
*) bad "after: vda1 $(field 1 verdict)" ;;
esac
[ "$fails" = 0 ] && echo FDEWIZ-HOLDERS-OK
exit "$fails"
