#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What `fdewiz status` says of a root encrypted with one restart, before and right after
# that restart, on a partition of an image (a loop device) with a stage record in the state
# folder as 'encrypt --at-restart' leaves it (the preparation itself, and the restart, are
# test-vm-system-restart.sh's, which checks these words on the real system):
#   1. prepared, not LUKS2 yet: "prepared: encrypted at the next restart ... 'fdewiz
#      cancel' undoes", for that partition (the stage naming it by a PARTUUID link that
#      a loop device lacks, and as the person named it), in the listing of
#      every conversion, and in --json; another partition still has no
#      conversion (exit 1, nothing changed);
#   2. right after the restart, the header written by the step (here cryptsetup's
#      reencrypt --init-only with the stage's UUID) and the service not there yet: no
#      "started outside fdewiz" and no "continue with: fdewiz resume", but that the service
#      goes on with it; with another UUID in the stage, the header's conversion is someone
#      else's again, and said so.
# Nothing is converted: status only reads.
# Cost: about 10 s.
set -euo pipefail

. "$(dirname "$0")/../lib/assert.sh"
. "$(dirname "$0")/../lib/images.sh"
require_root
require_cmds jq parted losetup mkfs.ext4 cryptsetup blkid
require_fdewiz

img_test_init
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
img_new "$img" 96
img_gpt "$img"
img_part "$img" Root 1 64
img_part "$img" Other 65 95
img_mkfs "$img" 1 ext4 Root
img_mkfs "$img" 2 ext4 Other
img_fill "$img" 1 8
loop=$(img_loop "$img" 1)
other=$(img_loop "$img" 2)
# The stage names the root by its PARTUUID link, as on an installed system; a loop device
# over a partition's bytes has none, so status finds it as the person named it.
partuuid=5f0c1d2e-7a8b-4c9d-8e0f-123456789abc
uuid=0b7e3a55-1f2d-4c8e-9a61-5d2f8e4c7b10
# check WHAT CMD...: CMD succeeds (its input is the caller's).
check() { local what=$1 rc=0; shift; "$@" >/dev/null 2>&1 || rc=$?; assert_eq "$what" 0 "$rc"; }
not_grep() { ! grep -q "$@"; }

# stage UUID: the stage record 'encrypt --at-restart' writes (restart_files.c's format).
stage()
{
	mkdir -p "$FDEWIZ_STATE_DIR/restart"
	chmod 0700 "$FDEWIZ_STATE_DIR" "$FDEWIZ_STATE_DIR/restart"
	printf '# fdewiz: the root to encrypt at the next restart\ndevice=%s\naddress=%s\nuuid=%s\nfs_uuid=%s\nname=root_crypt\nboot_mib=0\nfstype=ext4\n' \
		"/dev/disk/by-partuuid/$partuuid" "$loop" "$1" \
		"$(blkid -s UUID -o value "$loop" 2>/dev/null || echo none)" \
		>"$FDEWIZ_STATE_DIR/restart/stage"
	chmod 0600 "$FDEWIZ_STATE_DIR/restart/stage"
}
stage "$uuid"

# 1. Prepared.
rc=0
out=$("$FDEWIZ" status "$loop" 2>&1) || rc=$?
echo "status (prepared): $out"
check "status of the prepared root exits 0 ($rc)" [ "$rc" = 0 ]
check "it says it is prepared, encrypted at the next restart" \
	grep -q "^$loop  prepared: encrypted at the next restart" <<<"$out"
check "and that 'fdewiz cancel' undoes it" grep -q "'fdewiz cancel' undoes the preparation" <<<"$out"
out=$("$FDEWIZ" status 2>&1)
echo "status (all): $out"
check "the listing of every conversion names it" grep -q "^$loop  prepared: " <<<"$out"
check "... and does not say 'No conversions.'" not_grep 'No conversions' <<<"$out"
json=$("$FDEWIZ" status --json "$loop")
check "--json names it under prepared_restart" \
	[ "$(jq -r '.prepared_restart.address + " " + .prepared_restart.id + " " + (.conversions | length | tostring)' <<<"$json")" = "$loop $uuid 0" ]
rc=0
out=$("$FDEWIZ" status "$other" 2>&1) || rc=$?
assert_eq "another partition: status exits 1" 1 "$rc"
check "... saying it has no conversion" \
	grep -q 'has no conversion (not LUKS2). Nothing was changed.' <<<"$out"
check "--json of that one has no prepared_restart" \
	[ "$("$FDEWIZ" status --json "$other" 2>/dev/null | jq -r '.prepared_restart')" = null ]

# 2. Right after the restart: the header written, the service not there yet.
img_unloop "$other"
printf 'restart passphrase' | cryptsetup reencrypt --encrypt --init-only --batch-mode \
	--type luks2 --uuid "$uuid" --reduce-device-size 32M --pbkdf pbkdf2 \
	--pbkdf-force-iterations 1000 --key-file - "$loop" >/dev/null
out=$("$FDEWIZ" status "$loop" 2>&1) || true
echo "status (begun): $out"
check "begun at the restart: not 'started outside fdewiz'" \
	not_grep 'started outside fdewiz' <<<"$out"
check "nobody is asked to resume it by hand" not_grep 'resume' <<<"$out"
check "it says it was begun at the restart" grep -q "^$loop  begun at the restart  " <<<"$out"
check "... and that its service goes on with it" \
	grep -q 'its service (fdewiz-restart) goes on with it in the background' <<<"$out"
check "--json says the restart began it" \
	[ "$("$FDEWIZ" status --json "$loop" | jq -r '.conversions[0].source + " " + (.prepared_restart | tostring)')" = "restart null" ]
stage 11111111-2222-4333-8444-555555555555
out=$("$FDEWIZ" status "$loop" 2>&1) || true
check "with another preparation's UUID it is someone else's conversion, said so" \
	grep -q 'started outside fdewiz' <<<"$out"
check "... not begun at the restart" not_grep 'begun at the restart' <<<"$out"
img_unloop "$loop"
assert_finish
