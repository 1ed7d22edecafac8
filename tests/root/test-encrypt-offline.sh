#!/bin/bash
# Offline in-place encryption of an ext4 partition inside a disk image: encrypt, stop with
# SIGINT and resume, kill with SIGKILL and resume, in the background stopped by SIGTERM (a
# shutdown: interrupted) and by pause (paused); each time verified independently of
# fdewiz (cryptsetup decrypts through a header copy, then e2fsck and sha256 of every file).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup blkid mkfs.ext4 e2fsck cryptsetup sha256sum setsid timeout

img_test_init
work=$IMG_TMP
# Job records and status files of this test stay in its own directory.
export FDEWIZ_STATE_DIR=$work/state
# A background worker left by a failure half-way (step 7) is paused before the image goes,
# and any loop device still over the image detached: fdewiz's detach with their last user,
# so only this test failing midway (its own loop device) can leave one.
img_worker_stop_at_exit "$FDEWIZ_STATE_DIR" "$work/disk.img"

mib=1048576
part_start=$((1 * mib))
part_size=$((358 * mib))

# Thousands of files of mixed sizes, with their checksums.
make_tree() {
	mkdir -p "$work/tree/docs" "$work/tree/media" "$work/tree/src/a/b"
	for i in $(seq 1 1500); do head -c $((i % 97 * 37 + 1)) /dev/urandom >"$work/tree/src/a/b/f$i"; done
	for i in $(seq 1 500); do head -c $((i * 211)) /dev/urandom >"$work/tree/docs/d$i"; done
	for i in $(seq 1 12); do head -c $((i * mib)) /dev/urandom >"$work/tree/media/m$i"; done
	(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
	echo "tree: $(wc -l <"$work/sums") files, $(du -sh "$work/tree" | cut -f1)"
}

make_image() {
	rm -f "$work/disk.img"
	truncate -s 360M "$work/disk.img"
	parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 359MiB 2>/dev/null
	mkfs.ext4 -q -F -L Data -d "$work/tree" -E offset=$part_start "$work/disk.img" \
		$((part_size / 1024))k
}

# LUKS2 on the partition; the cryptsetup program decrypts it into a fresh header file, then
# fsck and the sha256 of every file of the tree.
verify_image() {
	local what=$1 loop
	loop=$(losetup -f --show -o $part_start --sizelimit $part_size "$work/disk.img")
	img_register loop "$loop"
	[ "$(blkid -p -o value -s TYPE "$loop")" = crypto_LUKS ] || assert_stop "$what: not LUKS after encrypt"
	cryptsetup luksDump "$loop" | grep -q "^Version:.*2" || assert_stop "$what: luksDump"
	img_unloop "$loop"	# unregistered: cleanup must not detach a name another test may reuse
	verify_decrypt --as "$what" --key "$work/key" --sums "$work/sums" "$work/disk.img" 1
	echo "$what: decrypted by cryptsetup, fsck, $(wc -l <"$work/sums") files checked"
}

# Start fdewiz encrypt in the background and wait until its progress passes @pct percent,
# where the engine holds it (FDEWIZ_TEST_HOLD_AT) until it is stopped: for a stop that needs
# a live process (SIGINT), on a fast machine as on a slow one.
start_and_wait() {
	local pct=$1
	FDEWIZ_TEST_HOLD_AT=progress=$pct "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf --no-bench \
		--work-dir "$work" --header-backup "$work/backup.hdr" "$work/disk.img:1" \
		>"$work/out" 2>"$work/err" &
	pid=$!
	at_exit_kill "$pid"
	for _ in $(seq 1 600); do
		p=$(tr '\r' '\n' <"$work/err" | sed -n 's/^encrypting *\([0-9]*\)\..*/\1/p' | tail -1)
		[ -n "$p" ] && [ "$p" -ge "$pct" ] && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$work/out" "$work/err"; assert_stop "encrypt ended early"; }
		sleep 0.05
	done
	assert_stop "no progress past $pct%"
}

# Encrypt until @pct percent, where the engine's test point kills it (SIGKILL, as a power cut
# would): the same point on a fast machine and a slow one.
encrypt_killed_at() {
	local rc=0
	FDEWIZ_TEST_KILL_AT=progress=$1 "$FDEWIZ" encrypt --foreground --key-file "$work/key" \
		--yes --fast-pbkdf --no-bench --work-dir "$work" --header-backup "$work/backup.hdr" \
		"$work/disk.img:1" >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" = 137 ] || { cat "$work/out" "$work/err"; assert_stop "encrypt was not killed at $1% (exit $rc)"; }
}

reason_of() {
	"$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.reason'
}

printf 'correct horse battery staple' >"$work/key"
make_tree

# 1. Straight through.
make_image
"$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf --no-bench --work-dir "$work" \
	--header-backup "$work/backup.hdr" "$work/disk.img:1" >"$work/out" 2>"$work/err" ||
	{ cat "$work/out" "$work/err"; assert_stop "encrypt failed"; }
grep -q "is now encrypted" "$work/out" || assert_stop "no completion message"
[ -s "$work/backup.hdr" ] || assert_stop "no header backup"
[ "$(reason_of)" = already-luks ] || assert_stop "list does not see LUKS"
verify_image "encrypt"

# 2. SIGINT mid-way: a clean stop, then resume.
make_image
rm -f "$work/backup.hdr"
start_and_wait 20
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
[ "$rc" -eq 1 ] || assert_stop "SIGINT: exit $rc, expected 1"
grep -q "Stopped at a safe point" "$work/out" || assert_stop "SIGINT: no stop message"
reason=$(reason_of)
[ "$reason" = luks-unfinished ] || {
	"$FDEWIZ" list --json "$work/disk.img"; losetup -a
	assert_stop "SIGINT: list does not show the unfinished conversion (it says: $reason)"
}
"$FDEWIZ" resume --foreground --key-file "$work/key" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; assert_stop "resume after SIGINT"; }
verify_image "SIGINT + resume"

