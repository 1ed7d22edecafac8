#!/bin/bash
# fdewiz decrypt: a LUKS2 partition turned back into plain data in place. Encrypt then
# decrypt (the filesystem's UUID, size and every file as before, fsck clean); refusals that
# change nothing (wrong passphrase, plain partition, in use, opened by this system's
# crypttab); Ctrl-C half-way (the listing
# says the decryption is unfinished, encrypt and resume refuse, decrypt goes on); SIGKILL
# at ten points (the engine's named steps and the data's progress) with a run after each
# going on from there, and once inside a hotzone's write; a volume the cryptsetup program encrypted, decrypted by fdewiz, and
# one fdewiz encrypted, decrypted by the cryptsetup program; the grow and free-tail
# strategies' volumes decrypted too, and a detached header's (killed once on the way).
# Cost: about 95 s under ASan, 84 s of CPU (200 MiB images, some thirty-five runs of fdewiz).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup blkid mkfs.ext4 e2fsck dumpe2fs resize2fs cryptsetup sha256sum

img_test_init
work=$IMG_TMP
export FDEWIZ_STATE_DIR=$work/state
# A killed fdewiz leaves its loop device behind (the next run takes it over); drop them.
at_exit img_detach_all "$work/disk.img"
mib=1048576
part_mib=198

mkdir -p "$work/tree/small" "$work/tree/big"
for i in $(seq 1 400); do head -c $((i * 71 % 6007 + 1)) /dev/urandom >"$work/tree/small/s$i"; done
for i in $(seq 1 6); do head -c $((i * 3 * mib)) /dev/urandom >"$work/tree/big/b$i"; done
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
printf 'decrypt me again' >"$work/key"

# A fresh image: one partition, ext4 over all of it; its UUID and size for the checks.
make_image() {
	rm -f "$work/disk.img"
	truncate -s $((part_mib + 2))M "$work/disk.img"
	parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB $((part_mib + 1))MiB 2>/dev/null
	mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/disk.img" $((part_mib * 1024))k
	fs_uuid=$(blkid -p -o value -s UUID --offset $mib "$work/disk.img")
}

# A loop device over the partition (@1: its size in MiB when not part_mib), registered
# for the cleanup.
part_loop() {
	local loop
	loop=$(losetup -f --show -o $mib --sizelimit $((${1:-$part_mib} * mib)) "$work/disk.img")
	img_register loop "$loop"
	echo "$loop"
}

# The partition is plain ext4 again: no LUKS signature, the same UUID, as large as the
# partition (@2: the size it should have, in 1 KiB blocks), fsck clean, every file's sum.
verify_plain() {
	local what=$1 blocks=${2:-$((part_mib * 1024))} loop
	loop=$(part_loop "${3:-}")
	assert_eq "$what: the partition holds" ext4 "$(blkid -p -o value -s TYPE "$loop")"
	assert_eq "$what: the filesystem's UUID" "$fs_uuid" "$(blkid -p -o value -s UUID "$loop")"
	assert_eq "$what: its size in 1 KiB blocks" "$blocks" \
		"$(dumpe2fs -h "$loop" 2>/dev/null | sed -n 's/^Block count: *//p')"
	assert_true "$what: fsck finds nothing" e2fsck -fn "$loop"
	mkdir -p "$work/mnt"
	mount -o ro "$loop" "$work/mnt"
	assert_true "$what: every file's sha256" bash -c "cd '$work/mnt' && sha256sum --quiet -c '$work/sums'"
	umount "$work/mnt"
	img_unloop "$loop"
	img_unregister loop "$loop"
}

reason_of() {
	"$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.reason'
}

encrypt_image() {
	make_image
	run_cmd "$work/enc" "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf \
		--no-bench --header-backup "$work/enc-$1.hdr" "$work/disk.img:1"
	[ "$RUN_RC" = 0 ] || { cat "$work/enc.err"; assert_stop "encrypt ($1) failed"; }
}

decrypt() {
	run_cmd "$work/dec" "$FDEWIZ" decrypt --key-file "$work/key" "$@" "$work/disk.img:1"
}

