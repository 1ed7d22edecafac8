#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# How a conversion shares the disk (--pace, `fdewiz pace`): the mode chosen at the start is
# in the status; `fdewiz pace` changes it on a running conversion, which follows; a worker
# killed mid-way and resumed goes on with the mode of its record; `resume --pace` changes
# it for the rest, kept in the record. Bad input is refused with nothing changed. The
# conversion is held at fixed points (FDEWIZ_TEST_HOLD_AT), so nothing races the clock;
# the data is verified at the end (cryptsetup decrypts, e2fsck, sha256 of every file).
# Whether it yields to other work is a matter of speed: tests/bench/pace.sh measures it.
# Cost: about 20 s (a 120 MiB partition converted in three runs; 38 s beside a VM test).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted mkfs.ext4 cryptsetup e2fsck sha256sum setsid

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
img=$IMG_TMP/pace.img
img_worker_stop_at_exit "$FDEWIZ_STATE_DIR" "$img"
key=$IMG_TMP/key
printf 'pace test passphrase' >"$key"
img_new "$img" 130
img_gpt "$img"
img_part "$img" Data 1 121
img_mkfs "$img" 1 ext4 Data
img_fill "$img" 1 40
other=$IMG_TMP/other.img
img_new "$other" 80
img_gpt "$other"
img_part "$other" Data 1 end
img_mkfs "$other" 1 ext4 Other

# field F: F of the conversion's status (--json).
field() { "$FDEWIZ" status --json "$img:1" | jq -r ".conversions[0].$1"; }
# worker_gone PID: the worker has let go (gone, or a zombie for init to reap).
worker_gone() { case "$(ps -o stat= -p "$1" || true)" in "" | Z*) return 0 ;; esac; return 1; }

# 1. Started gentle, held at 30 %: the status says so.
FDEWIZ_TEST_HOLD_AT=progress=30 setsid "$FDEWIZ" encrypt --pace gentle --key-file "$key" \
	--yes --fast-pbkdf --no-bench --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/b.hdr" \
	"$img:1" </dev/null >"$IMG_TMP/out" 2>&1 || { cat "$IMG_TMP/out"; assert_stop "encrypt"; }
wait_job "$img:1" '.state == "running" and .percent >= 30 and .pace == "gentle"' 60 ||
	assert_stop "encrypt --pace gentle: the status does not say gentle at 30 %"
assert_reached "encrypt --pace gentle: running, held at $(field percent) %, pace gentle"
text=$("$FDEWIZ" status "$img:1")
assert_contains "status (text) names the pace" "$text" "pace gentle"

# 2. Changed while it runs: the worker follows.
out=$("$FDEWIZ" pace "$img:1" full)
assert_contains "pace full: says so" "$out" "pace full from now on"
wait_job "$img:1" '.pace == "full"' 20 || assert_stop "the running worker did not take up full"
assert_reached "the running worker took up the pace full"
assert_json "$(ls "$FDEWIZ_STATE_DIR"/jobs/*.json | head -1)" .pace full

# 3. Killed mid-way, resumed: it goes on with the record's pace.
wpid=$(field pid)
kill -KILL "$wpid"
for _ in $(seq 1 100); do worker_gone "$wpid" && break; sleep 0.1; done
worker_gone "$wpid" || assert_stop "the killed worker is still there"
FDEWIZ_TEST_HOLD_AT=progress=60 "$FDEWIZ" resume --key-file "$key" "$img:1" \
	>"$IMG_TMP/out" 2>&1 || { cat "$IMG_TMP/out"; assert_stop "resume after the kill"; }
wait_job "$img:1" '.state == "running" and .percent >= 60 and .pace == "full"' 60 ||
	assert_stop "after the kill, resume did not go on with full"
assert_reached "killed at 30 %, resumed: running at $(field percent) % with the pace full"

# 4. resume --pace: the rest at that pace, kept in the record; the data is whole.
"$FDEWIZ" pause "$img:1" >"$IMG_TMP/out" 2>&1 || { cat "$IMG_TMP/out"; assert_stop "pause"; }
"$FDEWIZ" resume --pace auto --key-file "$key" "$img:1" >"$IMG_TMP/out" 2>&1 ||
	{ cat "$IMG_TMP/out"; assert_stop "resume --pace auto"; }
timeout 300 "$FDEWIZ" status --watch "$img:1" >/dev/null || assert_stop "status --watch"
assert_eq "the conversion is complete" complete "$(field state)"
assert_json "$(ls "$FDEWIZ_STATE_DIR"/jobs/*.json | head -1)" .pace auto
verify_decrypt --as "paced" --key "$key" --sums "$(img_sums_file "$img" 1)" "$img" 1

# 5. Bad input: refused, nothing changed.
before=$(sha256sum <"$other")
rc=0; out=$("$FDEWIZ" pace "$img:1" turbo 2>&1) || rc=$?
assert_eq "pace turbo: a usage error" 2 "$rc"
assert_contains "pace turbo: says which are" "$out" "unknown pace 'turbo': auto, gentle or full"
rc=0; out=$("$FDEWIZ" pace "$other:1" gentle 2>&1) || rc=$?
assert_eq "pace on a partition without a conversion: refused" 1 "$rc"
assert_contains "pace without a conversion: says so" "$out" "has no conversion of fdewiz's. Nothing was changed."
rc=0; out=$("$FDEWIZ" encrypt --pace turbo --key-file "$key" --yes "$other:1" 2>&1) || rc=$?
assert_eq "encrypt --pace turbo: a usage error" 2 "$rc"
assert_eq "the other image is unchanged" "$before" "$(sha256sum <"$other")"

assert_finish