# 3. Wrong passphrase on resume: refused, nothing changes, the right one still works.
make_image
rm -f "$work/backup.hdr"
encrypt_killed_at 30
[ "$(reason_of)" = luks-unfinished ] || assert_stop "SIGKILL: not seen as unfinished"
state=$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')
case "$state" in interrupted|needs-repair) ;; *) assert_stop "SIGKILL: status says $state";; esac
assert_reached "after SIGKILL status says $state"
printf 'wrong' >"$work/badkey"
before=$(sha256sum <"$work/disk.img")
rc=0; "$FDEWIZ" resume --foreground --key-file "$work/badkey" "$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || assert_stop "wrong passphrase: exit $rc"
grep -qi "passphrase is wrong" "$work/out" || { cat "$work/out"; assert_stop "wrong passphrase: message"; }
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || assert_stop "wrong passphrase changed the image"
assert_reached "wrong passphrase refused, image unchanged"

# 4. ...and after the SIGKILL, resume repairs and finishes.
"$FDEWIZ" resume --foreground --key-file "$work/key" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; assert_stop "resume after SIGKILL"; }
verify_image "SIGKILL + repair + resume"

# 5. Dry run changes nothing.
make_image
before=$(sha256sum <"$work/disk.img")
"$FDEWIZ" encrypt --dry-run "$work/disk.img:1" >"$work/out" 2>&1 || assert_stop "dry run failed"
grep -q "nothing was changed" "$work/out" || assert_stop "dry run: no message"
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || assert_stop "dry run changed the image"
assert_reached "dry run leaves the image byte for byte unchanged"

# 6. An existing header backup is never overwritten, and nothing changes.
make_image
touch "$work/backup.hdr"
before=$(sha256sum <"$work/disk.img")
rc=0; "$FDEWIZ" encrypt --foreground --key-file "$work/key" --yes --fast-pbkdf --no-bench \
	--header-backup "$work/backup.hdr" "$work/disk.img:1" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || assert_stop "existing backup: exit $rc"
grep -q "already exists" "$work/out" || { cat "$work/out"; assert_stop "existing backup: message"; }
[ "$(sha256sum <"$work/disk.img")" = "$before" ] || assert_stop "existing backup: image changed"
rm -f "$work/backup.hdr"
assert_reached "an existing header backup is refused before anything changes"

# 7. In the background: the worker survives its parent; SIGTERM (a shutdown) stops it at a
#    safe point as interrupted, resume continues in a new worker, pause (the person's)
#    stops that one as paused, resume again, status follows it to completion.
status_field() {
	"$FDEWIZ" status --json "$work/disk.img:1" | jq -r ".conversions[0].$1"
}
# The worker is held at 30 % (FDEWIZ_TEST_HOLD_AT) so that pause finds it running.
FDEWIZ_TEST_HOLD_AT=progress=30 setsid "$FDEWIZ" encrypt --key-file "$work/key" --yes \
	--fast-pbkdf --no-bench --work-dir "$work" --header-backup "$work/backup.hdr" \
	"$work/disk.img:1" </dev/null >"$work/out" 2>&1 || { cat "$work/out"; assert_stop "background encrypt"; }
grep -q "Converting in the background" "$work/out" || assert_stop "no background message"
wpid=$(sed -n 's/.*(worker \([0-9]*\)).*/\1/p' "$work/out")
[ -n "$wpid" ] && kill -0 "$wpid" || assert_stop "worker is not alive"
[ "$(ps -o tty= -p "$wpid" | tr -d ' ')" = "?" ] || assert_stop "worker has a terminal"
[ "$(status_field state)" = running ] || assert_stop "status does not say running"
wait_job "$work/disk.img:1" '.percent >= 30' 60 || true
# SIGTERM, as a shutdown sends every process: stopped at a safe point, interrupted (it goes
# on with resume, or the restart's service at the next start), not paused by the person.
kill -TERM "$wpid"
for _ in $(seq 100); do case "$(ps -o stat= -p "$wpid" || true)" in ""|Z*) break ;; esac; sleep 0.1; done
assert_eq "SIGTERM (a shutdown): interrupted, not paused" interrupted "$(status_field state)"
assert_eq "... saying the system asked it to stop" 1 \
	"$(status_field message | grep -c 'stopped at a safe point when the system asked')"
