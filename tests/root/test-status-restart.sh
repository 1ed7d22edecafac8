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
#      else's again, and said so;
#   3. a conversion interrupted by a power cut during the service's work, at the next
#      start before the service takes it over (the passphrase the step left still in root's
#      keyring): its service goes on with it, nothing to resume by hand; without that key,
#      'fdewiz resume'.
# Status only reads; part 3's conversion is fdewiz's own, killed at 30 %.
# Cost: about 15 s.
. "$(dirname "$0")/../lib/start.sh" restart-state
require_cmds jq parted losetup mkfs.ext4 cryptsetup blkid python3

img_test_init
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
img_new "$img" 192
img_gpt "$img"
img_part "$img" Root 1 64
img_part "$img" Other 65 191
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

# stage UUID: the stage record 'encrypt --at-restart' writes, for the root on $loop.
stage()
{
	restart_stage "$FDEWIZ_STATE_DIR" "$partuuid" "$loop" "$1" \
		"$(blkid -s UUID -o value "$loop" 2>/dev/null || echo none)"
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

# 3. After a power cut during the service's conversion: its record says interrupted, and at
# the next start the step left the passphrase in root's keyring for the service, which has
# not taken it over yet: it will, so nobody is asked to resume by hand; once the key is
# gone (taken by a service that stopped, or never left: Debian's cryptroot opened it), the
# person resumes. (By its address: the listing of every conversion would show the other
# tests' too, when they run beside this one.) Here the conversion is fdewiz's own offline one on partition 2, killed at
# 30 %, and the key is put in and taken out with the keyring's system calls.
rc=0
restart_interrupted "$img:2" "$IMG_TMP" || rc=$?
assert_eq "the conversion of partition 2 was killed at 30 %" 137 "$rc"
loop2=$(img_loop "$img" 2)
uuid2=$(cryptsetup luksUUID "$loop2")
sed -i "s|^address=.*|address=$loop2|" "$FDEWIZ_STATE_DIR/restart/stage"
sed -i "s|^uuid=.*|uuid=$uuid2|" "$FDEWIZ_STATE_DIR/restart/stage"
out=$("$FDEWIZ" status "$img:2" 2>&1) || true
echo "status (interrupted, no key): $out"
check "without the key left at this start: interrupted, continue with 'fdewiz resume'" \
	grep -q 'continue with: fdewiz resume' <<<"$out"
check "... and --json says no service takes it over" \
	[ "$("$FDEWIZ" status --json | jq -r '[.conversions[] | select(.id == "'"$uuid2"'") | .service_takes_over] | tostring')" = '[false]' ]
restart_key put "$uuid2"
out=$("$FDEWIZ" status "$img:2" 2>&1) || true
echo "status (interrupted, the key waiting): $out"
check "the key waiting for the service: still said to be interrupted" \
	grep -q "^$img:2  interrupted  [0-9.]*%" <<<"$out"
check "... not to be resumed by hand" not_grep 'resume' <<<"$out"
check "... but that its service goes on with it" \
	grep -q 'its service (fdewiz-restart) goes on with it in the background' <<<"$out"
out=$("$FDEWIZ" status 2>&1) || true
check "the same in the listing of every conversion" \
	bash -c 'grep -A2 "^$1  interrupted" <<<"$2" | grep -q "its service (fdewiz-restart) goes on"' \
	_ "$img:2" "$out"
check "--json says its service takes it over" \
	[ "$("$FDEWIZ" status --json | jq -r '[.conversions[] | select(.id == "'"$uuid2"'") | .service_takes_over] | tostring')" = '[true]' ]
restart_key drop "$uuid2"
out=$("$FDEWIZ" status "$img:2" 2>&1) || true
check "the key gone again: continue with 'fdewiz resume'" \
	grep -q 'continue with: fdewiz resume' <<<"$out"
img_unloop "$loop2"
assert_finish
