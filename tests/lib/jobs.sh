# Conversions for system tests (sourced after assert.sh and images.sh, with $FDEWIZ, $key
# and $res set): run fdewiz, make filesystem images, stop conversions part-way, and check
# the result independently with the cryptsetup program.

STEP=
STEP_FAILS=0
step_begin()
{
	STEP=$1
	STEP_FAILS=$ASSERT_FAILS
}

step_end()
{
	if [ "$ASSERT_FAILS" -eq "$STEP_FAILS" ]; then
		echo "PASS: $STEP"
	else
		echo "FAIL: $STEP ($((ASSERT_FAILS - STEP_FAILS)) checks failed)"
	fi
}

# fdw ARGS...: run fdewiz with a time limit; output in $res.out/$res.err/$res.all, status
# in RUN_RC.
fdw()
{
	RUN_RC=0
	timeout 600 "$FDEWIZ" "$@" </dev/null >"$res.out" 2>"$res.err" || RUN_RC=$?
	cat "$res.out" "$res.err" >"$res.all"
}

# encrypt_argv: ENCRYPT_ARGV, fdewiz's arguments for encrypting as a user runs it, in the
# foreground (cheap key derivation, no benchmark), with the passphrase in $key and $IMG_TMP
# as its work folder; the target and further options follow.
encrypt_argv()
{
	ENCRYPT_ARGV=(encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key"
		--work-dir "$IMG_TMP")
}

# fdw_encrypt [OPTION...] TARGET: fdw with encrypt_argv's arguments.
fdw_encrypt()
{
	encrypt_argv
	fdw "${ENCRYPT_ARGV[@]}" "$@"
}

show_output()
{
	sed 's/^/    | /' "$res.all" >&2
}

# encrypt_ok NAME TARGET [OPTION...]: fdewiz with encrypt_argv's arguments, its header
# backup in $IMG_TMP/NAME.hdr and OPTIONs; its output in $IMG_TMP/NAME.out and NAME.err.
# It must end with 0: otherwise its output is shown and the test ends there.
encrypt_ok()
{
	local name=$1 target=$2
	shift 2
	encrypt_argv
	run_cmd "$IMG_TMP/$name" "$FDEWIZ" "${ENCRYPT_ARGV[@]}" "$@" \
		--header-backup "$IMG_TMP/$name.hdr" "$target"
	assert_eq "encrypt $* $target ($name): exit" 0 "$RUN_RC"
	[ "$RUN_RC" = 0 ] || { cat "$IMG_TMP/$name.out" "$IMG_TMP/$name.err" >&2; assert_finish; }
}

# fs_image PATH SIZE_MIB LABEL DATA_MIB: an ext4 filesystem image (no partition table)
# holding DATA_MIB MiB of random files whose sums img_verify checks.
fs_image()
{
	img_new "$1" "$2"
	img_mkfs "$1" 0 ext4 "$3"
	img_fill "$1" 0 "$4"
}

# shrink_for_header PATH: end the filesystem of image PATH 32 MiB early, the room
# `cryptsetup reencrypt --encrypt --reduce-device-size 32M` needs.
shrink_for_header()
{
	local dev size

	dev=$(img_loop "$1" 0)
	size=$(blockdev --getsize64 "$dev")
	e2fsck -fy "$dev" >/dev/null 2>&1 || [ $? -le 1 ] || assert_stop "e2fsck -fy $1"
	run_quiet resize2fs "$dev" $(((size - 32 * 1048576) / 1024))K ||
		assert_stop "resize2fs $1"
	img_unloop "$dev"
}

# identity_volumes: $A and $B, the two volumes that the identity tests give the same name
# in turn: ext4 images of 200 and 640 MiB holding 30 and 40 MiB of files, B's filesystem
# shrunk to leave room for a header.
identity_volumes()
{
	A=$IMG_TMP/a.img
	B=$IMG_TMP/b.img
	fs_image "$A" 200 volA 30
	fs_image "$B" 640 volB 40
	shrink_for_header "$B"
}

# reencrypt_pending DEV: does the header on DEV record an unfinished reencryption?
reencrypt_pending()
{
	cryptsetup luksDump "$1" 2>/dev/null | grep -q '^Requirements:.*online-reencrypt'
}

