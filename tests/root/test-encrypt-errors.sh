#!/bin/bash
# fdewiz encrypt, resume and pause on bad input: each refusal has the right exit status, a
# message that says what happened and that nothing was changed, and the whole image file
# keeps its sha256 (the filesystem stays fsck-clean, no header backup, job record or
# temporary header is left behind). Where fdewiz does change something before it fails,
# the message must say what changed, and the data must still be intact.
. "$(dirname "$0")/../lib/start.sh" jobs tmux
require_cmds jq parted losetup mount umount mkfs.ext4 mkfs.xfs e2fsck xfs_repair cryptsetup \
	setpriv sha256sum tmux timeout

tmux_name=fdw-encerr-$$
img_test_init
tmux_own "$tmux_name"

# Job records of this test stay in its own directory.
export FDEWIZ_STATE_DIR=$IMG_TMP/state
work=$IMG_TMP/work		# --work-dir: where the temporary header would go
backup=$IMG_TMP/backup.hdr	# --header-backup: must never be left behind by a refusal
mkdir -p "$work"
key=$IMG_TMP/key
printf 'correct horse battery staple' >"$key"
res=$IMG_TMP/res

# ---------------------------------------------------------------------------------------
# Helpers

# sha256 of a whole file; openssl uses the CPU's SHA instructions (3x faster here).
hash_of()
{
	if command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		sha256sum <"$1" | cut -d' ' -f1
	fi
}

# The sha256 every image must still have; set after it was built (and whenever a case is
# allowed to change it).
declare -A REF=()
remember()
{
	REF[$1]=$(hash_of "$1")
}

# Loop devices attached to an image right now (all of them: fdewiz's and ours).
loops_of()
{
	losetup -n -O NAME -j "$1" 2>/dev/null | wc -l
}

# fdw [--stdin FILE] ARGS...: run fdewiz (as $FDW_CMD says) with a time limit; stdin is
# /dev/null unless given. Leaves stdout in $res.out, stderr in $res.err, both in $res.all,
# the status in RUN_RC.
FDW_CMD=("$FDEWIZ")
fdw()
{
	local in=/dev/null

	if [ "$1" = --stdin ]; then
		in=$2
		shift 2
	fi
	RUN_RC=0
	timeout 120 "${FDW_CMD[@]}" "$@" <"$in" >"$res.out" 2>"$res.err" || RUN_RC=$?
	cat "$res.out" "$res.err" >"$res.all"
}

# A real run: it would convert in this process if fdewiz let it, so a missing check shows
# up as a changed image rather than as a worker left running.
REAL=(encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" --work-dir "$work"
	--header-backup "$backup")

CASE=
CASE_FAILS=0
case_begin()
{
	CASE=$1
	CASE_FAILS=$ASSERT_FAILS
}

case_end()
{
	if [ "$ASSERT_FAILS" -eq "$CASE_FAILS" ]; then
		echo "PASS: $CASE"
	else
		echo "FAIL: $CASE ($((ASSERT_FAILS - CASE_FAILS)) checks failed); fdewiz printed:"
		sed 's/^/    | /' "$res.all"
	fi
}

msg()
{
	cat "$res.all"
}

# says NEEDLE [NEEDLE...]: what fdewiz printed contains each fixed string (case_end shows
# the whole output once when a check of the case failed).
says()
{
	local n

	for n in "$@"; do
		ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
		if grep -qF -- "$n" "$res.all"; then
			assert_pass "$CASE: says '$n'"
		else
			assert_fail "$CASE: the message does not say '$n'"
		fi
	done
}

# says_not NEEDLE: what fdewiz printed does not contain NEEDLE.
says_not()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if grep -qF -- "$1" "$res.all"; then
		assert_fail "$CASE: the message should not say '$1'"
	else
		assert_pass "$CASE: does not say '$1'"
	fi
}

# The message says nothing was changed (in whichever case the sentence starts).
assert_nothing_changed_msg()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if grep -qi "nothing was changed" "$res.all"; then
		assert_pass "$CASE: says nothing was changed"
	else
		assert_fail "$CASE: the message does not say that nothing was changed"
	fi
}

# Files in the state dir (job records) and the work dir (temporary headers); the state dir
# may not exist at all.
files_left()
{
	{ find "$FDEWIZ_STATE_DIR" "$work" -type f 2>/dev/null || true; } | sed 's|.*/||' |
		tr '\n' ' '
}

