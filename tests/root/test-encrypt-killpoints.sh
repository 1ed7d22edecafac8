#!/bin/bash
# SIGKILL at ten or more different points of one conversion (about 13, every 8 %): after
# each kill status must say interrupted or needs-repair and resume must go on from there;
# at the end the cryptsetup
# program decrypts the result and fsck and the sha256 of every file must agree.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq parted losetup mkfs.ext4 e2fsck cryptsetup sha256sum

img_test_init
work=$IMG_TMP
export FDEWIZ_STATE_DIR=$work/state
# A killed fdewiz leaves its loop device behind (resume takes it over); drop them.
at_exit img_detach_all "$work/disk.img"
mib=1048576

mkdir -p "$work/tree/small" "$work/tree/big"
for i in $(seq 1 1200); do head -c $((i * 71 % 6007 + 1)) /dev/urandom >"$work/tree/small/s$i"; done
for i in $(seq 1 10); do head -c $((i * 2 * mib)) /dev/urandom >"$work/tree/big/b$i"; done
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
printf 'kill points key' >"$work/key"
truncate -s 640M "$work/disk.img"
parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 639MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/disk.img" $((638 * 1024))k

# Kill points come from the engine (FDEWIZ_TEST_KILL_AT=progress=N[+USEC], src/core/base/testhook.h):
# the run kills itself once N % is done, at once (between two hotzones) or USEC later (inside
# the next hotzone's write), so how many points the test gets never depends on the machine's
# speed. Alternate the two, so that both kinds of crash are resumed from.
# run_and_kill_at TARGET CMD...: prints the percent it died at; returns 1 when CMD finished.
runs=0
run_and_kill_at() {
	local target=$1 delay="" rc=0 p
	shift
	[ $((runs % 2)) = 1 ] && delay=+100000
	runs=$((runs + 1))
	FDEWIZ_TEST_KILL_AT=progress=$target$delay "$@" >"$work/out" 2>"$work/err" || rc=$?
	if [ "$rc" = 0 ]; then
		return 1
	fi
	[ "$rc" = 137 ] || { tail -n 5 "$work/out" "$work/err" >&2; assert_stop "it failed (exit $rc) instead of being killed"; }
	p=$(sed -n 's/.*test hook: killed at \([0-9]*\) %.*/\1/p' "$work/err" | tail -1)
	[ -n "$p" ] || { cat "$work/err"; assert_stop "killed, but not by the test point"; }
	echo "$p"
}

kills=()
states=()
done_at_kill=0
target=3
at=$(run_and_kill_at $target "$FDEWIZ" --verbose encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$work/key" --header-backup "$work/backup.hdr" "$work/disk.img:1") ||
	assert_stop "the first run finished before $target%"
kills+=("$at")
while :; do
	state=$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')
	# A kill at the very end may land after the last header write: then it is done.
	if [ "$state" = complete ] && [ "$at" -ge 95 ]; then
		done_at_kill=1
		break
	fi
	states+=("$state")
	case "$state" in
	interrupted | needs-repair) ;;
	*) assert_stop "after the kill at $at%: status says '$state'" ;;
	esac
	[ "$("$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.reason')" = luks-unfinished ] ||
		assert_stop "after the kill at $at%: list does not say luks-unfinished"
	target=$((at + 8))
	# Past 100 % no kill point is reached: that resume finishes (the end window itself is
	# test-encrypt-final-window.sh's).
	if ! at=$(run_and_kill_at $target "$FDEWIZ" --verbose resume --foreground --key-file "$work/key" \
		"$work/disk.img:1"); then
		break	# resume finished before the next kill point
	fi
	kills+=("$at")
done
echo "killed at: ${kills[*]} (${#kills[@]} points)"
echo "states after each kill: ${states[*]}"
[ "${#kills[@]}" -ge 10 ] || assert_stop "only ${#kills[@]} kill points; the test needs at least 10"
[ "$done_at_kill" = 1 ] || grep -q "is now encrypted" "$work/out" || assert_stop "the last resume did not finish"
[ "$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')" = complete ] ||
	assert_stop "status is not complete at the end"
assert_reached "${#kills[@]} SIGKILLs, each followed by status and resume"

verify_decrypt --as "after ${#kills[@]} SIGKILLs" --key "$work/key" --sums "$work/sums" \
	"$work/disk.img" 1
assert_finish