# cryptsetup_interrupted DEV: another tool's unfinished conversion of DEV: `cryptsetup
# reencrypt --encrypt --init-only` writes the LUKS2 header that records a pending
# reencryption (datashift), and stops there, as a conversion interrupted at its first byte
# leaves it. Not a real run stopped with SIGINT: its progress comes once a second, and a fast
# machine converted a mostly empty 640 MiB image in 0.65 s, before any report, so the
# "interrupted" conversion was a finished one. CS_NOTE says what was done.
cryptsetup_interrupted()
{
	local rc=0

	cryptsetup reencrypt --encrypt --init-only --type luks2 --reduce-device-size 32M \
		--key-file "$key" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --batch-mode \
		"$1" >"$IMG_TMP/cs.out" 2>"$IMG_TMP/cs.err" || rc=$?
	CS_NOTE="cryptsetup reencrypt --init-only exit $rc"
}

# fdewiz_paused DEV: start fdewiz's own conversion of DEV in the background and pause it
# once its status shows part of the data done; it is held there (FDEWIZ_TEST_HOLD_AT, at
# 20 % unless the caller sets it), so that it is still running on a fast machine too.
# PAUSE_NOTE says where.
fdewiz_paused()
{
	local moved total

	FDEWIZ_TEST_HOLD_AT=${FDEWIZ_TEST_HOLD_AT:-progress=20} fdw encrypt --yes --fast-pbkdf \
		--no-bench --key-file "$key" --work-dir "$IMG_TMP" "$1"
	[ "$RUN_RC" -eq 0 ] || { show_output; assert_stop "background encrypt of $1"; }
	wait_job "$1" '(.state == "running" and .done > 0) or .state == "complete"' 60 || true
	fdw pause "$1"
	moved=$(jq -r '.conversions[0].done // 0' "$JOB_JSON")
	total=$(jq -r '.conversions[0].total // 0' "$JOB_JSON")
	PAUSE_NOTE="paused at $moved of $total bytes (pause exit $RUN_RC)"
	[ "$RUN_RC" -eq 0 ] || { show_output; assert_stop "pause of $1 (state was $JOB_STATE)"; }
}

# verify_encrypted IMAGE PASSPHRASE [N]: partition N (default 1) of the image file IMAGE
# holds LUKS2 (blkid), and verify_decrypt with PASSPHRASE (kept in $IMG_TMP/key) finds every
# file whole.
verify_encrypted()
{
	local n=${3:-1}

	assert_eq "LUKS2 on the partition" crypto_LUKS \
		"$(img_on_loop "$1" "$n" blkid -p -o value -s TYPE)"
	printf '%s' "$2" >"$IMG_TMP/key"
	verify_decrypt --key "$IMG_TMP/key" "$1" "$n"
}

# verify_decrypt [OPTION...] TARGET [N]: the cryptsetup program (not fdewiz) decrypts
# partition N (default 0, the whole file) of the image file TARGET, or the block device
# TARGET (a loop device the test attached; it stays attached), then `e2fsck -fn` and the
# sha256 of every file img_fill wrote there. Three checks, named "$STEP: TARGET[:N]: ...".
#	--key FILE	the key or passphrase (default $key); a <(printf ...) keeps it off the disk
#	--header FILE	decrypt through this detached header (default: a new header file)
#	--fs xfs	`xfs_repair -n` instead of `e2fsck -fn`
#	--sums FILE	check these sums (sha256sum's list, paths from the filesystem's root)
#			instead of img_fill's
#	--as WHAT	name the checks "WHAT: ..." instead of after $STEP
verify_decrypt()
{
	local keyf=${key:-} header='' fs=ext4 sums='' what=${STEP:-}
	local target part dev hdr name mnt=$IMG_TMP/decrypted.$$ attached=

	while [ $# -gt 0 ]; do
		case $1 in
		--key) keyf=$2 ;;
		--header) header=$2 ;;
		--fs) fs=$2 ;;
		--sums) sums=$2 ;;
		--as) what=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	target=$1 part=${2:-0}
	name="${what:+$what: }${target##*/}${2:+:$2}"
	hdr=${header:-$IMG_TMP/decrypt.hdr}
	[ -n "$header" ] || rm -f "$hdr"
	if [ -b "$target" ]; then
		dev=$target
	else
		dev=$(img_loop "$target" "$part")
		attached=yes
	fi
	assert_true "$name: cryptsetup reencrypt --decrypt" run_quiet cryptsetup reencrypt \
		--decrypt --header "$hdr" --key-file "$keyf" --batch-mode "$dev"
	if [ "$fs" = xfs ]; then
		assert_true "$name: xfs_repair -n" run_quiet xfs_repair -n "$dev"
	else
		assert_true "$name: e2fsck -fn" run_quiet e2fsck -fn "$dev"
	fi
	if [ -n "$sums" ]; then
		img_mount "$dev" "$mnt" ro
		assert_true "$name: sha256 of every file" \
			bash -c 'cd "$1" && sha256sum --quiet -c "$2"' _ "$mnt" "$sums"
		img_umount "$mnt"
		rmdir "$mnt"
		[ -z "$attached" ] || img_unloop "$dev"
	else
		[ -z "$attached" ] || img_unloop "$dev"
		assert_true "$name: sha256 of every file" img_verify "$target" "$part"
	fi
	[ -n "$header" ] || rm -f "$hdr"
}

