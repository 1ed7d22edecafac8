#!/bin/bash
# fdewiz bench refuses bad targets clearly, leaves nothing behind and never writes a device
# it must not write; reading a device changes nothing; Ctrl-C removes the scratch file.
. "$(dirname "$0")/../lib/start.sh"
require_cmds jq losetup mount mkfs.ext4 sha256sum wipefs

img_test_init

export FDEWIZ_STATE_DIR=$IMG_TMP/state
# Short I/O tests: these checks are about behaviour, not speed.
FAST=(--kind io --repeats 1 --runtime 0.3 --io-size 16M)

# bench NAME ARGS...: run fdewiz bench, output in $IMG_TMP/NAME.{out,err}, status in RUN_RC.
bench()
{
	local name=$1

	shift
	run_cmd "$IMG_TMP/$name" "$FDEWIZ" bench "$@"
	err=$(cat "$IMG_TMP/$name.err")
}

# expect_refusal NAME STATUS TEXT...: the last run exited STATUS and said each TEXT.
expect_refusal()
{
	local name=$1 status=$2 t

	shift 2
	assert_eq "$name: exit status" "$status" "$RUN_RC"
	for t in "$@"; do
		assert_contains "$name: message" "$err" "$t"
	done
	assert_eq "$name: nothing on stdout" "" "$(cat "$IMG_TMP/$name.out")"
	assert_not_contains "$name: no crash" "$err" "Sanitizer"
}

saved_results()
{
	find "$FDEWIZ_STATE_DIR" -type f 2>/dev/null | wc -l
}

# -- usage errors: exit 2 -------------------------------------------------------------
bench usage-none
expect_refusal usage-none 2 "name one TARGET" "Nothing was changed"
bench usage-repeats --repeats 0 /tmp
expect_refusal usage-repeats 2 "--repeats takes a number from 1 to 9"
bench usage-kind --kind io,disk /tmp
expect_refusal usage-kind 2 "--kind takes a list of io, build, cipher and kernel"
bench usage-compare --compare only-one.json
expect_refusal usage-compare 2 "--compare takes two saved results"

# -- targets that do not exist or are of the wrong type --------------------------------
bench missing "${FAST[@]}" "$IMG_TMP/no/such/dir"
expect_refusal missing 1 "$IMG_TMP/no/such/dir" "No such file or directory" \
	"Nothing was changed" "Name an existing directory"
echo data >"$IMG_TMP/plain-file"
bench not-dir "${FAST[@]}" "$IMG_TMP/plain-file"
expect_refusal not-dir 1 "neither a directory nor a block device" "Nothing was changed"
assert_eq "plain file untouched" data "$(cat "$IMG_TMP/plain-file")"

# -- a read-only filesystem ----------------------------------------------------------------
img_new "$IMG_TMP/ro.img" 300
run_quiet mkfs.ext4 -q -F "$IMG_TMP/ro.img"
ro_dev=$(losetup --find --show "$IMG_TMP/ro.img")
img_register loop "$ro_dev"
img_mount "$ro_dev" "$IMG_TMP/ro" ro
bench read-only "${FAST[@]}" "$IMG_TMP/ro"
expect_refusal read-only 1 "is on a read-only filesystem" "Nothing was changed" \
	"Remount it read-write"

# -- too little free space: says how much is needed and how much there is -----------------
img_new "$IMG_TMP/small.img" 40
run_quiet mkfs.ext4 -q -F "$IMG_TMP/small.img"
small_dev=$(losetup --find --show "$IMG_TMP/small.img")
img_register loop "$small_dev"
img_mount "$small_dev" "$IMG_TMP/small"
before=$(ls -A "$IMG_TMP/small")
bench no-space --kind io --repeats 1 "$IMG_TMP/small"
expect_refusal no-space 1 "too little free space" "needs 128 MiB free" "is available" \
	"Nothing was changed"
# an explicit size that does not fit
bench no-space-size "${FAST[@]}" --io-size 64M "$IMG_TMP/small"
expect_refusal no-space-size 1 "too little free space" "needs 128 MiB free"
assert_eq "small filesystem: nothing left behind" "$before" "$(ls -A "$IMG_TMP/small")"

# -- devices ------------------------------------------------------------------------------
# A device holding a filesystem: reading is allowed, writing is refused even when asked.
img_new "$IMG_TMP/data.img" 64
run_quiet mkfs.ext4 -q -F "$IMG_TMP/data.img"
data_dev=$(losetup --find --show "$IMG_TMP/data.img")
img_register loop "$data_dev"
sum=$(sha256sum <"$data_dev")
bench data-write "${FAST[@]}" --allow-write "$data_dev"
expect_refusal data-write 1 "holds data (ext4)" "writing to it would destroy it" \
	"Nothing was changed" "Leave out --allow-write"
assert_eq "device with data unchanged after refusal" "$sum" "$(sha256sum <"$data_dev")"

bench data-read "${FAST[@]}" --json "$data_dev"
assert_eq "read-only device bench: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || cat "$IMG_TMP/data-read.err" >&2
assert_json "$IMG_TMP/data-read.out" '[.tests[].id] | join(",")' \
	"io.seqread.qd8,io.seqread.qd1,io.randread.qd32,io.randread.qd1"
