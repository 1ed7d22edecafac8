#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The running system's own root is never converted. In a private mount namespace the
# partition of an image is mounted (read-only, so the mount itself writes nothing) over
# "/", which is how the running system's root looks to fdewiz: list says so, encrypt and
# erase-encrypt refuse with what to do, and the image stays byte for byte the same.
. "$(dirname "$0")/../lib/start.sh"
require_cmds parted sha256sum losetup unshare jq mkfs.ext4

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
img=$IMG_TMP/disk.img
img_new "$img" 128
img_gpt "$img"
img_part "$img" root 1 127
img_mkfs "$img" 1 ext4
printf 'a passphrase for the running root' >"$IMG_TMP/key"
before=$(sha256sum <"$img")
loop=$(img_loop "$img" 1)

# as_running_root SCRIPT: run SCRIPT where partition 1 is mounted over "/".
as_running_root()
{
	unshare -m bash -c "mount --make-rprivate / && mount -o ro,noload $loop / && $1"
}

as_running_root "\"$FDEWIZ\" list --json \"$img\" >\"$IMG_TMP/list.json\""
assert_json "$IMG_TMP/list.json" '.disks[0].partitions[0].verdict.reason' mounted-root
assert_json "$IMG_TMP/list.json" '.disks[0].partitions[0].verdict.eligible' false
assert_contains "list: says what to do" "$(jq -r '.disks[0].partitions[0].verdict.message' \
	"$IMG_TMP/list.json")" "encrypt it with one restart (fdewiz encrypt --at-restart), or from a live system."

rc=0
as_running_root "\"$FDEWIZ\" encrypt --yes --fast-pbkdf --no-bench --key-file \
	\"$IMG_TMP/key\" \"$img:1\" >\"$IMG_TMP/enc.out\" 2>\"$IMG_TMP/enc.err\"" || rc=$?
assert_eq "encrypt: refused" 1 "$rc"
assert_contains "encrypt: says why and what to do" "$(cat "$IMG_TMP/enc.err")" \
	"Holds the running system (mounted as /): encrypt it with one restart"
assert_contains "encrypt: says nothing was changed" "$(cat "$IMG_TMP/enc.err")" \
	"Nothing was changed"

# The restart's own refusals: a system starts only from a disk's partition, and nothing
# was prepared to cancel. (test-vm-system-restart.sh does the restart itself.)
rc=0
as_running_root "\"$FDEWIZ\" encrypt --at-restart --yes --fast-pbkdf --key-file \
	\"$IMG_TMP/key\" \"$img:1\" >\"$IMG_TMP/restart.out\" 2>\"$IMG_TMP/restart.err\"" || rc=$?
assert_eq "encrypt --at-restart: refused" 1 "$rc"
assert_contains "encrypt --at-restart: says why" "$(cat "$IMG_TMP/restart.err")" \
	"is a partition of an image file; a system starts only from a disk's partition"
assert_contains "encrypt --at-restart: says nothing was changed" \
	"$(cat "$IMG_TMP/restart.err")" "Nothing was changed"
rc=0
"$FDEWIZ" cancel >"$IMG_TMP/cancel.out" 2>"$IMG_TMP/cancel.err" || rc=$?
assert_eq "cancel with nothing prepared: refused" 1 "$rc"
assert_contains "cancel: says there is nothing to undo" "$(cat "$IMG_TMP/cancel.err")" \
	"no encryption is prepared for the next restart"

rc=0
as_running_root "\"$FDEWIZ\" erase-encrypt --yes --fast-pbkdf --key-file \"$IMG_TMP/key\" \
	\"$img:1\" >\"$IMG_TMP/erase.out\" 2>\"$IMG_TMP/erase.err\"" || rc=$?
assert_true "erase-encrypt: refused (exit $rc)" [ "$rc" -ne 0 ]
assert_contains "erase-encrypt: says nothing was changed" "$(cat "$IMG_TMP/erase.err")" \
	"Nothing was changed"

img_unloop "$loop"
assert_eq "the image is byte for byte the same" "$before" "$(sha256sum <"$img")"
assert_eq "no loop device left over the image" "" "$(losetup -j "$img")"
assert_eq "no job record was written" "" "$(ls -A "$FDEWIZ_STATE_DIR" 2>/dev/null | grep -v '^lock' || true)"
assert_finish