# assert_untouched IMG LOOPS_BEFORE: the image keeps its sha256 and fdewiz left nothing.
assert_untouched()
{
	local img=$1 loops_before=$2 left

	assert_eq "$CASE: sha256 of $(basename "$img")" "${REF[$img]}" "$(hash_of "$img")"
	assert_true "$CASE: no header backup left" test ! -e "$backup"
	left=$(files_left)
	assert_eq "$CASE: files left in the state and work dirs" "" "$left"
	assert_eq "$CASE: loop devices on $(basename "$img")" "$loops_before" "$(loops_of "$img")"
}

# refused WHAT STATUS IMG fdw-ARGS...: the common shape of a refusal.
refused()
{
	local what=$1 status=$2 img=$3 loops

	shift 3
	case_begin "$what"
	loops=$(loops_of "$img")
	fdw "$@"
	assert_eq "$CASE: exit status" "$status" "$RUN_RC"
	assert_nothing_changed_msg
	assert_untouched "$img" "$loops"
}

# fsck_clean IMG N TYPE: the filesystem of partition N passes a read-only check.
fsck_clean()
{
	local dev rc=0

	dev=$(img_loop "$1" "$2")
	case $3 in
	ext4) e2fsck -fn "$dev" >"$IMG_TMP/fsck.log" 2>&1 || rc=$? ;;
	xfs) xfs_repair -n "$dev" >"$IMG_TMP/fsck.log" 2>&1 || rc=$? ;;
	esac
	img_unloop "$dev"
	[ "$rc" -eq 0 ] || sed 's/^/    | /' "$IMG_TMP/fsck.log" >&2
	return $rc
}

reason_of()
{
	"$FDEWIZ" list --json "$1" | jq -r ".disks[0].partitions[] | select(.number == $2) |
		.verdict.reason"
}

# ---------------------------------------------------------------------------------------
# Images. Partitions that end where the disk ends have no free space after them, so
# shrink is the only in-place strategy (grow is impossible).

t0=$SECONDS
# main: 1 = a 40 MiB ext4 (too small), 2 = a 160 MiB ext4 with data (can shrink).
main=$IMG_TMP/main.img
img_new "$main" 150
img_gpt "$main"
img_part "$main" Small 1 41
img_part "$main" Data 41 end
img_mkfs "$main" 1 ext4 small
# Inode tables and journal written now: mounting it later starts no background zeroing.
dev=$(img_loop "$main" 2)
mkfs.ext4 -q -F -b 4096 -L data -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
img_unloop "$dev"
img_fill "$main" 2 20

# k1: an ext4 with 1 KiB blocks: a 4096-byte encryption sector would tear its blocks.
k1=$IMG_TMP/k1.img
img_new "$k1" 130
img_gpt "$k1"
img_part "$k1" Data 1 end
dev=$(img_loop "$k1" 1)
mkfs.ext4 -q -F -b 1024 -L k1 "$dev"
img_unloop "$dev"

# full: an ext4 with less than 64 MiB free, at the end of its disk.
full=$IMG_TMP/full.img
img_ext4_fixture "$full" 100 62 full end

# xfs: cannot shrink, and nothing free after it (mkfs.xfs wants 300 MiB).
xfs=$IMG_TMP/xfs.img
img_new "$xfs" 320
img_gpt "$xfs"
img_part "$xfs" Data 1 end
img_mkfs "$xfs" 1 xfs xdata

# luks: already LUKS2.
luks=$IMG_TMP/luks.img
img_new "$luks" 90
img_gpt "$luks"
img_part "$luks" Vault 1 end
img_mkfs "$luks" 1 luks2 vault

# shrinkable: a template for the cases that fail after the filesystem was shrunk.
shrinkable=$IMG_TMP/shrinkable.img
img_ext4_fixture "$shrinkable" 130 20 data end

for img in "$main" "$k1" "$full" "$xfs" "$luks" "$shrinkable"; do
	remember "$img"
done
echo "images built in $((SECONDS - t0)) s"

# The verdicts the cases below rely on: if these are off, the cases test something else.
assert_eq "setup: main.img:1 verdict" too-small "$(reason_of "$main" 1)"
assert_eq "setup: main.img:2 verdict" ok "$(reason_of "$main" 2)"
assert_eq "setup: full.img:1 verdict" full "$(reason_of "$full" 1)"
assert_eq "setup: xfs.img:1 verdict" no-room "$(reason_of "$xfs" 1)"
assert_eq "setup: luks.img:1 verdict" already-luks "$(reason_of "$luks" 1)"
assert_eq "setup: k1.img:1 block size" 1024 \
	"$("$FDEWIZ" list --json "$k1" | jq -r '.disks[0].partitions[0].fs_block_size')"

