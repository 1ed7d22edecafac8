#!/bin/bash
# SIGKILL in the end window (last hotzone committed, header not finalised) at four points,
# then resume: the header must come out final, the stale plaintext copy wiped, and the
# cryptsetup program must decrypt the result to a filesystem that passes fsck and sha256.
#
# The kill points are exact rather than timed:
#   A: fdewiz's test point "last-hotzone" (FDEWIZ_TEST_KILL_AT, src/core/base/testhook.h): the
#      progress callback reporting done == total, after the commit of the last hotzone,
#      before libcryptsetup's final step; the moved copy is still plaintext;
#   B: a gdb breakpoint on libcryptsetup's crypt_keyslot_destroy() during that final step
#      (after it wiped the moved copy, just before the single header write that finalises);
#   C: as A, with a detached header;
#   E: as A, with a recovery key in a second keyslot;
#   F: as A, with a detached header and a recovery key;
#   D: as A, then a power cut while resume writes the final header (simulated tear).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds gdb jq parted losetup mkfs.ext4 e2fsck cryptsetup sha256sum

img_test_init
work=$IMG_TMP
export FDEWIZ_STATE_DIR=$work/state
loop=""
# A killed fdewiz leaves its loop device behind; drop them (before img_cleanup undoes the
# mount and the loop devices this test made).
detach_killed() {
	local f
	for f in "$work"/disk-*.img; do
		[ ! -e "$f" ] || img_detach_all "$f"
	done
}
at_exit detach_killed
mib=1048576
part_mib=158

mkdir -p "$work/tree/small" "$work/tree/big"
for i in $(seq 1 300); do head -c $((i * 71 % 6007 + 1)) /dev/urandom >"$work/tree/small/s$i"; done
for i in 1 2 3; do head -c $((i * 7 * mib)) /dev/urandom >"$work/tree/big/b$i"; done
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
printf 'final window key' >"$work/key"
truncate -s $((part_mib + 2))M "$work/template.img"
parted -s "$work/template.img" mklabel gpt mkpart Data ext4 1MiB $((part_mib + 1))MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/template.img" $((part_mib * 1024))k

part_loop() {
	local dev
	dev=$(losetup -f --show -o $mib --sizelimit $((part_mib * mib)) "$1")
	img_register loop "$dev"
	echo "$dev"
}
state() { "$FDEWIZ" status --json "$1:1" | jq -r '.conversions[0].state'; }

