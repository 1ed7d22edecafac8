#!/bin/bash
# What header-restore can use when: encrypt's own backup, taken as the conversion starts,
# is refused while the conversion is paused halfway (the data has moved since) with a
# message that says why and what to do, the device byte for byte unchanged; after resume
# finishes, the worker has replaced it by the finished header, and that one restores a
# volume whose both header copies were destroyed (cryptsetup decrypts, fsck, sha256).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds cryptsetup parted mkfs.ext4 e2fsck sha256sum losetup jq

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/disk.img
key=$IMG_TMP/pass
backup=$IMG_TMP/start.hdr
printf 'header when passphrase' >"$key"
img_ext4_fixture "$img" 400 200
part_sum() {
	dd if="$img" iflag=skip_bytes,count_bytes skip="$(img_part_offset "$img" 1)" \
		count="$(img_part_size "$img" 1)" bs=1M status=none | sha256sum
}
state() { "$FDEWIZ" status --json "$img:1" | jq -r '.conversions[0].state'; }

# 1. Start in the background and pause once data has moved: the worker is held at 20 %
# (FDEWIZ_TEST_HOLD_AT) until the pause stops it, so that the pause finds it running on
# any machine (a 1200 MiB volume, meant to outlast the pause, was once converted first).
run_cmd "$IMG_TMP/e" env FDEWIZ_TEST_HOLD_AT=progress=20 setsid "$FDEWIZ" encrypt \
	--key-file "$key" --yes --fast-pbkdf --no-bench --header-backup "$backup" "$img:1"
assert_eq "encrypt started: exit" 0 "$RUN_RC"
wait_job "$img:1" '.done > 0' 10 || true
run_cmd "$IMG_TMP/p" "$FDEWIZ" pause "$img:1"
assert_eq "pause: exit" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || sed "s/^/    | /" "$IMG_TMP/p.out" "$IMG_TMP/p.err" >&2
assert_eq "paused" paused "$(state)"
assert_true "encrypt's backup exists" test -s "$backup"

# 2. While paused, the start backup is refused and says exactly why and what to do.
before=$(part_sum)
run_cmd "$IMG_TMP/r1" "$FDEWIZ" header-restore --yes "$img:1" "$backup"
assert_eq "start backup mid-conversion: exit" 1 "$RUN_RC"
assert_contains "start backup: says why" "$(cat "$IMG_TMP/r1.err")" \
	"was taken while the volume was being converted (as encrypt's own backup is, until the conversion ends)"
assert_contains "start backup: what is usable now" "$(cat "$IMG_TMP/r1.err")" \
	"only the header on the disk (with its second copy) is usable"
assert_contains "start backup: what to do" "$(cat "$IMG_TMP/r1.err")" \
	"once 'resume' has finished it"
assert_contains "start backup: nothing changed" "$(cat "$IMG_TMP/r1.err")" "Nothing was changed"
assert_eq "start backup: device unchanged" "$before" "$(part_sum)"

# 3. Resume to the end: the worker replaces the backup by the finished header.
start_sum=$(sha256sum <"$backup")
run_cmd "$IMG_TMP/res" "$FDEWIZ" resume --foreground --key-file "$key" "$img:1"
assert_eq "resume: exit" 0 "$RUN_RC"
assert_eq "complete" complete "$(state)"
assert_true "the backup was replaced at the end" test "$start_sum" != "$(sha256sum <"$backup")"

# 4. Both header copies destroyed: the volume no longer opens; the refreshed backup
#    brings it back with every file intact.
off=$(img_part_offset "$img" 1)
hdr_size=$((16#$(dd if="$img" iflag=skip_bytes skip=$((off + 8)) bs=8 count=1 status=none |
	od -An -tx1 | tr -d ' \n')))
for at in 0 "$hdr_size"; do
	head -c 4096 /dev/urandom | dd of="$img" bs=4096 seek=$(((off + at) / 4096)) \
		conv=notrunc,fsync status=none
done
loop=$(img_loop "$img" 1)
rc=0; cryptsetup open --test-passphrase --key-file "$key" "$loop" 2>/dev/null || rc=$?
assert_true "both copies gone: the volume does not open (exit $rc)" test "$rc" -ne 0
img_unloop "$loop"
run_cmd "$IMG_TMP/r2" "$FDEWIZ" header-restore --yes "$img:1" "$backup"
assert_eq "finished backup: exit" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || cat "$IMG_TMP/r2.err" >&2
loop=$(img_loop "$img" 1)
assert_true "restored: the passphrase opens it" cryptsetup open --test-passphrase \
	--key-file "$key" "$loop"
img_unloop "$loop"
verify_decrypt --as restored "$img" 1

assert_finish