# ---------------------------------------------------------------------------------------
# Addresses that name nothing.

refused "no such device" 1 "$main" "${REAL[@]}" /dev/fdewiz-no-such-disk
says "/dev/fdewiz-no-such-disk"
says "no such device"
says "fdewiz list"
case_end

refused "no such partition number (img:9)" 1 "$main" "${REAL[@]}" "$main:9"
says "$main:9"
says "no such partition"
says "fdewiz list"
case_end

# A typo in the image name is not a missing partition: the file itself is missing.
missing=$IMG_TMP/no-such.img
refused "no such image file (missing.img:1)" 1 "$main" "${REAL[@]}" "$missing:1"
says "$missing"
says_not "no such partition"
assert_true "$CASE: the missing image was not created" test ! -e "$missing"
case_end

# A disk image with a partition table, named without :N: the file exists, so "no such
# device or file" would send the user looking for the wrong mistake.
refused "whole disk image without :N" 1 "$main" "${REAL[@]}" "$main"
says "$main"
says_not "no such device or file"
case_end

# ---------------------------------------------------------------------------------------
# Partitions that cannot be converted.

# Mounted through a loop device over the partition, read-write: fdewiz must not write
# under a mounted filesystem. (The image is hashed while mounted, after a sync.)
case_begin "mounted partition"
mdev=$(img_loop "$main" 2)
mnt=$IMG_TMP/mnt
img_mount "$mdev" "$mnt" noatime
# The kernel may still write a little after mounting: wait until the image is still.
mounted_ref=
for _ in $(seq 20); do
	sync
	h=$(hash_of "$main")
	[ "$h" = "$mounted_ref" ] && break
	mounted_ref=$h
	sleep 1
done
loops=$(loops_of "$main")
fdw "${REAL[@]}" "$main:2"
assert_eq "$CASE: exit status" 1 "$RUN_RC"
assert_nothing_changed_msg
says "Mounted"
says "unmount"
assert_true "$CASE: still mounted" mountpoint -q "$mnt"
sync
assert_eq "$CASE: sha256 of main.img while mounted" "$mounted_ref" "$(hash_of "$main")"
assert_true "$CASE: no header backup left" test ! -e "$backup"
assert_eq "$CASE: loop devices on main.img" "$loops" "$(loops_of "$main")"
img_umount "$mnt"
img_unloop "$mdev"
assert_true "$CASE: fsck clean after unmount" fsck_clean "$main" 2 ext4
assert_true "$CASE: files intact" img_verify "$main" 2
case_end
remember "$main"	# mounting and unmounting updates the superblock's times

refused "too small (< 64 MiB)" 1 "$main" "${REAL[@]}" "$main:1"
says "Too small"
says "64 MiB"
assert_true "$CASE: fsck clean" fsck_clean "$main" 1 ext4
case_end

refused "full ext4 that cannot shrink" 1 "$full" "${REAL[@]}" "$full:1"
says "too full"
says "free some space"
# The figures: the real minimum size (resize2fs -P) and how much must go.
says "cannot shrink below"
says "MiB freed"
assert_true "$CASE: fsck clean" fsck_clean "$full" 1 ext4
assert_true "$CASE: files intact" img_verify "$full" 1
case_end

# Asking for shrink by name must not bypass the verdict (resize2fs would fail half-way).
refused "full ext4, --strategy shrink" 1 "$full" "${REAL[@]}" --strategy shrink "$full:1"
says "too full"
assert_true "$CASE: fsck clean" fsck_clean "$full" 1 ext4
case_end

refused "XFS with no free space after it" 1 "$xfs" "${REAL[@]}" "$xfs:1"
says "cannot shrink"
says "no free space after the partition"
says "detached header"
assert_true "$CASE: xfs_repair -n clean" fsck_clean "$xfs" 1 xfs
case_end

refused "XFS, --strategy shrink" 1 "$xfs" "${REAL[@]}" --strategy shrink "$xfs:1"
says "cannot shrink"
case_end

refused "already LUKS" 1 "$luks" "${REAL[@]}" "$luks:1"
says "Already encrypted with LUKS"
dev=$(img_loop "$luks" 1)
assert_true "$CASE: still opens with its key" \
	cryptsetup open --test-passphrase --key-file "$(img_keyfile)" "$dev"