"$FDEWIZ" status "$work/disk.img:1" >"$work/out" 2>&1 || true
assert_eq "... and to continue with resume" 1 "$(grep -c 'continue with: fdewiz resume' "$work/out")"
FDEWIZ_TEST_HOLD_AT=progress=60 "$FDEWIZ" resume --key-file "$work/key" "$work/disk.img:1" \
	>"$work/out" 2>&1 || { cat "$work/out"; assert_stop "resume after SIGTERM"; }
wpid=$(sed -n 's/.*(worker \([0-9]*\)).*/\1/p' "$work/out")
[ -n "$wpid" ] && kill -0 "$wpid" || assert_stop "the resumed worker is not alive"
wait_job "$work/disk.img:1" '.percent >= 60' 60 || true
"$FDEWIZ" pause "$work/disk.img:1" >"$work/out" 2>&1 || { cat "$work/out"; assert_stop "pause"; }
[ "$(status_field state)" = paused ] || assert_stop "status does not say paused"
pct=$(status_field percent)
[ "${pct%%.*}" -ge 60 ] || assert_stop "paused at $pct%, before the point it was held at"
# Gone, or a zombie waiting for init to reap it: either way it holds nothing.
case "$(ps -o stat= -p "$wpid" || true)" in ""|Z*) ;; *) assert_stop "worker still alive after pause";; esac
assert_reached "background worker paused at $pct%"
"$FDEWIZ" resume --key-file "$work/key" "$work/disk.img:1" >"$work/out" 2>&1 ||
	{ cat "$work/out"; assert_stop "background resume"; }
timeout 300 "$FDEWIZ" status --watch "$work/disk.img:1" >"$work/watch" ||
	assert_stop "status --watch did not end"
[ "$(status_field state)" = complete ] || assert_stop "not complete after resume: $(cat "$work/watch")"
verify_image "background + pause + resume"

# 8. Two resumes at the same moment: the job lock lets exactly one convert, the other is
#    refused without touching anything (before the lock, the loser could take over and
#    detach the winner's loop device mid-conversion).
make_image
rm -f "$work/backup.hdr"
encrypt_killed_at 10
"$FDEWIZ" resume --foreground --key-file "$work/key" "$work/disk.img:1" >"$work/r1" 2>&1 &
r1=$!
at_exit_kill "$r1"
"$FDEWIZ" resume --foreground --key-file "$work/key" "$work/disk.img:1" >"$work/r2" 2>&1 &
r2=$!
at_exit_kill "$r2"
rc1=0; wait "$r1" || rc1=$?
rc2=0; wait "$r2" || rc2=$?
[ $((rc1 + rc2)) -eq 1 ] || { cat "$work/r1" "$work/r2"; assert_stop "two resumes: exits $rc1 and $rc2, expected one 0 and one 1"; }
# grep reads the files itself: "cat | grep -q" under pipefail fails when grep stops at a
# match in r1 and cat, still writing r2, gets SIGPIPE (it did once r1 held the refusal).
grep -q -e "another fdewiz is converting" -e "is already running" "$work/r1" "$work/r2" ||
	{ cat "$work/r1" "$work/r2"; assert_stop "two resumes: no refusal message"; }
verify_image "two resumes at once"

# 9. Two encrypts of one partition at the same moment: only one may convert; the other
#    is refused (locked, or it sees the LUKS header once the lock is free) and the data
#    verifies. Without the partition lock both would write a header and lose everything.
make_image
rm -f "$work/backup.hdr" "$work/backup2.hdr"
enc() {
	"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$work/key" \
		--header-backup "$1" "$work/disk.img:1"
}
enc "$work/backup.hdr" >"$work/r1" 2>&1 &
r1=$!
at_exit_kill "$r1"
enc "$work/backup2.hdr" >"$work/r2" 2>&1 &
r2=$!
at_exit_kill "$r2"
rc1=0; wait "$r1" || rc1=$?
rc2=0; wait "$r2" || rc2=$?
[ $((rc1 + rc2)) -eq 1 ] || { cat "$work/r1" "$work/r2"; assert_stop "two encrypts: exits $rc1 and $rc2"; }
grep -q -e "another fdewiz is converting" -e "Already encrypted" "$work/r1" "$work/r2" ||
	{ cat "$work/r1" "$work/r2"; assert_stop "two encrypts: no refusal message"; }
verify_image "two encrypts at once"

# 10. Nothing of fdewiz's stays attached: its loop devices detach with their last user,
#     a killed worker's too (they used to pile up over this test's deleted images).
left=""
for _ in $(seq 1 50); do
	left=$(losetup -l -n -O NAME,BACK-FILE | grep -F "$work/" || true)
	[ -z "$left" ] && break
	sleep 0.1
done
[ -z "$left" ] || assert_stop "loop devices left over this test's images: $left"
assert_reached "no loop device left over this test's images"
assert_finish
