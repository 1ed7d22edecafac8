#!/bin/bash
# `fdewiz status` without a device after a dozen complete conversions made through a few
# reused loop device names: each volume once, on where it is now (its image file), recent
# ones by default and all with --all; a record that says complete while the header says
# unfinished shows the header's state in words and resumes; old complete records are
# pruned by the next conversion, never an unfinished one. Every volume is then decrypted
# by the cryptsetup program (the re-keyed one from the volume key cryptsetup reads),
# checked by e2fsck and the sha256 of every file compared.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq losetup mkfs.ext4 e2fsck cryptsetup timeout python3

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'history passphrase' >"$key"
res=$IMG_TMP/res
jobs=$FDEWIZ_STATE_DIR/jobs
t0=$SECONDS
. "$lib/jobs.sh"

declare -A UUID=()
L=

# convert N: image h<N> with its own label, encrypted by fdewiz on a loop device that is
# detached again, except the last one, which stays attached as $L.
convert()
{
	local img=$IMG_TMP/h$1.img dev

	fs_image "$img" 64 "vol$1" 8
	dev=$(img_loop "$img" 0)
	fdw_encrypt "$dev"
	[ "$RUN_RC" -eq 0 ] || { show_output; echo "FAIL: encrypt h$1 on $dev"; exit 1; }
	UUID[$1]=$(cryptsetup luksUUID "$dev")
	if [ "$1" = 12 ]; then
		L=$dev
	else
		img_unloop "$dev"
	fi
	echo "    h$1 on $dev: ${UUID[$1]}"
}

# age N DAYS: make the record and the published state of h<N> DAYS days old.
age()
{
	local id=${UUID[$1]} when=$(($(date +%s) - $2 * 86400))

	jq ".created = $when" "$jobs/$id.json" >"$jobs/$id.tmp" && mv "$jobs/$id.tmp" "$jobs/$id.json"
	jq ".updated = $when" "$jobs/$id.status" >"$jobs/$id.tmp" &&
		mv "$jobs/$id.tmp" "$jobs/$id.status"
}

step_begin "a dozen conversions through reused loop device names"
for n in 01 02 03 04 05 06 07 08 09 10 11 12; do
	convert "$n"
done
names=$(jq -r .address "$jobs"/*.json | sort -u | tr '\n' ' ')
echo "    recorded under: $names"
assert_eq "$STEP: records" 12 "$(ls "$jobs"/*.json | wc -l)"
step_end

step_begin "status: each volume once, where it is now"
fdw status
assert_eq "$STEP: exit" 0 "$RUN_RC"
assert_eq "$STEP: conversions shown" 12 "$(grep -c '  complete' "$res.out" || true)"
assert_eq "$STEP: lines on a loop device" 1 "$(grep -c '^/dev/loop' "$res.out" || true)"
assert_eq "$STEP: the line of $L" "$L  complete" "$(grep "^$L " "$res.out" | cut -c1-$((${#L} + 10)))"
for n in 01 07 11; do
	assert_contains "$STEP: h$n" "$(cat "$res.out")" "$IMG_TMP/h$n.img  complete"
	assert_contains "$STEP: h$n" "$(cat "$res.out")" "\"vol$n\""
done
# Other unfinished conversions on this machine without a record here show as source
# "header"; this state directory's own are those with source "fdewiz".
fdw status --json
jq '[.conversions[] | select(.source == "fdewiz")]' "$res.out" >"$res.own"
assert_json "$res.own" 'length' 12
assert_json "$res.own" '[.[].id] | unique | length' 12
assert_json "$res.own" '[.[].address] | unique | length' 12
assert_json "$res.own" "[.[] | select(.address == \"$L\") | .id]" "[\"${UUID[12]}\"]"
assert_json "$res.own" '[.[] | select(.found)] | length' 12
assert_json "$res.out" "[.conversions[] | select(.id == \"${UUID[05]}\") | .label]" '["vol05"]'
step_end

step_begin "status shows the last week; --all shows every record"
for n in 01 02 03 04 05 06; do
	age "$n" 10
done
fdw status --json
own='[.conversions[] | select(.source == "fdewiz")]'
assert_json "$res.out" "$own | length" 6
assert_json "$res.out" "[$own[].label] | sort" \
	'["vol07","vol08","vol09","vol10","vol11","vol12"]'
fdw status --all --json
assert_json "$res.out" "$own | length" 12
fdw status --all
assert_eq "$STEP: --all lines" 12 "$(grep -c '  complete' "$res.out" || true)"
step_end

step_begin "record says complete, header says unfinished: the header wins"
dev=$(img_loop "$IMG_TMP/h03.img" 0)
run_quiet cryptsetup reencrypt --init-only --key-file "$key" --pbkdf pbkdf2 \
	--pbkdf-force-iterations 1000 --batch-mode "$dev"
img_unloop "$dev"
fdw status --json "$IMG_TMP/h03.img"
json_load "$res.out" '.conversions[0]'
assert_field "$STEP" id "${UUID[03]}"
assert_field "$STEP" state interrupted
assert_contains "$STEP: message" "${JSON[message]-}" "the LUKS2 header says the conversion is unfinished"
fdw status
assert_contains "$STEP: status lists it though old" "$(cat "$res.out")" \
	"$IMG_TMP/h03.img  interrupted"
assert_contains "$STEP: status" "$(cat "$res.out")" "the header is right"
step_end

step_begin "the next conversion prunes old complete records, never an unfinished one"
age 01 100
age 02 100
age 03 100
convert 13
assert_true "$STEP: h01's record pruned" test ! -e "$jobs/${UUID[01]}.json"
assert_true "$STEP: h01's status pruned" test ! -e "$jobs/${UUID[01]}.status"
assert_true "$STEP: h02's record pruned" test ! -e "$jobs/${UUID[02]}.json"
assert_true "$STEP: h03's record kept (unfinished)" test -e "$jobs/${UUID[03]}.json"
assert_true "$STEP: h04's record kept (10 days)" test -e "$jobs/${UUID[04]}.json"
fdw status --all --json
assert_json "$res.out" "$own | length" 11
step_end

step_begin "resume finishes what the header says is unfinished"
fdw resume --foreground --key-file "$key" "$IMG_TMP/h03.img"
assert_eq "$STEP: exit" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || show_output
fdw status --json "$IMG_TMP/h03.img"
assert_json "$res.out" '.conversions[0].state' complete
assert_json "$res.out" '.conversions[0].id' "${UUID[03]}"
step_end

step_begin "cryptsetup decrypts every volume"
img_unloop "$L"
for n in 01 02 04 05 06 07 08 09 10 11 12 13; do
	verify_decrypt "$IMG_TMP/h$n.img"
	rm -f "$IMG_TMP/h$n.img"
done
# cryptsetup refuses to decrypt in place a header it re-keyed ("Failed to initialize LUKS2
# reencryption in metadata"): h03 is decrypted from its volume key instead.
verify_volume_key "$IMG_TMP/h03.img"
step_end

echo "run time: $((SECONDS - t0)) s"
assert_finish
