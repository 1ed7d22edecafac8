#!/bin/bash
# Whoever only looks at a LUKS2 header never writes to it, and never stands in the way.
#  A. One copy of the header damaged (the other whole): libcryptsetup's load would repair
#     it in place (shown on a copy); `status`, `status --json`, `list` and `pause` of the
#     interrupted conversion read it and the image's sha256 stays the same, with the state
#     right (interrupted, luks-unfinished).
#  B. The other copy damaged instead: the same.
#     A resume with a wrong passphrase is refused and changes nothing either.
#  C. Both damaged: status still answers (exit 0, nothing on stderr), says busy; unchanged.
#  D. A `resume` holding the partition lock (waiting for its passphrase): status and list
#     answer and say busy, `header-backup` and `recovery-key test` are refused (they load
#     the header through libcryptsetup: only under the lock), a second resume is refused;
#     nothing changed. Then the waiting resume gets its passphrase and finishes; the
#     cryptsetup program decrypts the result: e2fsck -fn and the sha256 of every file.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq losetup mkfs.ext4 e2fsck resize2fs cryptsetup timeout sha256sum dd

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
export ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0}
key=$IMG_TMP/key
printf 'read-only passphrase' >"$key"
printf 'not the passphrase' >"$IMG_TMP/badkey"
res=$IMG_TMP/res
img=$IMG_TMP/vol.img
pristine=$IMG_TMP/pristine.img
t0=$SECONDS

sum() { sha256sum <"$1" | cut -d' ' -f1; }

# damage OFF: one byte of the zero padding at the end of a JSON area, so that copy's
# checksum fails and nothing else about it changes.
damage() { printf 'X' | dd of="$img" bs=1 seek="$1" conv=notrunc status=none; }

# look WHAT: status (text and JSON), list and pause of $img; each must answer without an
# error of its own, and the image must be byte for byte the same afterwards.
look()
{
	local what=$1 before

	before=$(sum "$img")
	fdw status "$img"
	assert_eq "$what: status exit" 0 "$RUN_RC"
	assert_eq "$what: status stderr" "" "$(cat "$res.err")"
	[ "$RUN_RC" -eq 0 ] || show_output
	cp "$res.out" "$res.status"
	fdw status --json "$img"
	assert_eq "$what: status --json exit" 0 "$RUN_RC"
	cp "$res.out" "$res.json"
	fdw list --json "$img"
	assert_eq "$what: list exit" 0 "$RUN_RC"
	cp "$res.out" "$res.list"
	fdw pause "$img"
	assert_eq "$what: pause of a conversion not running" 1 "$RUN_RC"
	assert_contains "$what: pause says why" "$(cat "$res.err")" "is not running"
	assert_eq "$what: image sha256 unchanged" "$before" "$(sum "$img")"
	assert_eq "$what: no loop device left over the image" "" "$(losetup -j "$img")"
	# A resume with a wrong passphrase only looks too: the passphrase is asked of a
	# private copy of the header, so the load's repair cannot reach the image.
	fdw resume --foreground --key-file "$IMG_TMP/badkey" "$img"
	assert_eq "$what: resume with a wrong passphrase exit" 1 "$RUN_RC"
	assert_contains "$what: resume says nothing was changed" "$(cat "$res.err")" \
		"Nothing was changed"
	assert_eq "$what: image sha256 unchanged after the wrong passphrase" "$before" \
		"$(sum "$img")"
	assert_eq "$what: no loop device left after the resume" "" "$(losetup -j "$img")"
}

step_begin "an interrupted conversion to look at"
fs_image "$img" 640 ro-vol 48
shrink_for_header "$img"
cryptsetup_interrupted "$img"
echo "    $CS_NOTE"
assert_true "$STEP: the header records an unfinished conversion" reencrypt_pending "$img"
hdr_size=$(cryptsetup luksDump --dump-json-metadata "$img" >/dev/null && \
	od -An -tu1 -j8 -N8 "$img" | awk '{ v = 0; for (i = 1; i <= 8; i++) v = v * 256 + $i; print v }')
echo "    binary header plus JSON area: $hdr_size bytes"
cp --sparse=always "$img" "$pristine"
step_end