# The end-window header: the online-reencrypt requirement, one data segment that equals
# "backup-final" (every hotzone done), and $2 (0 or 1) moved first chunks recorded.
is_end_window() {
	jq -e --argjson moved "$2" '
		(.config.requirements.mandatory | any(startswith("online-reencrypt"))) and
		([.segments[] | select((.flags // []) | length == 0)] as $d |
		 ($d | length) == 1 and $d[0].type == "crypt" and
		 ([.segments[] | select((.flags // []) | index("backup-final"))][0] | del(.flags)) == $d[0]) and
		([.segments[] | select((.flags // []) | index("backup-moved-segment"))] | length) == $moved' \
		"$1" >/dev/null
}

# kill_in_window NAME POINT [ENCRYPT OPTION...]: encrypt a fresh copy and SIGKILL it at
# POINT: a test point's name, or gdb:FUNCTION for a breakpoint in a library.
kill_in_window() {
	local name=$1 point=$2 img=$work/disk-$1.img rc=0
	local run=("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
		--key-file "$work/key" --header-backup "$work/$name-backup.hdr")
	shift 2
	cp --sparse=always "$work/template.img" "$img"
	case "$point" in
	gdb:*)
		gdb -q -batch -ex 'set breakpoint pending on' -ex "break ${point#gdb:}" -ex run \
			-ex 'signal SIGKILL' --args "${run[@]}" "$@" "$img:1" \
			>"$work/$name.out" 2>&1 </dev/null || true
		grep -Eq '(^|hit )Breakpoint 1, ' "$work/$name.out" ||
			{ tail -20 "$work/$name.out"; assert_stop "$name: the breakpoint ($point) was never reached"; }
		# gdb words the kill in more than one way when a thread goes at the same moment
		# ("terminated with signal SIGKILL", or register errors and "killed"); what must
		# never be seen is fdewiz ending by itself.
		if grep -Eq 'exited (normally|with code)' "$work/$name.out"; then
			tail -20 "$work/$name.out"
			assert_stop "$name: fdewiz ended by itself after the breakpoint instead of being killed"
		fi
		;;
	*)
		FDEWIZ_TEST_KILL_AT=$point "${run[@]}" "$@" "$img:1" >"$work/$name.out" 2>&1 \
			</dev/null || rc=$?
		[ "$rc" = 137 ] ||
			{ tail -20 "$work/$name.out"; assert_stop "$name: not killed at $point (exit $rc)"; }
		grep -q "killed at '$point'" "$work/$name.out" ||
			{ tail -20 "$work/$name.out"; assert_stop "$name: the kill did not come from $point"; }
		;;
	esac
	grep -q "is now encrypted" "$work/$name.out" && assert_stop "$name: it finished before the kill"
	true
}

# check_point NAME PLAINTEXT_COPY_EXPECTED [DETACHED_HEADER [RECOVERY_KEY_FILE]]
check_point() {
	local name=$1 plain_copy=$2 det=${3:-} rkey=${4:-} img=$work/disk-$1.img moved=1 hdr
	local moved_off moved_len before after first uuid kept

	loop=$(part_loop "$img")
	hdr=$loop
	if [ -n "$det" ]; then
		hdr=$det
		moved=0
	fi
	cryptsetup luksDump --dump-json-metadata "$hdr" >"$work/$name-window.json"
	is_end_window "$work/$name-window.json" $moved ||
		{ jq -c '.segments, .config' "$work/$name-window.json"; assert_stop "$name: not the end window"; }
	if [ $moved = 1 ]; then
		moved_off=$(jq -r '.segments[] | select((.flags // []) | index("backup-moved-segment")) |
			.offset' "$work/$name-window.json")
		moved_len=$(jq -r '.segments[] | select((.flags // []) | index("backup-moved-segment")) |
			.size' "$work/$name-window.json")
		before=$(dd if="$loop" bs=$mib skip=$((moved_off / mib)) count=$((moved_len / mib)) \
			status=none | sha256sum)
		# What libcryptsetup alone does here (shown, not asserted: a later version may
		# fix it). Not with a detached header: there it would encrypt everything again.
		if cryptsetup reencrypt --resume-only --key-file "$work/key" --batch-mode "$loop" \
			>"$work/$name-cs.out" 2>&1; then
			echo "$name: note: this cryptsetup resumes the end window by itself"
		else
			echo "$name: cryptsetup --resume-only: $(tail -1 "$work/$name-cs.out")"
		fi
	fi
	img_unloop "$loop"
	loop=""

	case "$(state "$img")" in
	interrupted | needs-repair) ;;
	*) assert_stop "$name: status says '$(state "$img")' after the kill" ;;
	esac
	"$FDEWIZ" resume --foreground --key-file "$work/key" "$img:1" >"$work/$name-resume.out" \
		2>"$work/$name-resume.err" || { cat "$work/$name-resume.err"; assert_stop "$name: resume failed"; }
	grep -q "is now encrypted" "$work/$name-resume.out" || assert_stop "$name: resume did not finish"
	[ "$(state "$img")" = complete ] || assert_stop "$name: status is '$(state "$img")', not complete"
	grep -q "header was not finalised" "$work/$name-resume.err" ||
		assert_stop "$name: resume did not say it finished the end window"

	loop=$(part_loop "$img")
	[ -n "$det" ] || hdr=$loop
	cryptsetup luksDump --dump-json-metadata "$hdr" >"$work/$name-final.json"
	# The finished header: no requirement, one segment equal to "backup-final", the
	# keyslots but the reencryption one.
	jq -e --slurpfile w "$work/$name-window.json" '
		(.config.requirements // {} | .mandatory // [] | length) == 0 and
		(.segments | length) == 1 and
		.segments["0"] == ([$w[0].segments[] |
			select((.flags // []) | index("backup-final"))][0] | del(.flags)) and
		(.keyslots | keys) == ($w[0].keyslots | with_entries(select(.value.type == "luks2")) |
			keys) and
		.config.keyslots_size == $w[0].config.keyslots_size' "$work/$name-final.json" >/dev/null ||
		{ jq -c '.segments, .config, .keyslots' "$work/$name-final.json"
		  assert_stop "$name: header not final"; }
	uuid=$(cryptsetup luksUUID "$hdr")
	[ "$uuid" = "$(cryptsetup luksUUID "$work/$name-backup.hdr")" ] || assert_stop "$name: the UUID changed"
	kept=$FDEWIZ_STATE_DIR/$uuid-final-window.hdr
	[ -f "$kept" ] || assert_stop "$name: the header as found was not kept in $kept"
	cryptsetup luksDump --dump-json-metadata "$kept" >"$work/$name-kept.json"
	cmp -s <(jq -S . "$work/$name-kept.json") <(jq -S . "$work/$name-window.json") ||
		assert_stop "$name: the kept header is not the one found"
	if [ $moved = 1 ]; then
		after=$(dd if="$loop" bs=$mib skip=$((moved_off / mib)) count=$((moved_len / mib)) \
			status=none | sha256sum)
		[ "$before" != "$after" ] || [ "$plain_copy" = no ] ||
			assert_stop "$name: the plaintext copy of the first chunk was not wiped"
	fi

	if [ -n "$rkey" ]; then
		# A recovery key's keyslot cannot be made again: it must be the very same one.
		jq -e --slurpfile w "$work/$name-window.json" \
			'.keyslots == ($w[0].keyslots | with_entries(select(.value.type == "luks2")))' \
			"$work/$name-final.json" >/dev/null || assert_stop "$name: the keyslots changed"
		cryptsetup open --test-passphrase --key-file "$work/key" "$hdr" ||
			assert_stop "$name: the passphrase does not open it"
	fi
	assert_reached "$name: end window resumed; header final"
	# With a recovery key, that key alone must decrypt everything.
	if [ -n "$det" ]; then
		verify_decrypt --as "$name" --header "$det" --key "${rkey:-$work/key}" \
			--sums "$work/sums" "$loop"
	else
		verify_decrypt --as "$name" --key "${rkey:-$work/key}" --sums "$work/sums" "$loop"
	fi
	if [ "$plain_copy" = yes ]; then
		# Proof that the wiped area really was a plaintext copy of the first chunk.
		first=$(dd if="$loop" bs=$mib count=$((moved_len / mib)) status=none | sha256sum)
		[ "$first" = "$before" ] || assert_stop "$name: the moved area was not the first chunk's copy"
	fi
	img_unloop "$loop"
	loop=""
}

kill_in_window A last-hotzone
check_point A yes
kill_in_window B gdb:crypt_keyslot_destroy
check_point B no
# C: a detached header (checksum resilience, no data shift). Here libcryptsetup would
# not fail but encrypt the already encrypted device a second time.
kill_in_window C last-hotzone \
	--strategy "detached-header=$work/C-detached.hdr"
check_point C no "$work/C-detached.hdr"
# E: as A, with a recovery key in a second keyslot: its secret is not at hand on resume.
kill_in_window E last-hotzone --recovery-key
alnum='[2-9A-HJ-NP-Z]'
grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$work/E.out" | tr -d ' \n' >"$work/E-rkey"
[ "$(wc -c <"$work/E-rkey")" = 55 ] || assert_stop "E: no recovery key shown"
check_point E yes "" "$work/E-rkey"
# F: a detached header and a recovery key: the keyslots are kept, the detached header's
# keyslot area keeps its own size (there is no data offset to end it at).
kill_in_window F last-hotzone --strategy "detached-header=$work/F-detached.hdr" --recovery-key
grep -E "^    ($alnum{6}-){7}$alnum{6}\$" "$work/F.out" | tr -d ' \n' >"$work/F-rkey"
[ "$(wc -c <"$work/F-rkey")" = 55 ] || assert_stop "F: no recovery key shown"
check_point F no "$work/F-detached.hdr" "$work/F-rkey"

# D: a power cut while resume writes the final header. The header write is one write of
# headers and keyslot area; here the old JSON wins and the keyslot area is torn (the new
# keyslot's bytes over the old one's). Resume must find the final header it proved and
# kept, check its key against the digest on the device, and write it again.
kill_in_window D last-hotzone
img=$work/disk-D.img
cp --sparse=always "$img" "$work/D-window.img"
cp -a "$FDEWIZ_STATE_DIR" "$work/D-state"
"$FDEWIZ" resume --foreground --key-file "$work/key" "$img:1" >/dev/null 2>&1 ||
	assert_stop "D: the first resume failed"
uuid=$(cryptsetup luksUUID "$work/D-backup.hdr")
cp "$FDEWIZ_STATE_DIR/$uuid-final.hdr" "$work/D-final.hdr" || assert_stop "D: no final header kept"
# Back to the moment of the cut: the window image, the state before that resume.
cp --sparse=always "$work/D-window.img" "$img"
rm -rf "$FDEWIZ_STATE_DIR"
mv "$work/D-state" "$FDEWIZ_STATE_DIR"
cp "$work/D-final.hdr" "$FDEWIZ_STATE_DIR/$uuid-final.hdr"
cryptsetup luksDump --dump-json-metadata "$work/D-final.hdr" >"$work/D-final.json"
area_off=$(jq -r '.keyslots["0"].area.offset' "$work/D-final.json")
area_len=$(jq -r '.keyslots["0"].area.size' "$work/D-final.json")
dd if="$work/D-final.hdr" of="$img" bs=4096 skip=$((area_off / 4096)) \
	seek=$(((mib + area_off) / 4096)) count=$((area_len / 4096)) conv=notrunc status=none
loop=$(part_loop "$img")
cryptsetup luksDump --dump-json-metadata "$loop" >"$work/D-window.json"
is_end_window "$work/D-window.json" 1 || assert_stop "D: the torn header is not the window header"
cryptsetup open --test-passphrase --key-file "$work/key" "$loop" 2>/dev/null &&
	assert_stop "D: the torn keyslot still opens"
img_unloop "$loop"
loop=""
printf 'not the key' >"$work/wrong"
"$FDEWIZ" resume --foreground --key-file "$work/wrong" "$img:1" >"$work/D-wrong.out" 2>&1 &&
	assert_stop "D: resume accepted a wrong passphrase"
grep -q "passphrase is wrong" "$work/D-wrong.out" || assert_stop "D: a wrong passphrase was not named"
[ ! -e "$FDEWIZ_STATE_DIR/$uuid-torn.hdr" ] || assert_stop "D: a wrong passphrase changed something"
"$FDEWIZ" resume --foreground --key-file "$work/key" "$img:1" >"$work/D-resume.out" \
	2>"$work/D-resume.err" || { cat "$work/D-resume.err"; assert_stop "D: resume failed"; }
grep -q "write was cut short" "$work/D-resume.err" || assert_stop "D: resume did not rewrite the header"
[ "$(state "$img")" = complete ] || assert_stop "D: status is '$(state "$img")', not complete"
assert_reached "D: torn final header write recovered"
verify_decrypt --as D --key "$work/key" --sums "$work/sums" "$work/disk-D.img" 1
assert_finish
