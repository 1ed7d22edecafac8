#!/bin/bash
# An XFS partition encrypted with --strategy detached-header=FILE holds nothing blkid can
# name. fdewiz must still know it: list, list --json and status say "encrypted, header kept
# at FILE" (from the job record, checked against the header itself), erase-encrypt never
# erases it, and crypttab writes header=FILE. Without the record it is "no signature
# found: may be encrypted data" and erase-encrypt wants one more explicit answer. Every
# refusal leaves the image byte for byte unchanged; the data is decrypted back at the end.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds jq cryptsetup xfs_repair sha256sum tmux

img_test_init
srv="fdewiz-detached-$$"
tmux_own "$srv"
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'detached xfs key' >"$key"
img=$IMG_TMP/media.img
mkdir -p "$IMG_TMP/keep"
hdr=$IMG_TMP/keep/media.luks
out=$IMG_TMP/out
json=$IMG_TMP/list.json

img_new "$img" 402
img_gpt "$img"
img_part "$img" Media 1 end
img_mkfs "$img" 1 xfs media
img_fill "$img" 1 60

"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
	--strategy "detached-header=$hdr" --header-backup "$IMG_TMP/media.bak" "$img:1" \
	>"$out" 2>&1 || { cat "$out"; assert_fail "encrypt with a detached header failed"; }
assert_finish_early() { [ "$ASSERT_FAILS" -eq 0 ] || assert_finish; }
assert_finish_early

# 1. With its job record: recognised as encrypted, with the header's path.
CASE="with the job record"
"$FDEWIZ" list "$img" >"$out" 2>&1 || assert_fail "$CASE: list failed: $(cat "$out")"
assert_contains "$CASE: list names the header" "$(cat "$out")" \
	"Encrypted with LUKS2, header kept at $hdr"
assert_not_contains "$CASE: list never offers erase" "$(cat "$out")" "erase"
"$FDEWIZ" list --json "$img" >"$json"
assert_json "$json" '.disks[0].partitions[0].detached_header' "$hdr"
assert_json "$json" '.disks[0].partitions[0].luks.version' 2
assert_json "$json" '.disks[0].partitions[0].verdict.reason' already-luks
assert_json "$json" '.disks[0].partitions[0].verdict.eligible' false
assert_json "$json" ".disks[0].partitions[0].verdict.message | contains(\"$hdr\")" true
python3 "$FDEWIZ_SRCDIR/tests/lib/check-list-schema.py" "$json" \
	"$FDEWIZ_SRCDIR/data/fdewiz-list.schema.json" \
	|| assert_fail "$CASE: list --json does not match its schema"
"$FDEWIZ" status "$img:1" >"$out" 2>&1 || assert_fail "$CASE: status failed: $(cat "$out")"
assert_contains "$CASE: status names the header" "$(cat "$out")" \
	"encrypted, header kept at $hdr"
"$FDEWIZ" status --json "$img:1" >"$IMG_TMP/status.json"
assert_json "$IMG_TMP/status.json" '.conversions[0].detached_header' "$hdr"
assert_json "$IMG_TMP/status.json" '.conversions[0].state' complete

# The wizard: the partition's details name the header too.
tmux_start "$srv" 160 30 env FDEWIZ_STATE_DIR="$FDEWIZ_STATE_DIR" "$FDEWIZ" "$img"
if tmux_wait_for "$srv" "Choose a partition" 30; then
	tmux_send "$srv" Down
	sleep 1
	assert_contains "$CASE: the wizard names the header" \
		"$(tmux_capture "$srv" | tr -s ' \n' ' ')" "Encrypted with LUKS2, header kept at $hdr"
	assert_contains "$CASE: the wizard's verdict" "$(tmux_capture "$srv")" "no (already-luks)"
else
	assert_fail "$CASE: the wizard did not start"
fi
tmux_stop "$srv"

before=$(sha256sum <"$img")
rc=0
"$FDEWIZ" erase-encrypt --fs none --fast-pbkdf --key-file "$key" --yes-destroy-data \
	--yes-destroy-random-data "$img:1" >"$out" 2>&1 || rc=$?
