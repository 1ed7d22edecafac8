#!/bin/bash
# Offline in-place encryption of an ext4 partition inside a disk image: encrypt, stop with
# SIGINT and resume, kill with SIGKILL and resume; each time verified independently of
# fdewiz (cryptsetup decrypts through a header copy, then e2fsck and sha256 of every file).
set -euo pipefail

FDEWIZ=${FDEWIZ:-$(cd "$(dirname "$0")/../.." && pwd)/src/fdewiz}
work=$(mktemp -d /var/tmp/fdewiz-enc.XXXXXX)
loops=()
cleanup() {
	mountpoint -q "$work/mnt" 2>/dev/null && umount "$work/mnt"
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
mib=1048576
part_start=$((1 * mib))
part_size=$((598 * mib))

# Thousands of files of mixed sizes, with their checksums.
make_tree() {
	mkdir -p "$work/tree/docs" "$work/tree/media" "$work/tree/src/a/b"
	for i in $(seq 1 1500); do head -c $((i % 97 * 37 + 1)) /dev/urandom >"$work/tree/src/a/b/f$i"; done
	for i in $(seq 1 500); do head -c $((i * 211)) /dev/urandom >"$work/tree/docs/d$i"; done
	for i in $(seq 1 12); do head -c $((i * 3 * mib)) /dev/urandom >"$work/tree/media/m$i"; done
	(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
	echo "tree: $(wc -l <"$work/sums") files, $(du -sh "$work/tree" | cut -f1)"
}

make_image() {
	rm -f "$work/disk.img"
	truncate -s 600M "$work/disk.img"
	parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 599MiB 2>/dev/null
	mkfs.ext4 -q -F -L Data -d "$work/tree" -E offset=$part_start "$work/disk.img" \
		$((part_size / 1024))k
}

# Decrypt with the cryptsetup program into a fresh header file, then fsck and compare.
verify_image() {
	local what=$1 loop
	loop=$(losetup -f --show -o $part_start --sizelimit $part_size "$work/disk.img")
	loops+=("$loop")
	[ "$(blkid -p -o value -s TYPE "$loop")" = crypto_LUKS ] || fail "$what: not LUKS after encrypt"
	cryptsetup luksDump "$loop" | grep -q "^Version:.*2" || fail "$what: luksDump"
	rm -f "$work/dec.hdr"
	cryptsetup reencrypt --decrypt --header "$work/dec.hdr" --key-file "$work/key" \
		--batch-mode "$loop" || fail "$what: cryptsetup could not decrypt"
	e2fsck -fn "$loop" >"$work/fsck.log" 2>&1 || { cat "$work/fsck.log"; fail "$what: fsck"; }
	mkdir -p "$work/mnt"
	mount -o ro "$loop" "$work/mnt"
	(cd "$work/mnt" && sha256sum -c --quiet "$work/sums") || fail "$what: checksums differ"
	umount "$work/mnt"
	losetup -d "$loop"
	echo "PASS: $what: decrypted by cryptsetup, fsck clean, $(wc -l <"$work/sums") files equal"
}

# Start fdewiz encrypt in the background and wait until its progress passes @pct percent.
start_and_wait() {
	local pct=$1
	"$FDEWIZ" encrypt --key-file "$work/key" --yes --fast-pbkdf \
		--work-dir "$work" --header-backup "$work/backup.hdr" "$work/disk.img:1" \
		>"$work/out" 2>"$work/err" &
	pid=$!
	for _ in $(seq 1 600); do
		p=$(tr '\r' '\n' <"$work/err" | sed -n 's/^encrypting *\([0-9]*\)\..*/\1/p' | tail -1)
		[ -n "$p" ] && [ "$p" -ge "$pct" ] && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$work/out" "$work/err"; fail "encrypt ended early"; }
		sleep 0.05
	done
	fail "no progress past $pct%"
}

reason_of() {
	"$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.reason'
}

printf 'correct horse battery staple' >"$work/key"
make_tree

# 1. Straight through.
make_image
"$FDEWIZ" encrypt --key-file "$work/key" --yes --fast-pbkdf --work-dir "$work" \
	--header-backup "$work/backup.hdr" "$work/disk.img:1" >"$work/out" 2>"$work/err" ||
	{ cat "$work/out" "$work/err"; fail "encrypt failed"; }
grep -q "is now encrypted" "$work/out" || fail "no completion message"
[ -s "$work/backup.hdr" ] || fail "no header backup"
[ "$(reason_of)" = already-luks ] || fail "list does not see LUKS"
verify_image "encrypt"

# 2. SIGINT mid-way: a clean stop, then resume.
make_image
rm -f "$work/backup.hdr"
start_and_wait 20
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" -eq 1 ] || fail "SIGINT: exit $rc, expected 1"
grep -q "Stopped at a safe point" "$work/out" || fail "SIGINT: no stop message"
[ "$(reason_of)" = luks-unfinished ] || fail "SIGINT: list does not show the unfinished conversion"
"$FDEWIZ" resume --key-file "$work/key" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; fail "resume after SIGINT"; }
verify_image "SIGINT + resume"

# 3. Wrong passphrase on resume: refused, nothing changes, the right one still works.
make_image
rm -f "$work/backup.hdr"
start_and_wait 30
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[ "$(reason_of)" = luks-unfinished ] || fail "SIGKILL: not seen as unfinished"
printf 'wrong' >"$work/badkey"
before=$(sha256sum <"$work/disk.img")
rc=0; "$FDEWIZ" resume --key-file "$work/badkey" "$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "wrong passphrase: exit $rc"
grep -qi "passphrase is wrong" "$work/out" || { cat "$work/out"; fail "wrong passphrase: message"; }
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || fail "wrong passphrase changed the image"
echo "PASS: wrong passphrase refused, image unchanged"

# 4. ...and after the SIGKILL, resume repairs and finishes.
"$FDEWIZ" resume --key-file "$work/key" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; fail "resume after SIGKILL"; }
verify_image "SIGKILL + repair + resume"

# 5. Dry run changes nothing.
make_image
before=$(sha256sum <"$work/disk.img")
"$FDEWIZ" encrypt --dry-run "$work/disk.img:1" >"$work/out" 2>&1 || fail "dry run failed"
grep -q "nothing was changed" "$work/out" || fail "dry run: no message"
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || fail "dry run changed the image"
echo "PASS: dry run leaves the image byte for byte unchanged"