# 1. Encrypt, then decrypt; the header backup made first still opens with the passphrase.
encrypt_image round
decrypt --yes --header-backup "$work/before.hdr"
[ "$RUN_RC" = 0 ] || cat "$work/dec.out" "$work/dec.err"
assert_eq "decrypt: exit status" 0 "$RUN_RC"
assert_contains "decrypt: its report" "$(cat "$work/dec.out")" "is decrypted"
verify_plain "encrypt, then decrypt"
assert_eq "listed after the decryption" ok "$(reason_of)"
assert_true "the header backup opens with the passphrase" \
	cryptsetup open --test-passphrase --key-file "$work/key" "$work/before.hdr"
assert_eq "no record or header copy left in the state folder" "" \
	"$(ls "$FDEWIZ_STATE_DIR/jobs" 2>/dev/null | grep -E '\.(json|decrypting)$' || true)"

# 2. Refused, nothing changed: a wrong passphrase, a plain partition, a mounted one.
encrypt_image refusals
printf 'not the passphrase' >"$work/wrong"
run_cmd "$work/dec" "$FDEWIZ" decrypt --key-file "$work/wrong" --yes "$work/disk.img:1"
assert_eq "wrong passphrase: exit status" 1 "$RUN_RC"
assert_contains "wrong passphrase: says so" "$(cat "$work/dec.err")" "passphrase"
assert_contains "wrong passphrase: nothing changed" "$(cat "$work/dec.err")" "Nothing was changed"
assert_eq "wrong passphrase: still LUKS2, listed as such" already-luks "$(reason_of)"
assert_eq "wrong passphrase: the encryption's record as it was" complete \
	"$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')"
# This system's /etc/crypttab opens it at each start (kept as it was, put back at exit).
uuid=$(blkid -p -o value -s UUID --offset $mib "$work/disk.img")
if [ -e /etc/crypttab ]; then cp -p /etc/crypttab "$work/crypttab.saved"; fi
at_exit restore_crypttab
restore_crypttab() {
	if [ -e "$work/crypttab.saved" ]; then cp -p "$work/crypttab.saved" /etc/crypttab; else rm -f /etc/crypttab; fi
}
printf '# fdewiz test-decrypt.sh\nfdw_dec_test UUID=%s none luks,noauto\n' "$uuid" >>/etc/crypttab
decrypt --yes
restore_crypttab
assert_eq "in this system's crypttab: exit status" 1 "$RUN_RC"
assert_contains "in crypttab: which line, what to do" "$(cat "$work/dec.err")" "/etc/crypttab opens"
assert_contains "in crypttab: the fstab line too" "$(cat "$work/dec.err")" "/dev/mapper/fdw_dec_test"
assert_contains "in crypttab: nothing changed" "$(cat "$work/dec.err")" "Nothing was changed"
assert_eq "in crypttab: still LUKS2" already-luks "$(reason_of)"
# Another loop device over the partition's bytes holds it, as a mapping would.
loop=$(part_loop)
decrypt --yes
assert_eq "in use (another loop device over it): exit status" 1 "$RUN_RC"
assert_contains "in use: nothing changed" "$(cat "$work/dec.err")" "Nothing was changed"
img_unloop "$loop"
img_unregister loop "$loop"
assert_eq "in use: still LUKS2" already-luks "$(reason_of)"
make_image
decrypt --yes
assert_eq "a plain partition: exit status" 1 "$RUN_RC"
assert_contains "a plain partition: nothing to decrypt" "$(cat "$work/dec.err")" "nothing to decrypt"

# 3. Paused half-way (fdewiz pause, as Ctrl-C): status said running, decrypting, by this
# process; a safe stop; listed as an unfinished decryption, which encrypt and resume refuse
# to touch; the same command goes on (no confirmation asked again).
encrypt_image sigint
FDEWIZ_TEST_HOLD_AT=progress=30 "$FDEWIZ" decrypt --key-file "$work/key" --yes \
	"$work/disk.img:1" >"$work/dec.out" 2>"$work/dec.err" &
