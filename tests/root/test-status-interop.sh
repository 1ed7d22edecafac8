#!/bin/bash
# fdewiz and the cryptsetup program on the same LUKS2 headers:
#  A. a conversion started by `cryptsetup reencrypt --encrypt` is shown running by
#     `fdewiz status` while cryptsetup works (speed and ETA from two readings); killed
#     with SIGKILL, status shows it (source "header", the percent of the segments
#     `cryptsetup luksDump` prints, +-1) and `fdewiz list` (luks-unfinished), and
#     `fdewiz resume` finishes it; cryptsetup then decrypts it to the same files.
#  B. after a complete fdewiz conversion, cryptsetup sees a clean LUKS2 header (no
#     reencryption requirement, one keyslot, the UUID fdewiz status reports as id) that
#     opens with the key and not with another one; and it decrypts to the same files.
set -euo pipefail

lib=$(dirname "$0")/../lib
. "$lib/assert.sh"
. "$lib/images.sh"
# step_begin/step_end, fdw, show_output and verify_decrypt; this test's own
# reencrypt_pending below (partition 1 of a disk image) takes the place of that file's.
. "$lib/jobs.sh"

require_root
require_cmds jq parted losetup mkfs.ext4 e2fsck resize2fs dumpe2fs cryptsetup blkid timeout
require_fdewiz

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'interop passphrase' >"$key"
wrong=$IMG_TMP/wrong.key
printf 'interop passphrasf' >"$wrong"
res=$IMG_TMP/res
mib=1048576
t0=$SECONDS

hash_of()
{
	if command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	else
		sha256sum <"$1" | cut -d' ' -f1
	fi
}

# luks_json IMG: the LUKS2 metadata of partition 1 as cryptsetup reads it, into $res.luks.
luks_json()
{
	local dev

	dev=$(img_loop "$1" 1)
	cryptsetup luksDump --dump-json-metadata "$dev" >"$res.luks"
	cryptsetup luksDump "$dev" >"$res.dump"
	img_unloop "$dev"
}

# ---------------------------------------------------------------------------------------
# A. Started by cryptsetup, killed, seen and finished by fdewiz.

# An ext4 partition with data, shrunk by 32 MiB as cryptsetup's --reduce-device-size needs.
A=$IMG_TMP/cs.img
img_ext4_fixture "$A" 702 150 data end
part_size=$(img_part_size "$A" 1)
dev=$(img_loop "$A" 1)
e2fsck -fy "$dev" >/dev/null 2>&1 || [ $? -le 1 ] || { echo "FAIL: e2fsck before resize"; exit 1; }
run_quiet resize2fs "$dev" $(((part_size - 32 * mib) / 1024))K || { echo "FAIL: resize2fs"; exit 1; }
fs_bytes=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '
	/^Block count/ { c = $2 } /^Block size/ { b = $2 } END { printf "%d\n", c * b }')
img_unloop "$dev"
[ "$fs_bytes" -le $((part_size - 32 * mib)) ] ||
	{ echo "FAIL: the filesystem ($fs_bytes bytes) does not end 32 MiB early"; exit 1; }
template=$IMG_TMP/cs-template.img
cp --sparse=always "$A" "$template"
echo "image built in $((SECONDS - t0)) s"

# start_cryptsetup [ARGS...]: the in-place encryption with the cryptsetup program.
start_cryptsetup()
{
	dev=$(img_loop "$A" 1)
	cryptsetup reencrypt --encrypt --type luks2 --reduce-device-size 32M \
		--key-file "$key" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --batch-mode \
		--progress-json --progress-frequency 1 "$@" "$dev" \
		>"$IMG_TMP/cs.out" 2>"$IMG_TMP/cs.err" &
	cs_pid=$!
	# Still running at exit (the test failed half-way), it would hold a loop device.
	at_exit_kill "$cs_pid" KILL
}

# Is a reencryption recorded in the header of partition 1 of $A (cryptsetup's view)?
reencrypt_pending()
{
	local d rc=0

	d=$(img_loop "$A" 1)
	cryptsetup luksDump "$d" 2>/dev/null | grep -q '^Requirements:.*online-reencrypt' || rc=$?
	img_unloop "$d"
	return $rc
}

# throttle PID: let cryptsetup run in short bursts, so that fdewiz can read its header
# several times while it moves (a stopped process holds no lock for long: each burst ends
# its header write). Runs until PID is gone; throttle_pid is this loop.
throttle_pid=
throttle()
{
	while kill -STOP "$1" 2>/dev/null; do
		sleep 0.3
		kill -CONT "$1" 2>/dev/null || break
		sleep 0.05
	done
}

