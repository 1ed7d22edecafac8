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

show_output()
{
	sed 's/^/    | /' "$res.all" >&2
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
	e2fsck -fy "$dev" >/dev/null 2>&1 || [ $? -le 1 ] || { echo "FAIL: e2fsck $1" >&2; exit 1; }
	run_quiet resize2fs "$dev" $(((size - 32 * 1048576) / 1024))K ||
		{ echo "FAIL: resize2fs $1" >&2; exit 1; }
	img_unloop "$dev"
}

# reencrypt_pending DEV: does the header on DEV record an unfinished reencryption?
reencrypt_pending()
{
	cryptsetup luksDump "$1" 2>/dev/null | grep -q '^Requirements:.*online-reencrypt'
}

# cryptsetup_interrupted DEV: start `cryptsetup reencrypt --encrypt` on DEV and send it
# SIGINT once its first progress report shows part of the device done (it then finishes
# the area it is writing, records where it stopped and exits). CS_NOTE says where.
cryptsetup_interrupted()
{
	local out=$IMG_TMP/cs.out rc=0

	: >"$out"
	cryptsetup reencrypt --encrypt --type luks2 --reduce-device-size 32M \
		--key-file "$key" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --batch-mode \
		--progress-json --progress-frequency 1 "$1" >"$out" 2>"$IMG_TMP/cs.err" &
	bg_pid=$!
	for _ in $(seq 1200); do
		grep -q '"device_bytes":"[1-9]' "$out" && break
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -INT "$bg_pid" 2>/dev/null || true
	wait "$bg_pid" || rc=$?
	bg_pid=
	CS_NOTE="cryptsetup exit $rc after SIGINT at: $(grep device_bytes "$out" | tail -1)"
}

# fdewiz_paused DEV: start fdewiz's own conversion of DEV in the background and pause it
# once its status shows part of the data done; it is held there (FDEWIZ_TEST_HOLD_AT, at
# 20 % unless the caller sets it), so that it is still running on a fast machine too.
# PAUSE_NOTE says where.
fdewiz_paused()
{
	local done=0 total=0 state=

	FDEWIZ_TEST_HOLD_AT=${FDEWIZ_TEST_HOLD_AT:-progress=20} fdw encrypt --yes --fast-pbkdf \
		--no-bench --key-file "$key" --work-dir "$IMG_TMP" "$1"
	[ "$RUN_RC" -eq 0 ] || { show_output; echo "FAIL: background encrypt" >&2; exit 1; }
	for _ in $(seq 1200); do
		"$FDEWIZ" status --json "$1" >"$res.poll" 2>/dev/null || true
		state=$(jq -r '.conversions[0].state // ""' "$res.poll")
		done=$(jq -r '.conversions[0].done // 0' "$res.poll")
		[ "$state" = running ] && [ "$done" -gt 0 ] && break
		[ "$state" = complete ] && break
		sleep 0.05
	done
	fdw pause "$1"
	total=$(jq -r '.conversions[0].total // 0' "$res.poll")
	PAUSE_NOTE="paused at $done of $total bytes (pause exit $RUN_RC)"
	[ "$RUN_RC" -eq 0 ] || { show_output; echo "FAIL: pause (state was $state)" >&2; exit 1; }
}

# verify_decrypt IMG [N]: cryptsetup (not fdewiz) decrypts the filesystem image IMG (or its
# partition N) through a new header file, then e2fsck -fn and the sha256 of every file
# img_fill wrote.
verify_decrypt()
{
	local img=$1 part=${2:-0} dev hdr=$IMG_TMP/decrypt.hdr

	rm -f "$hdr"
	dev=$(img_loop "$img" "$part")
	assert_true "$STEP: cryptsetup reencrypt --decrypt ${img##*/}" run_quiet cryptsetup \
		reencrypt --decrypt --header "$hdr" --key-file "$key" --batch-mode "$dev"
	assert_true "$STEP: e2fsck -fn ${img##*/}" run_quiet e2fsck -fn "$dev"
	img_unloop "$dev"
	assert_true "$STEP: sha256 of every file of ${img##*/}" img_verify "$img" "$part"
	rm -f "$hdr"
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
		[ "$tries" -gt 0 ] || { echo "FAIL: cannot attach $2 as $1" >&2; exit 1; }
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