img_unloop "$dev"
case_end

# ---------------------------------------------------------------------------------------
# Options.

refused "--sector-size 4096 on ext4 with 1 KiB blocks" 1 "$k1" \
	"${REAL[@]}" --strategy shrink --sector-size 4096 "$k1:1"
says "larger than the filesystem block size"
says "Choose a smaller one"
assert_true "$CASE: fsck clean" fsck_clean "$k1" 1 ext4
case_end

# The auto choice on the same filesystem must not pick 4096 either (dry run: the plan).
case_begin "default sector size on ext4 with 1 KiB blocks"
fdw encrypt --dry-run --strategy shrink "$k1:1"
assert_eq "$CASE: exit status" 0 "$RUN_RC"
says "sector size:     512 bytes"
assert_untouched "$k1" 0
case_end

refused "invalid sector size 3000" 1 "$k1" "${REAL[@]}" --strategy shrink --sector-size 3000 "$k1:1"
says "512, 1024, 2048 or 4096"
case_end

# Not a number at all: refused, not silently taken as "choose for me". A dry run, so that a
# missing check cannot encrypt the image; the exit status may say usage error or error.
case_begin "sector size that is not a number (abc)"
fdw encrypt --dry-run --strategy shrink --sector-size abc "$k1:1"
assert_true "$CASE: refused (exit 1 or 2, got $RUN_RC)" test "$RUN_RC" -eq 1 -o "$RUN_RC" -eq 2
says "abc"
assert_nothing_changed_msg
assert_untouched "$k1" 0
case_end

refused "unknown strategy" 2 "$main" "${REAL[@]}" --strategy bogus "$main:2"
says "bogus"
# What to do: the choices, or where to find them.
ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
if grep -qE "auto\|shrink|encrypt --help" "$res.all"; then
	assert_pass "$CASE: says where the choices are"
else
	assert_fail "$CASE: the message neither lists the strategies nor points to --help"
fi
case_end

# A detached header: the file must be named, must not exist, and its directory must.
refused "--strategy detached-header= without a file name" 2 "$main" \
	"${REAL[@]}" --strategy detached-header= "$main:2"
says "detached-header"
case_end

echo "not a header" >"$IMG_TMP/existing.hdr"
existing_sum=$(hash_of "$IMG_TMP/existing.hdr")
refused "--strategy detached-header=FILE that already exists" 1 "$main" \
	"${REAL[@]}" --strategy detached-header="$IMG_TMP/existing.hdr" "$main:2"
says "$IMG_TMP/existing.hdr" "already exists"
assert_eq "$CASE: the existing file is untouched" "$existing_sum" \
	"$(hash_of "$IMG_TMP/existing.hdr")"
case_end
rm -f "$IMG_TMP/existing.hdr"

refused "--strategy detached-header=FILE in a directory that does not exist" 1 "$main" \
	"${REAL[@]}" --strategy detached-header="$IMG_TMP/no-such-dir/det.hdr" "$main:2"
says "$IMG_TMP/no-such-dir"
assert_true "$CASE: no header file made" test ! -e "$IMG_TMP/no-such-dir/det.hdr"
assert_true "$CASE: fsck clean" fsck_clean "$main" 2 ext4
case_end

refused "--strategy grow without free space after the partition" 1 "$main" \
	"${REAL[@]}" --strategy grow "$main:2"
says "strategy is not possible"
says "fdewiz list"
assert_true "$CASE: fsck clean" fsck_clean "$main" 2 ext4
case_end

# ---------------------------------------------------------------------------------------
# Not root: as nobody without groups, on an image nobody may read but not write.

chmod 711 "$IMG_TMP"
mkdir -m 777 "$IMG_TMP/state-nobody"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups
	env FDEWIZ_STATE_DIR="$IMG_TMP/state-nobody")
fdewiz_nobody=$FDEWIZ
if ! "${nobody[@]}" test -x "$FDEWIZ"; then
	# The build tree is not reachable for nobody: run the same binary from here.
	mkdir -m 755 "$IMG_TMP/bin"
	install -m 755 "$FDEWIZ" "$IMG_TMP/bin/fdewiz"
	fdewiz_nobody=$IMG_TMP/bin/fdewiz