# expected_progress: percent (rounded down), bytes done and total of partition 1 of $A,
# from the segments `cryptsetup luksDump` prints (cryptsetup's view, not fdewiz's parser):
# the volume being made is the segment flagged backup-final (to the end of the device when
# its length is "whole device"); done is every unflagged segment of that type (a hotzone
# still being written is flagged in-reencryption). Output: "PERCENT DONE TOTAL".
expected_progress()
{
	local d size

	d=$(img_loop "$A" 1)
	size=$(blockdev --getsize64 "$d")
	cryptsetup luksDump "$d" | awk -v size="$size" '
		/^Data segments:/ { seg = 1; next }
		/^Keyslots:/ { seg = 0 }
		seg && /^  [0-9]+: / { n++; type[n] = $2; flags[n] = "" }
		seg && /offset:/ { off[n] = $2 }
		seg && /length:/ { len[n] = ($2 == "(whole" ? "whole" : $2) }
		seg && /flags :/ { flags[n] = $3 }
		END {
			for (i = 1; i <= n; i++) if (flags[i] == "backup-final") f = i
			total = len[f] == "whole" ? size - off[f] : len[f]
			for (i = 1; i <= n; i++)
				if (flags[i] == "" && type[i] == type[f])
					done += len[i] == "whole" ? size - off[i] : len[i]
			printf "%d %d %d\n", int(100 * done / total), done, total
		}'
	img_unloop "$d"
}

step_begin "cryptsetup reencrypt --encrypt, read by fdewiz while it runs"
start_cryptsetup
throttle "$cs_pid" &
throttle_pid=$!
at_exit_kill "$throttle_pid"
started=
for _ in $(seq 1200); do
	# Progress past zero: the header is in place and data is being moved.
	if grep -q '"device_bytes":"[1-9]' "$IMG_TMP/cs.out"; then
		started=yes
		break
	fi
	kill -0 "$cs_pid" 2>/dev/null || break
	sleep 0.05
done
# cryptsetup holds its reencryption lock: running (no worker of fdewiz's). Two readings
# of the header a moment apart give the speed between them and an ETA. Not wait_job: the
# first reading is checked too, and the wait ends as soon as cryptsetup does.
moving= first=
for _ in $(seq 30); do
	[ -n "$started" ] && kill -0 "$cs_pid" 2>/dev/null || break
	fdw status --json "$A:1"
	[ -n "$first" ] || first=$(jq -r '.conversions[0].state' "$res.out")
	if jq -e '.conversions[0] | .state == "running" and .speed > 0' "$res.out" \
		>/dev/null; then
		moving=yes
		break
	fi
	sleep 1
done
json_load "$res.out" '.conversions[0]'
assert_eq "$STEP: the first reading (cryptsetup holds its lock)" running "$first"
if [ -n "$moving" ]; then
	assert_pass "$STEP: a later reading has a speed"
	assert_field "$STEP" source header
	assert_field "$STEP" pid null
	ASSERT_CHECKS=$((ASSERT_CHECKS + 3))
	if jq -e '.conversions[0] | .speed > 0 and .eta > 0 and .done > 0 and
		  .done < .total' "$res.out" >/dev/null; then
		assert_pass "$STEP: speed and ETA from two readings"
	else
		assert_fail "$STEP: no speed or ETA: $(cat "$res.out")"
	fi
	echo "    running: $(jq -c '.conversions[0] | {percent, done, total, speed, eta}' \
		"$res.out")"
	fdw status "$A:1"
	assert_contains "$STEP: status (text)" "$(cat "$res.out")" "running"
	assert_contains "$STEP: status (text)" "$(cat "$res.out")" "ETA"
	assert_contains "$STEP: status (text)" "$(cat "$res.out")" "(started outside fdewiz)"
	# Where it looked, and how to read another state folder: the record may be there.
	assert_contains "$STEP: status names where it looked" "$(tr '\n' ' ' <"$res.out")" \
		"No record of it in $FDEWIZ_STATE_DIR/jobs: another program started it"
	assert_contains "$STEP: status says how to read another state folder" \
		"$(cat "$res.out")" "FDEWIZ_STATE_DIR=/mnt/var/lib/fdewiz fdewiz status"
	echo "    $(head -1 "$res.out")"
	# The readings are fdewiz's own: nothing of it reaches the volume.
	assert_true "$STEP: pause refuses what fdewiz does not run" \
		sh -c "! timeout 60 '$FDEWIZ' pause '$A:1' >/dev/null 2>&1"
else
	assert_fail "$STEP: cryptsetup (progress seen: ${started:-no}) never showed moving"
