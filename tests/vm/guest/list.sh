#!/bin/bash
# fdewiz VM tests: guest half of test-vm-list.sh; checks "fdewiz list" against a real kernel.
#
# Usage: list.sh FDEWIZ SECRET_SHA256
# /dev/vda: 1 Boot ext4, 2 Data ext4, 3 Secret ext4 (encrypted here first), free space.
# /dev/vdb, vdc: an installed system's root and its /boot; /dev/vdd: Windows' boot manager.
set -euo pipefail
if [ -n "${LIST_TRACE:-}" ]; then PS4='+ ${SECONDS}s '; set -x; fi

FDEWIZ=$1
sums=$2
MiB=$((1024 * 1024))

die()
{
	echo "list: FAIL: $*"
	exit 1
}

[ "${FDEWIZ_IN_VM:-}" = 1 ] || die "run me through tests/vm/vm-run.sh, not on the host"
[ -x "$FDEWIZ" ] || die "$FDEWIZ is not executable in the guest"
for n in /dev/vda1 /dev/vda2 /dev/vda3; do
	[ -b "$n" ] || die "$n is not a block device"
done

# Encrypt Secret in place the way cryptsetup documents it: shrink the filesystem by the
# room the header will take, then let reencrypt shift the data up behind the header.
key=/tmp/secret.key
(umask 077 && head -c 64 /dev/urandom >"$key")
out=$(e2fsck -fy /dev/vda3 2>&1) || die "e2fsck vda3: $out"
size=$(blockdev --getsize64 /dev/vda3)
resize2fs /dev/vda3 "$(((size - 32 * MiB) / 1024))K" >/dev/null 2>&1 || die "resize2fs vda3"
# pbkdf2 at its minimum count: argon2 under TCG would dominate the run time.
cryptsetup reencrypt -q --encrypt --type luks2 --reduce-device-size 32M \
	--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$key" /dev/vda3 ||
	die "cryptsetup reencrypt --encrypt vda3"
cryptsetup isLuks --type luks2 /dev/vda3 || die "vda3 is not LUKS2 after reencrypt"
echo "list: vda3 encrypted in ${SECONDS}s since boot of this script"

# The data survived: fsck and the checksums the host took before.
cryptsetup open --key-file "$key" /dev/vda3 secret
e2fsck -fn /dev/mapper/secret >/dev/null 2>&1 || die "e2fsck of the encrypted Secret failed"
mkdir -p /mnt/secret
mount -o ro /dev/mapper/secret /mnt/secret
(cd /mnt/secret && sha256sum -c --quiet "$sums") || die "Secret's files changed"
umount /mnt/secret
cryptsetup close secret
echo "list: vda3 files intact after encryption"

mkdir -p /mnt/data
mount /dev/vda2 /mnt/data

echo "list: --- fdewiz list /dev/vda ---"
"$FDEWIZ" list /dev/vda || die "fdewiz list /dev/vda exited $?"
echo "list: ---"

json=/tmp/list.json
"$FDEWIZ" list --json /dev/vda >"$json" || die "fdewiz list --json /dev/vda exited $?"

# All checks in one jq run: each jq start costs about a second under TCG.  A check whose
# filter yields nothing or fails counts as failed.
results=$(jq -Mr --argjson MiB "$MiB" '
	def disk: .disks[] | select(.path == "/dev/vda");
	def part($n): disk | .partitions[] | select(.number == $n);
	def check($what; f): [$what, (try f catch false)];
	[
	check("version 1, no errors"; .fdewiz_list_version == 1 and .errors == []),
	check("/dev/vda is a block disk with a gpt table"; disk | .kind == "block" and
		.table == "gpt"),
	check("partition nodes vda1..3"; [disk | .partitions[].node] ==
		["/dev/vda1", "/dev/vda2", "/dev/vda3"]),
	check("partition names"; [disk | .partitions[].name] == ["Boot", "Data", "Secret"]),
	check("vda1: ext4, eligible, by shrinking"; part(1) | .fstype == "ext4" and
		.verdict.eligible == true and .verdict.strategy == "shrink"),
	check("vda2: mounted on /mnt/data"; part(2) | .mountpoints | index("/mnt/data") != null),
	check("vda2: not eligible, reason mounted"; part(2) | .verdict.eligible == false and
		.verdict.reason == "mounted"),
	check("vda3: crypto_LUKS, LUKS2, finished"; part(3) | .fstype == "crypto_LUKS" and
		.luks.version == 2 and .luks.reencrypt_unfinished == false),
	check("vda3: not eligible, reason already-luks"; part(3) | .verdict.eligible == false and
		.verdict.reason == "already-luks"),
	check("vda3: free space after it (>= 16 MiB)"; part(3) | .free_after >= 16 * $MiB)
	] | .[] | (if .[1] == true then "ok   " else "FAIL " end) + .[0]
' "$json") || die "jq could not read the output of fdewiz list --json"
sed 's/^/list: /' <<<"$results"

# The host checks it against the schema (python there is many times faster than here).
echo "FDEWIZ-LIST-JSON-BEGIN"
jq -Mc . "$json"
echo "FDEWIZ-LIST-JSON-END"

# /dev/vdc1 is the /boot of the system whose root is /dev/vdb1 (test-vm-list.sh).
printf 'correct horse battery staple 12' >/tmp/cross.key
cross()
{
	local how=$1 rc=0 out
	shift
	out=$("$FDEWIZ" "$@" 2>&1 </tmp/cross.key) || rc=$?
	echo "list: CROSS-DISK $how rc=$rc $(tr '\n' ' ' <<<"$out")"
}
cross encrypt encrypt --yes --foreground --no-bench --fast-pbkdf --key-file - /dev/vdc1
cross encrypt-dry-run encrypt --dry-run --key-file - /dev/vdc1
cross erase-encrypt erase-encrypt --yes-destroy-data --accept-weak-passphrase --key-file - /dev/vdc1
echo "list: CROSS-DISK list vdc1 $("$FDEWIZ" list --json | jq -r '.disks[] | select(.path == "/dev/vdc") | .partitions[0] | "\(.verdict.reason) \(.belongs_to.root)"')"

# /dev/vdd1: FAT without the esp flag holding Windows' boot manager (test-vm-list.sh).
echo "list: WINDOWS-BOOT list $("$FDEWIZ" list --json /dev/vdd | jq -c -r '.disks[0].partitions[0] | "\(.verdict.reason) \(.boot_files.found) \(.boot_files.where)"')"
rc=0
out=$("$FDEWIZ" encrypt --yes --foreground --no-bench --fast-pbkdf --key-file - /dev/vdd1 \
	</tmp/cross.key 2>&1) || rc=$?
echo "list: WINDOWS-BOOT encrypt rc=$rc $(tr '\n' ' ' <<<"$out")"

umount /mnt/data
bad=$(grep -c '^FAIL' <<<"$results" || true)
if [ "$bad" != 0 ]; then
	echo "list: $bad check(s) failed"
	exit 1
fi
echo "FDEWIZ-LIST-OK"