fi
nobody_key=$IMG_TMP/nobody.key
install -m 644 "$key" "$nobody_key"
chmod 644 "$main"
FDW_CMD=("${nobody[@]}" "$fdewiz_nobody")

case_begin "not root: dry run on a readable image"
fdw encrypt --dry-run "$main:2"
assert_eq "$CASE: exit status" 0 "$RUN_RC"
says "strategy:        shrink"
assert_nothing_changed_msg
assert_untouched "$main" 0
case_end

refused "not root: real run on a readable image" 1 "$main" \
	encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$nobody_key" \
	--header-backup "$backup" "$main:2"
says "needs root" "sudo"
case_end

# Even where nobody could write the file, encrypting needs root.
chmod 666 "$main"
refused "not root: real run on an image nobody may write" 1 "$main" \
	encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$nobody_key" \
	--header-backup "$backup" "$main:2"
says "needs root" "sudo"
case_end
FDW_CMD=("$FDEWIZ")
chmod 600 "$main"
chmod 700 "$IMG_TMP"

# ---------------------------------------------------------------------------------------
# Passphrase and confirmation.

# The real terminal prompt, in a tmux pane: two different passphrases.
case_begin "passphrases that differ (terminal prompt)"
loops=$(loops_of "$main")
tmux_start "$tmux_name" 100 30 "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--work-dir "$work" --header-backup "$backup" "$main:2"
if tmux_wait_for "$tmux_name" "Passphrase:" 20; then
	tmux_send "$tmux_name" -l "first secret 1"
	tmux_send "$tmux_name" Enter
	if tmux_wait_for "$tmux_name" "again" 10; then
		tmux_send "$tmux_name" -l "other secret 2"
		tmux_send "$tmux_name" Enter
	fi
fi
tmux_wait_exit "$tmux_name" 30 || true
tmux_capture "$tmux_name" -S - -J >"$res.all"
assert_eq "$CASE: exit status" 1 "$(tmux_exit_status "$tmux_name")"
says "passphrases differ"
says "run the command again"
assert_nothing_changed_msg
says_not "first secret"
says_not "other secret"
assert_untouched "$main" "$loops"
tmux_stop "$tmux_name"
case_end

for answer in no yes "YES please" ""; do
	printf '%s\n' "$answer" >"$IMG_TMP/answer"
	refused "typed confirmation '$answer' instead of YES" 1 "$main" --stdin "$IMG_TMP/answer" \
		encrypt --foreground --fast-pbkdf --no-bench --key-file "$key" --work-dir "$work" \
		--header-backup "$backup" "$main:2"
	says "Not confirmed"
	case_end
done

refused "typed confirmation: stdin closed" 1 "$main" \
	encrypt --foreground --fast-pbkdf --no-bench --key-file "$key" --work-dir "$work" \
	--header-backup "$backup" "$main:2"
says "Not confirmed"
case_end

: >"$IMG_TMP/empty.key"
refused "empty key file" 1 "$main" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$IMG_TMP/empty.key" --work-dir "$work" --header-backup "$backup" "$main:2"
says "$IMG_TMP/empty.key"
says "empty"
case_end

refused "missing key file" 1 "$main" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$IMG_TMP/no-such.key" --work-dir "$work" --header-backup "$backup" "$main:2"
says "$IMG_TMP/no-such.key"
case_end

# An empty passphrase on stdin (--key-file -) is the same mistake.
refused "empty key on stdin (--key-file -)" 1 "$main" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file - --work-dir "$work" --header-backup "$backup" "$main:2"
says "empty"
case_end

# ---------------------------------------------------------------------------------------
# resume and pause with nothing to resume or pause.

refused "resume: partition with no conversion (ext4)" 1 "$main" \
	resume --foreground --key-file "$key" "$main:2"
says "no unfinished conversion"
case_end

refused "resume: LUKS2 partition that is not being converted" 1 "$luks" \
	resume --foreground --key-file "$(img_keyfile)" "$luks:1"
says "no unfinished conversion"
case_end

refused "resume: no such partition" 1 "$main" resume --foreground --key-file "$key" "$main:9"
says "$main:9"
case_end

refused "pause: partition with no conversion (ext4)" 1 "$main" pause "$main:2"
says "no conversion"
case_end

refused "pause: LUKS2 partition that is not being converted" 1 "$luks" pause "$luks:1"
says "$luks:1"
case_end

refused "pause: no such partition" 1 "$main" pause "$main:9"
says "$main:9"
case_end