assert_json "$IMG_TMP/data-read.out" .device "$data_dev"
assert_contains "read-only run note" "$(jq -r .note "$IMG_TMP/data-read.out")" \
	"Write tests left out"
assert_eq "device unchanged after reading it" "$sum" "$(sha256sum <"$data_dev")"

# The build workload needs a filesystem: asked for on a device, it is refused up front.
bench build-device --kind build --repeats 1 "$data_dev"
expect_refusal build-device 1 "needs a directory on a mounted filesystem" "Nothing was changed"

# A device in use (mounted, read-only so its bytes stay put): writing is refused.
img_mount "$data_dev" "$IMG_TMP/busy" ro
bench busy "${FAST[@]}" --allow-write "$data_dev"
expect_refusal busy 1 "is in use" "Nothing was changed" "Unmount it first"
img_umount "$IMG_TMP/busy"
assert_eq "busy device unchanged" "$sum" "$(sha256sum <"$data_dev")"

# An empty, unused device with --allow-write: all eight tests run, here through the
# fallback engine (threads with pread/pwrite, used where io_uring cannot be set up).
img_new "$IMG_TMP/blank.img" 64
blank_dev=$(losetup --find --show "$IMG_TMP/blank.img")
img_register loop "$blank_dev"
bench blank-write "${FAST[@]}" --allow-write --io-engine threads --json "$blank_dev"
assert_eq "blank device with --allow-write: exit status" 0 "$RUN_RC"
[ "$RUN_RC" -eq 0 ] || cat "$IMG_TMP/blank-write.err" >&2
# The default set: CrystalDiskMark's, named as it names it, and the 70/30 mix.
assert_json "$IMG_TMP/blank-write.out" '[.tests[].title] | join(",")' \
	"SEQ1M Q8T1 read,SEQ1M Q8T1 write,SEQ1M Q1T1 read,SEQ1M Q1T1 write,RND4K Q32T1 read,RND4K Q32T1 write,RND4K Q1T1 read,RND4K Q1T1 write,RND4K Q32T1 mix 70/30"
assert_json "$IMG_TMP/blank-write.out" .io_engine threads
assert_json "$IMG_TMP/blank-write.out" '[.tests[].metrics[] | select(.key == "iops") |
	.median > 0] | all' true
assert_true "the write tests wrote random data to the blank device" \
	test "$(head -c 1M "$blank_dev" | tr -d '\0' | wc -c)" -gt 1000000

# -- --compare with missing and damaged files -------------------------------------------
good=$(find "$FDEWIZ_STATE_DIR/bench" -name '*.json' | head -n 1)
assert_true "a result was saved under the state directory" test -s "$good"
bench cmp-missing --compare "$IMG_TMP/none.json" "$good"
expect_refusal cmp-missing 1 "none.json does not exist" "Nothing was changed"
head -c 200 "$good" >"$IMG_TMP/cut.json"
bench cmp-corrupt --compare "$good" "$IMG_TMP/cut.json"
expect_refusal cmp-corrupt 1 "cut.json is not a saved fdewiz benchmark" "Nothing was changed"
echo '{"jobs": []}' >"$IMG_TMP/fio.json"
bench cmp-foreign --compare "$IMG_TMP/fio.json" "$good"
expect_refusal cmp-foreign 1 "fio.json is not a saved fdewiz benchmark"
bench cmp-self --compare --json "$good" "$good"
assert_eq "compare a result with itself: exit status" 0 "$RUN_RC"
assert_json "$IMG_TMP/cmp-self.out" '[.tests[].ratio_pct] | unique' "[100]"
assert_json "$IMG_TMP/cmp-self.out" '[.tests[].suspicious] | any' false

# -- Ctrl-C during a run: the scratch file goes, nothing is saved ------------------------
img_new "$IMG_TMP/fs.img" 400
run_quiet mkfs.ext4 -q -F "$IMG_TMP/fs.img"
fs_dev=$(losetup --find --show "$IMG_TMP/fs.img")
img_register loop "$fs_dev"
img_mount "$fs_dev" "$IMG_TMP/fs"
free_before=$(df --output=avail -B1 "$IMG_TMP/fs" | tail -n 1)
n_saved=$(saved_results)
"$FDEWIZ" bench --kind io --runtime 5 --io-size 128M "$IMG_TMP/fs" \
	>"$IMG_TMP/int.out" 2>"$IMG_TMP/int.err" &
pid=$!
sleep 2
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
err=$(cat "$IMG_TMP/int.err")
RUN_RC=$rc
expect_refusal int 1 "Stopped" "The test file was removed"
assert_eq "after Ctrl-C: no file left" "lost+found" "$(ls -A "$IMG_TMP/fs")"
sync
free_after=$(df --output=avail -B1 "$IMG_TMP/fs" | tail -n 1)
assert_near "after Ctrl-C: free space back (bytes)" "$free_before" "$free_after" $((4 << 20))
assert_eq "after Ctrl-C: no result saved" "$n_saved" "$(saved_results)"

assert_finish