pid=$!
at_exit_kill "$pid"
for _ in $(seq 1 600); do
	p=$(tr '\r' '\n' <"$work/dec.err" | sed -n 's/^decrypting *\([0-9]*\)\..*/\1/p' | tail -1)
	[ -n "$p" ] && [ "$p" -ge 30 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
"$FDEWIZ" status --json "$work/disk.img:1" >"$work/status.json"
assert_json "$work/status.json" '.conversions[0] | [.state, .phase, .direction, .pid > 0] | join(" ")' \
	"running decrypting decrypt true"
# fdewiz pause: Ctrl-C's signal to the process named in the status, and the wait for it.
run_cmd "$work/pause" "$FDEWIZ" pause "$work/disk.img:1"
assert_eq "pause: exit status" 0 "$RUN_RC"
rc=0; wait "$pid" || rc=$?
assert_eq "Ctrl-C: exit status" 1 "$rc"
assert_eq "paused: status says so" paused \
	"$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')"
assert_contains "Ctrl-C: where it stopped" "$(cat "$work/dec.out")" "Stopped at a safe point at 3"
assert_eq "Ctrl-C: listed as an unfinished decryption" decrypt-unfinished "$(reason_of)"
"$FDEWIZ" status --json "$work/disk.img:1" >"$work/status.json"
assert_json "$work/status.json" '.conversions[0].direction' decrypt
assert_contains "Ctrl-C: status names the command that goes on" \
	"$("$FDEWIZ" status "$work/disk.img:1")" "continue with: fdewiz decrypt"
run_cmd "$work/enc" "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf \
	--no-bench "$work/disk.img:1"
assert_eq "Ctrl-C: encrypt refuses the half-decrypted partition" 1 "$RUN_RC"
run_cmd "$work/res" "$FDEWIZ" resume --foreground --key-file "$work/key" "$work/disk.img:1"
assert_eq "Ctrl-C: resume refuses it" 1 "$RUN_RC"
assert_contains "Ctrl-C: resume names the command" "$(cat "$work/res.err")" "fdewiz decrypt"
decrypt
assert_eq "Ctrl-C: the decryption goes on and ends" 0 "$RUN_RC"
verify_plain "Ctrl-C, then decrypt again"

# 4. SIGKILL at the engine's named steps and at points of the data's move (between two
# hotzones, each point past the next hotzone's end so that none is skipped): after each,
# the next run goes on from there.
encrypt_image kills
kills=0
# (The run after the kill at 85 % ends the data's move: the two last points are its
# growing of the filesystem and the next run's.)
for point in decrypt-copied decrypt-wiped progress=10 progress=25 progress=40 progress=55 \
	progress=70 progress=85 decrypt-before-grow decrypt-grown; do
	FDEWIZ_TEST_KILL_AT=$point "$FDEWIZ" --verbose decrypt --key-file "$work/key" --yes \
		"$work/disk.img:1" >"$work/dec.out" 2>"$work/dec.err" && rc=0 || rc=$?
	if [ "$rc" = 137 ] && grep -q 'test hook: killed at' "$work/dec.err"; then
		kills=$((kills + 1))
	else
		echo "point $point: exit $rc" >&2
		tail -n 3 "$work/dec.err" >&2
	fi
done
assert_eq "killed at each of the ten points" 10 "$kills"
decrypt
[ "$RUN_RC" = 0 ] || cat "$work/dec.out" "$work/dec.err"
assert_eq "after the kills: the last run ends it" 0 "$RUN_RC"
verify_plain "ten kills, then decrypt"

# A kill inside a hotzone's write (5 ms after the point: on the fastest disk a few MiB of
# the move, never all of it): the next run repairs the hotzone from its checksums.
encrypt_image hotzone
FDEWIZ_TEST_KILL_AT=progress=30+5000 "$FDEWIZ" --verbose decrypt --key-file "$work/key" --yes \
	"$work/disk.img:1" >"$work/dec.out" 2>"$work/dec.err" && rc=0 || rc=$?
assert_eq "killed inside a hotzone's write" 137 "$rc"
decrypt
[ "$RUN_RC" = 0 ] || cat "$work/dec.out" "$work/dec.err"
assert_eq "after the kill inside a hotzone: the next run ends it" 0 "$RUN_RC"
verify_plain "a kill inside a hotzone, then decrypt"

# 5. Encrypted by the cryptsetup program (its in-place encryption, 32 MiB given up at the
# end), decrypted by fdewiz: the filesystem gets all of the partition back.
make_image
loop=$(part_loop)
run_quiet e2fsck -fy "$loop"
run_quiet resize2fs "$loop" $(((part_mib - 32) * 1024))K
run_quiet cryptsetup reencrypt --encrypt --batch-mode --key-file "$work/key" "${IMG_LUKS_PBKDF[@]}" \
	--reduce-device-size 32M "$loop"
img_unloop "$loop"
img_unregister loop "$loop"
assert_eq "the cryptsetup program's encryption: listed as LUKS2" already-luks "$(reason_of)"
decrypt --yes
[ "$RUN_RC" = 0 ] || cat "$work/dec.out" "$work/dec.err"
assert_eq "the cryptsetup program's volume: decrypted by fdewiz" 0 "$RUN_RC"
verify_plain "encrypted by the cryptsetup program, decrypted by fdewiz"

# 6. Encrypted by fdewiz, decrypted by the cryptsetup program (its header moved to a file):
# plain, 32 MiB smaller, every file there.
encrypt_image reverse
loop=$(part_loop)
run_quiet cryptsetup reencrypt --decrypt --batch-mode --key-file "$work/key" \
	--header "$work/reverse.hdr" "$loop"
img_unloop "$loop"
img_unregister loop "$loop"
verify_plain "encrypted by fdewiz, decrypted by the cryptsetup program" $(((part_mib - 32) * 1024))

# 7. The grow and free-tail strategies, encrypted by fdewiz and decrypted: the data back at
# the start of the partition, the filesystem filling it (the partition keeps the 32 MiB
# the grow strategy gave it).
rm -f "$work/disk.img"
truncate -s 260M "$work/disk.img"
parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 199MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/disk.img" $((198 * 1024))k
fs_uuid=$(blkid -p -o value -s UUID --offset $mib "$work/disk.img")
run_cmd "$work/enc" "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf \
	--no-bench --strategy grow "$work/disk.img:1"
[ "$RUN_RC" = 0 ] || { cat "$work/enc.err"; assert_stop "encrypt (grow) failed"; }
decrypt --yes
assert_eq "grow: decrypted" 0 "$RUN_RC"
verify_plain "grow, then decrypt" $(((198 + 32) * 1024)) $((198 + 32))
make_image
loop=$(part_loop)
run_quiet e2fsck -fy "$loop"
run_quiet resize2fs "$loop" $(((part_mib - 40) * 1024))K
img_unloop "$loop"
img_unregister loop "$loop"
run_cmd "$work/enc" "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf \
	--no-bench --strategy free-tail "$work/disk.img:1"
[ "$RUN_RC" = 0 ] || { cat "$work/enc.err"; assert_stop "encrypt (free-tail) failed"; }
decrypt --yes
assert_eq "free-tail: decrypted" 0 "$RUN_RC"
verify_plain "free-tail, then decrypt"

# 8. A detached header (fdewiz's detached-header strategy: the data from the partition's
# start, the header in a file): killed half-way, then decrypted where it is; the
# filesystem as it was, the header file left alone (it describes nothing now) and said so.
make_image
run_cmd "$work/enc" "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf \
	--no-bench --strategy "detached-header=$work/det.luks" "$work/disk.img:1"
[ "$RUN_RC" = 0 ] || { cat "$work/enc.err"; assert_stop "encrypt (detached header) failed"; }
assert_eq "detached: listed as LUKS2" already-luks "$(reason_of)"
FDEWIZ_TEST_KILL_AT=progress=40 "$FDEWIZ" --verbose decrypt --key-file "$work/key" --yes \
	"$work/disk.img:1" >"$work/dec.out" 2>"$work/dec.err" && rc=0 || rc=$?
assert_eq "detached: killed at 40 %" 137 "$rc"
assert_eq "detached, killed: listed as an unfinished decryption" decrypt-unfinished "$(reason_of)"
decrypt
[ "$RUN_RC" = 0 ] || cat "$work/dec.out" "$work/dec.err"
assert_eq "detached: the next run ends it" 0 "$RUN_RC"
verify_plain "detached header, killed, then decrypted"
assert_true "detached: the header file is left where it was" test -s "$work/det.luks"

assert_finish