step_begin "A: second copy damaged"
damage $((2 * hdr_size - 100))
cp --sparse=always "$img" "$IMG_TMP/witness.img"
w0=$(sum "$IMG_TMP/witness.img")
cryptsetup luksDump "$IMG_TMP/witness.img" >/dev/null 2>&1 || true
# Why fdewiz reads by hand: libcryptsetup's load writes the good copy over the bad one.
assert_true "$STEP: libcryptsetup's load rewrites the damaged copy" \
	test "$w0" != "$(sum "$IMG_TMP/witness.img")"
rm -f "$IMG_TMP/witness.img"
look "$STEP"
assert_json "$res.json" '.conversions[0].state' interrupted
assert_json "$res.list" '.disks[0].partitions[0].verdict.reason' luks-unfinished
step_end

step_begin "B: first copy damaged"
cp --sparse=always "$pristine" "$img"
damage $((hdr_size - 100))
look "$STEP"
assert_contains "$STEP: resume names the wrong passphrase" "$(cat "$res.err")" "passphrase is wrong"
assert_json "$res.json" '.conversions[0].state' interrupted
step_end

step_begin "C: both copies damaged"
damage $((2 * hdr_size - 100))
look "$STEP"
assert_contains "$STEP: status says busy" "$(cat "$res.status")" "busy"
step_end

step_begin "D: a resume holds the partition"
cp --sparse=always "$pristine" "$img"
before=$(sum "$img")
go=$IMG_TMP/go
# The resume takes the lock, checks, then waits for its passphrase on stdin. The feeder
# gives up with the test (killed outright, it must not keep waiting for $go).
test_pid=$$
{
	while [ ! -e "$go" ] && kill -0 "$test_pid" 2>/dev/null; do sleep 0.1; done
	[ ! -e "$go" ] || cat "$key"
} | timeout 900 "$FDEWIZ" resume --foreground --key-file - "$img" >"$IMG_TMP/r.out" \
	2>"$IMG_TMP/r.err" &
bg_pid=$!
at_exit_kill "$bg_pid" KILL
# Run first (at_exit runs last to first), for a test stopped during this step: the resume
# itself, which KILL to timeout misses, then the feeder, since waiting for timeout waits for
# its whole pipeline.
at_exit eval '[ -z "$bg_pid" ] || { pkill -KILL -P "$bg_pid"; touch "$go"; } 2>/dev/null || true'
busy=
for _ in $(seq 600); do
	"$FDEWIZ" status "$img" >"$res.poll" 2>&1 || true
	if grep -q "another fdewiz is working on it" "$res.poll"; then
		busy=1
		break
	fi
	sleep 0.1
done
assert_eq "$STEP: status says another fdewiz is working on it" 1 "${busy:-0}"
look "$STEP"
assert_contains "$STEP: status says busy" "$(cat "$res.status")" "busy"
fdw header-backup "$img" "$IMG_TMP/backup.hdr"
assert_eq "$STEP: header-backup exit" 1 "$RUN_RC"
assert_contains "$STEP: header-backup says why" "$(cat "$res.err")" "another fdewiz is converting"
assert_true "$STEP: no backup file written" test ! -e "$IMG_TMP/backup.hdr"
printf 'AAAAA-AAAAA\n' >"$IMG_TMP/typed"
fdw recovery-key test --key-file "$IMG_TMP/typed" "$img"
assert_eq "$STEP: recovery-key test exit" 1 "$RUN_RC"
assert_contains "$STEP: recovery-key test says why" "$(cat "$res.err")" "another fdewiz is converting"
fdw resume --key-file "$key" "$img"
assert_eq "$STEP: a second resume exit" 1 "$RUN_RC"
assert_contains "$STEP: a second resume says why" "$(cat "$res.err")" "another fdewiz is converting"
assert_eq "$STEP: image sha256 unchanged while it waits" "$before" "$(sum "$img")"
touch "$go"
rc=0
wait "$bg_pid" || rc=$?
bg_pid=
assert_eq "$STEP: the waiting resume finishes" 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/    | /' "$IMG_TMP/r.out" "$IMG_TMP/r.err" >&2
fdw status --json "$img"
assert_json "$res.out" '.conversions[0].state' complete
step_end

step_begin "D: the data after the resume"
verify_decrypt "$img"
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