fi
kill -KILL "$cs_pid" 2>/dev/null || true
cs_rc=0
{ wait "$cs_pid"; } 2>/dev/null || cs_rc=$?
wait "$throttle_pid" 2>/dev/null || true
cs_pid= throttle_pid=
img_unloop "$dev"
echo "    cryptsetup: exit $cs_rc, progress seen before the kill: ${started:-no}"
echo "    last progress: $(tail -1 "$IMG_TMP/cs.out")"
how=SIGKILL
if ! reencrypt_pending; then
	# This machine encrypted all of it before the kill landed: start from the shrunk
	# image again and stop cryptsetup right after it placed the header instead.
	echo "    note: cryptsetup finished before SIGKILL; using --init-only"
	cp --sparse=always "$template" "$A"
	start_cryptsetup --init-only
	wait "$cs_pid" || { cat "$IMG_TMP/cs.err"; echo "FAIL: cryptsetup --init-only"; exit 1; }
	cs_pid=
	img_unloop "$dev"
	how=--init-only
fi
assert_true "$STEP: the header records an unfinished reencryption" reencrypt_pending
step_end

dev=$(img_loop "$A" 1)
uuid=$(cryptsetup luksUUID "$dev")
img_unloop "$dev"
echo "    LUKS UUID $uuid, stopped by $how"

step_begin "fdewiz status --json shows the conversion cryptsetup started"
fdw status --json "$A:1"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
assert_json "$res.out" '.fdewiz_status_version' 1
assert_json "$res.out" '.conversions | length' 1
json_load "$res.out" '.conversions[0]'
assert_field "$STEP" source header
assert_field "$STEP" address "$A:1"
assert_field "$STEP" id "$uuid"
assert_field "$STEP" pid null
assert_field "$STEP" header_backup null
state=${JSON[state]-}
ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
case $state in
interrupted|needs-repair) assert_pass "$STEP: state $state" ;;
*) assert_fail "$STEP: state: expected interrupted or needs-repair, found '$state'" ;;
esac
echo "    state: $state, percent ${JSON[percent]-?}, done ${JSON[done]-?} of ${JSON[total]-?}"
read -r want_pct want_done want_total < <(expected_progress)
echo "    cryptsetup luksDump: $want_done of $want_total bytes ($want_pct %)"
assert_near "$STEP: percent (luksDump's segments)" "$want_pct" \
	"$(jq '.conversions[0].percent | floor' "$res.out")" 1
assert_field "$STEP" done "$want_done"
assert_field "$STEP" total "$want_total"
# Not behind what cryptsetup itself last reported before it was stopped.
last_bytes=$(tail -1 "$IMG_TMP/cs.out" | jq -r '.device_bytes // 0' 2>/dev/null || echo 0)
assert_true "$STEP: at least the $last_bytes bytes cryptsetup reported" \
	test "${JSON[done]-0}" -ge "$last_bytes"
if [ "$how" = SIGKILL ]; then
	assert_true "$STEP: part-way (not 0 %, not 100 %)" \
		test "$want_done" -gt 0 -a "$want_done" -lt "$want_total"
fi
# No movement since the last reading: no speed is made up.
fdw status --json "$A:1"
assert_json "$res.out" '.conversions[0].state' "$state"
assert_json "$res.out" '.conversions[0].speed' 0
assert_json "$res.out" '.conversions[0].eta' null
step_end

step_begin "fdewiz status (text) and fdewiz list"
fdw status "$A:1"
assert_eq "$STEP: status exit" 0 "$RUN_RC"
assert_contains "$STEP: status" "$(cat "$res.out")" "$state"
assert_contains "$STEP: status" "$(cat "$res.out")" "fdewiz resume $A:1"
fdw list --json "$A"
assert_eq "$STEP: list exit" 0 "$RUN_RC"
assert_json "$res.out" '.disks[0].partitions[0].fstype' crypto_LUKS
assert_json "$res.out" '.disks[0].partitions[0].uuid' "$uuid"
assert_json "$res.out" '.disks[0].partitions[0].verdict.reason' luks-unfinished
assert_json "$res.out" '.disks[0].partitions[0].verdict.eligible' false
fdw list "$A"
assert_contains "$STEP: list table" "$(cat "$res.out")" "unfinished"
step_end

# Nothing runs it: pause refuses; a wrong key changes nothing.
step_begin "pause and a wrong key on the interrupted conversion"
before=$(hash_of "$A")
fdw pause "$A:1"
assert_eq "$STEP: pause exit" 1 "$RUN_RC"
assert_contains "$STEP: pause" "$(cat "$res.all")" "not running"
assert_contains "$STEP: pause" "$(cat "$res.all")" "Nothing was changed"
fdw resume --foreground --key-file "$wrong" "$A:1"
assert_eq "$STEP: resume with a wrong key: exit" 1 "$RUN_RC"
assert_contains "$STEP: resume with a wrong key" "$(cat "$res.all")" "passphrase is wrong"
assert_contains "$STEP: resume with a wrong key" "$(cat "$res.all")" "Nothing was changed"
assert_eq "$STEP: image unchanged" "$before" "$(hash_of "$A")"
fdw status --json "$A:1"
assert_json "$res.out" '.conversions[0].state' "$state"
step_end