# wait_job ADDRESS CONDITION SECONDS: poll `$FDEWIZ status --json ADDRESS` (the state
# folder is $FDEWIZ_STATE_DIR: `FDEWIZ_STATE_DIR=DIR wait_job ...` for another) five times
# a second until CONDITION holds of its first conversion: a state name ("complete"), or a
# jq expression ('.state == "running" and .done > 0'). False after SECONDS without it.
# The last reading stays in $JOB_JSON, its state in $JOB_STATE.
JOB_JSON=
JOB_STATE=
wait_job()
{
	local cond=$2 end=$((SECONDS + $3))

	JOB_JSON=$IMG_TMP/job-status.json
	[[ "$cond" != [a-z]* ]] || cond=".state == \"$cond\""
	while :; do
		"$FDEWIZ" status --json "$1" >"$JOB_JSON" 2>/dev/null || true
		JOB_STATE=$(jq -r '.conversions[0].state // ""' "$JOB_JSON" 2>/dev/null || true)
		jq -e ".conversions[0] | $cond" "$JOB_JSON" >/dev/null 2>&1 && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.2
	done
	echo "wait_job: $1 is '$JOB_STATE' after $3 s, not $cond" >&2
	return 1
}

# verify_volume_key IMG: for a filesystem image whose LUKS2 header cryptsetup will not
# decrypt in place (a header re-keyed by `cryptsetup reencrypt`), decrypt a copy with the
# volume key cryptsetup reads from the header (AES-XTS, plain64 IVs in 512-byte units,
# in Python), then e2fsck -fn and the sha256 of every file img_fill wrote.
verify_volume_key()
{
	local img=$1 vk=$IMG_TMP/vk plain=$IMG_TMP/plain.img meta

	meta=$(cryptsetup luksDump --dump-json-metadata "$img")
	assert_eq "$STEP: cipher of ${img##*/}" aes-xts-plain64 \
		"$(jq -r '.segments["0"].encryption' <<<"$meta")"
	assert_true "$STEP: volume key of ${img##*/}" run_quiet cryptsetup luksDump \
		--dump-volume-key --volume-key-file "$vk" --key-file "$key" --batch-mode "$img"
	python3 - "$img" "$vk" "$(jq -r '.segments["0"].offset' <<<"$meta")" \
		"$(jq -r '.segments["0"].sector_size' <<<"$meta")" "$plain" <<'PY'
import struct, sys
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
img, vk, offset, sector, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
key = open(vk, "rb").read()
with open(img, "rb") as f, open(out, "wb") as o:
    f.seek(offset)
    n = 0
    while True:
        block = f.read(sector)
        if len(block) < sector:
            break
        iv = struct.pack("<Q", n * (sector // 512)) + bytes(8)
        d = Cipher(algorithms.AES(key), modes.XTS(iv)).decryptor()
        o.write(d.update(block) + d.finalize())
        n += 1
PY
	rm -f "$vk"
	assert_true "$STEP: e2fsck -fn ${img##*/} (decrypted copy)" run_quiet e2fsck -fn "$plain"
	cp "$(img_sums_file "$img" 0)" "$(img_sums_file "$plain" 0)"
	assert_true "$STEP: sha256 of every file of ${img##*/}" img_verify "$plain" 0
	rm -f "$plain"
}

# loop_name: a loop device name nothing is attached to, from the top of the range:
# `losetup --find` (other tests, other programs) hands out the lowest free one, so a name
# this test frees for a moment is not taken by someone else meanwhile.
loop_name()
{
	local n

	for n in $(seq $((200 + $$ % 200)) 511) $(seq 200 511); do
		losetup "/dev/loop$n" >/dev/null 2>&1 || { echo "/dev/loop$n"; return 0; }
	done
	echo "loop_name: no free loop device name from 200 to 511" >&2
	return 1
}

# attach_as DEV FILE: FILE on the loop device named DEV (losetup creates the node).
attach_as()
{
	local tries=50

	until losetup "$1" "$2" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || assert_stop "cannot attach $2 as $1"
		sleep 0.1
	done
	img_register loop "$1"
}

# True when process PID has ended: gone, or a zombie its parent has not reaped yet (the
# worker's parent is whatever adopted it, and on some machines that reaps late).
proc_ended()
{
	local st
	st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}