assert_eq "$CASE: erase-encrypt exit code (even with both --yes options)" 1 "$rc"
assert_contains "$CASE: erase names the header" "$(cat "$out")" "header is kept at $hdr"
assert_contains "$CASE: erase says nothing changed" "$(cat "$out")" "Nothing was changed"
assert_eq "$CASE: image unchanged after the refused erase" "$before" "$(sha256sum <"$img")"

# Every command that takes the partition finds the header.
mkdir -p "$IMG_TMP/root/etc"
"$FDEWIZ" crypttab --root "$IMG_TMP/root" --no-fstab "$img:1" >"$out" 2>&1 ||
	assert_fail "$CASE: crypttab failed: $(cat "$out")"
# The GPT entry's unique GUID (entry 1 at LBA 2, bytes 16-31, mixed endian).
partuuid=$(python3 -c 'import sys, uuid; f = open(sys.argv[1], "rb"); f.seek(1024 + 16)
print(uuid.UUID(bytes_le=f.read(16)))' "$img")
assert_eq "$CASE: crypttab line" "media PARTUUID=$partuuid none luks,header=$hdr" \
	"$(cat "$IMG_TMP/root/etc/crypttab" 2>/dev/null)"
"$FDEWIZ" header-backup "$img:1" "$IMG_TMP/hb.luks" >"$out" 2>&1 ||
	assert_fail "$CASE: header-backup failed: $(cat "$out")"
assert_eq "$CASE: header backup is this volume's" "$(cryptsetup luksUUID "$hdr")" \
	"$(cryptsetup luksUUID "$IMG_TMP/hb.luks" 2>&1)"
"$FDEWIZ" recovery-key add --fast-pbkdf --key-file "$key" "$img:1" >"$out" 2>&1 ||
	assert_fail "$CASE: recovery-key add failed: $(cat "$out")"
assert_eq "$CASE: keyslots in the header after recovery-key add" 2 \
	"$(cryptsetup luksDump "$hdr" | grep -c '^  [0-9]*: luks2')"
before=$(sha256sum <"$img")

# 2. A record whose header does not match (another volume's UUID) is not believed.
CASE="record with a wrong UUID"
mv "$FDEWIZ_STATE_DIR" "$IMG_TMP/state.real"
mkdir -p "$FDEWIZ_STATE_DIR/jobs"
for f in "$IMG_TMP"/state.real/jobs/*.json; do
	jq '.id = "00000000-1111-2222-3333-444444444444"' "$f" >"$FDEWIZ_STATE_DIR/jobs/${f##*/}"
done
"$FDEWIZ" list --json "$img" >"$json"
assert_json "$json" '.disks[0].partitions[0].detached_header' null
assert_json "$json" '.disks[0].partitions[0].verdict.reason' no-signature
rm -rf "$FDEWIZ_STATE_DIR"

# 3. No record at all: random bytes, no signature.
CASE="without a record"
"$FDEWIZ" list "$img" >"$out" 2>&1 || assert_fail "$CASE: list failed: $(cat "$out")"
assert_contains "$CASE: list" "$(cat "$out")" "No signature found: may be encrypted data"
"$FDEWIZ" list --json "$img" >"$json"
assert_json "$json" '.disks[0].partitions[0].verdict.reason' no-signature
rc=0
"$FDEWIZ" erase-encrypt --fs none --fast-pbkdf --key-file "$key" --yes-destroy-data \
	"$img:1" >"$out" 2>&1 || rc=$?
assert_eq "$CASE: erase-encrypt without the extra answer: exit code" 1 "$rc"
assert_contains "$CASE: erase says why" "$(cat "$out")" "may be encrypted data"
assert_contains "$CASE: erase names the option" "$(cat "$out")" "--yes-destroy-random-data"
assert_eq "$CASE: image unchanged after the refused erase" "$before" "$(sha256sum <"$img")"
mv "$IMG_TMP/state.real" "$FDEWIZ_STATE_DIR"

# 4. The data: the cryptsetup program decrypts it with the header; xfs_repair, sha256.
CASE="decrypted"
verify_decrypt --as "$CASE" --header "$hdr" --fs xfs "$img" 1
assert_finish