step_begin "fdewiz resume finishes the conversion cryptsetup started"
t1=$SECONDS
fdw resume --foreground --key-file "$key" "$A:1"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
assert_contains "$STEP: output" "$(cat "$res.out")" "is now encrypted"
[ "$RUN_RC" -eq 0 ] || show_output
echo "    resume took $((SECONDS - t1)) s"
fdw status --json "$A:1"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP: status" state complete
assert_field "$STEP: status" id "$uuid"
assert_field "$STEP: status" percent 100
fdw list --json "$A"
assert_json "$res.out" '.disks[0].partitions[0].verdict.reason' already-luks
luks_json "$A"
assert_json "$res.luks" '.config.requirements // "none"' none
assert_json "$res.luks" '[.segments[].type]' '["crypt"]'
assert_json "$res.luks" '[.keyslots[].type]' '["luks2"]'
assert_not_contains "$STEP: luksDump" "$(cat "$res.dump")" "Requirements:"
step_end

step_begin "cryptsetup decrypts what fdewiz finished"
verify_decrypt "$A" 1
step_end
rm -f "$A" "$template"

# ---------------------------------------------------------------------------------------
# B. A complete fdewiz conversion, as cryptsetup sees it.

B=$IMG_TMP/fdw.img
img_ext4_fixture "$B" 302 80 data end

step_begin "fdewiz encrypt, then fdewiz status"
t1=$SECONDS
fdw encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" --work-dir "$IMG_TMP" \
	--header-backup "$IMG_TMP/b.hdr" "$B:1"
assert_eq "$STEP: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
echo "    encrypt took $((SECONDS - t1)) s"
fdw status --json "$B:1"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP" source fdewiz
assert_field "$STEP" state complete
assert_field "$STEP" address "$B:1"
assert_field "$STEP" header_backup "$IMG_TMP/b.hdr"
id=${JSON[id]-}
step_end

step_begin "cryptsetup luksDump: a clean LUKS2 header"
luks_json "$B"
dump=$(cat "$res.dump")
assert_contains "$STEP: luksDump" "$dump" "Version:       	2"
assert_not_contains "$STEP: luksDump (no requirement left)" "$dump" "Requirements:"
assert_not_contains "$STEP: luksDump (no reencrypt keyslot)" "$dump" "reencrypt"
assert_not_contains "$STEP: luksDump (no unbound keyslot)" "$dump" "unbound"
assert_eq "$STEP: UUID in luksDump = status id" "$id" \
	"$(awk '/^UUID:/ { print $2 }' "$res.dump")"
assert_eq "$STEP: keyslots in luksDump" 1 \
	"$(sed -n '/^Keyslots:/,/^Tokens:/p' "$res.dump" | grep -cE '^  [0-9]+: ')"
assert_json "$res.luks" '.config.requirements // "none"' none
assert_json "$res.luks" '.keyslots | length' 1
assert_json "$res.luks" '[.keyslots[].type]' '["luks2"]'
assert_json "$res.luks" '.segments | length' 1
assert_json "$res.luks" '.segments["0"].type' crypt
assert_json "$res.luks" '.segments["0"].offset' $((16 * mib))
assert_json "$res.luks" '.segments["0"].size' dynamic
# The one digest covers the one keyslot and the one segment.
assert_json "$res.luks" '[.digests[] | {k: .keyslots, s: .segments}]' \
	'[{"k":["0"],"s":["0"]}]'
dev=$(img_loop "$B" 1)
assert_true "$STEP: cryptsetup isLuks --type luks2" cryptsetup isLuks --type luks2 "$dev"
assert_eq "$STEP: cryptsetup luksUUID = status id" "$id" "$(cryptsetup luksUUID "$dev")"
step_end

step_begin "cryptsetup open --test-passphrase"
rc=0
cryptsetup open --test-passphrase --key-file "$key" "$dev" 2>"$res.err" || rc=$?
assert_eq "$STEP: with the key" 0 "$rc"
rc=0
cryptsetup open --test-passphrase --key-file "$wrong" "$dev" 2>"$res.err" || rc=$?
# 2: "No key available with this passphrase".
assert_eq "$STEP: with a wrong key" 2 "$rc"
img_unloop "$dev"
step_end

step_begin "cryptsetup decrypts what fdewiz encrypted"
verify_decrypt "$B" 1
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