# A script that asks for JSON gets a JSON document on stdout, with the same exit status.
refused "status --json: partition with no conversion (ext4)" 1 "$main" status --json "$main:2"
says "no conversion"
assert_json "$res.out" '.fdewiz_status_version' 1
assert_json "$res.out" '.conversions' '[]'
assert_json "$res.out" '.errors | length' 1
assert_json "$res.out" '.errors[0].path' "$main:2"
assert_json "$res.out" '.errors[0].message' "it has no conversion (not LUKS2)"
case_end

refused "status --json: no such partition" 1 "$main" status --json "$main:9"
assert_json "$res.out" '.conversions' '[]'
assert_json "$res.out" '.errors[0].path' "$main:9"
assert_contains "$CASE: the reason in the JSON" "$(jq -r '.errors[0].message' "$res.out")" \
	"no such partition"
case_end

# ---------------------------------------------------------------------------------------
# Failures after the filesystem was shrunk: a work dir or header backup directory that
# does not exist. Best is to refuse before anything changes; if fdewiz does shrink first,
# its message must say so and name what was wrong, and the data must be intact.

# late_failure WHAT CULPRIT ARGS...: encrypt a copy of the shrinkable image with ARGS;
# it must fail and name CULPRIT. The copy is left in $late for the caller.
late=$IMG_TMP/late.img
late_failure()
{
	local what=$1 culprit=$2

	shift 2
	cp --sparse=always "$shrinkable" "$late"
	cp "$(img_sums_file "$shrinkable" 1)" "$(img_sums_file "$late" 1)"
	REF[$late]=${REF[$shrinkable]}
	case_begin "$what"
	fdw encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" "$@" "$late:1"
	assert_eq "$CASE: exit status" 1 "$RUN_RC"
	says "$culprit"
	if [ "$(hash_of "$late")" = "${REF[$late]}" ]; then
		assert_nothing_changed_msg
	else
		echo "    note: $CASE: the image changed before the failure"
		says "shrunk"
		says_not "Nothing was changed"
		# ...and what to do now: run it again (the shrink is not repeated) or undo it.
		ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
		if grep -qiE "again|resize2fs|fdewiz encrypt" "$res.all"; then
			assert_pass "$CASE: says what to do"
		else
			assert_fail "$CASE: the message does not say what to do now"
		fi
	fi
	assert_eq "$CASE: still ext4" ext4 "$("$FDEWIZ" list --json "$late" |
		jq -r '.disks[0].partitions[0].fstype')"
	assert_true "$CASE: fsck clean" fsck_clean "$late" 1 ext4
	assert_true "$CASE: files intact" img_verify "$late" 1
	assert_eq "$CASE: files left in the state and work dirs" "" "$(files_left)"
	case_end
}

late_failure "--work-dir that does not exist" "$IMG_TMP/no-such-dir" \
	--work-dir "$IMG_TMP/no-such-dir" --header-backup "$backup"
rm -f "$backup"

# What the user does next: the same command with a work dir that exists. It must finish,
# and cryptsetup must decrypt the result to the same files.
case_begin "encrypt again after the failure"
fdw encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" --work-dir "$work" \
	--header-backup "$backup" "$late:1"
assert_eq "$CASE: exit status" 0 "$RUN_RC"
says "is now encrypted"
dev=$(img_loop "$late" 1)
assert_eq "$CASE: blkid type" crypto_LUKS "$(blkid -p -o value -s TYPE "$dev" || true)"
img_unloop "$dev"
verify_decrypt --as "$CASE" "$late" 1
case_end
rm -f "$late" "$backup"
rm -rf "$FDEWIZ_STATE_DIR"	# the job record of that conversion

late_failure "--header-backup in a directory that does not exist" "$IMG_TMP/no-such-dir" \
	--work-dir "$work" --header-backup "$IMG_TMP/no-such-dir/backup.hdr"
rm -f "$late"

# ---------------------------------------------------------------------------------------
# At the end every image is as it was (main.img since its mount, the others since built).

for img in "$main" "$k1" "$full" "$xfs" "$luks" "$shrinkable"; do
	assert_eq "end: sha256 of $(basename "$img")" "${REF[$img]}" "$(hash_of "$img")"
done
assert_true "end: main.img:2 fsck clean" fsck_clean "$main" 2 ext4
assert_true "end: main.img:2 files intact" img_verify "$main" 2
echo "run time: $((SECONDS - t0)) s"
assert_finish
