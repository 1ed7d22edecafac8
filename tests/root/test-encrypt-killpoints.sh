#!/bin/bash
# SIGKILL at ten or more different points of one conversion: after each kill status must say
# interrupted or needs-repair and resume must go on from there; at the end the cryptsetup
# program decrypts the result and fsck and the sha256 of every file must agree.
set -euo pipefail

lib=$(dirname "$0")/../lib
. "$lib/assert.sh"
. "$lib/images.sh"

require_root
require_cmds jq parted losetup mkfs.ext4 e2fsck cryptsetup sha256sum
require_fdewiz

img_test_init
work=$IMG_TMP
export FDEWIZ_STATE_DIR=$work/state
loop=""
pid=""
# A killed fdewiz leaves its loop device behind (resume takes it over); drop them.
at_exit img_detach_all "$work/disk.img"
# The runs start inside $(...) (run_and_kill_at), so this shell is not their parent and
# at_exit_kill cannot reach them: the test's own kill is kept as it was (it sees a pid only
# when run_and_kill_at runs in this shell; in $(...) it kills or waits for its run itself).
kill_run() {
	[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true
}
at_exit kill_run
fail() { echo "FAIL: $*" >&2; exit 1; }
mib=1048576

mkdir -p "$work/tree/small" "$work/tree/big" "$work/mnt"
for i in $(seq 1 1200); do head -c $((i * 71 % 6007 + 1)) /dev/urandom >"$work/tree/small/s$i"; done
for i in $(seq 1 10); do head -c $((i * 5 * mib)) /dev/urandom >"$work/tree/big/b$i"; done
(cd "$work/tree" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$work/sums"
printf 'kill points key' >"$work/key"
truncate -s 1024M "$work/disk.img"
parted -s "$work/disk.img" mklabel gpt mkpart Data ext4 1MiB 1023MiB 2>/dev/null
mkfs.ext4 -q -F -d "$work/tree" -E offset=$mib "$work/disk.img" $((1022 * 1024))k

# Percent on the progress line of a foreground run.
percent() { tr '\r' '\n' <"$work/err" | sed -n 's/^encrypting *\([0-9]*\)\..*/\1/p' | tail -1; }

# Run CMD in the background and kill -9 it once its progress reaches $1 percent.
# Returns 1 when it finished before that.
run_and_kill_at() {
	local target=$1 p
	shift
	"$@" >"$work/out" 2>"$work/err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		p=$(percent)
		if [ -n "$p" ] && [ "$p" -ge "$target" ]; then
			kill -9 "$pid"
			wait "$pid" 2>/dev/null || true
			pid=""
			echo "$p"
			return 0
		fi
		sleep 0.02
	done
	wait "$pid" || { cat "$work/out" "$work/err"; fail "it failed instead of being killed"; }
	pid=""
	return 1
}

kills=()
done_at_kill=0
target=3
at=$(run_and_kill_at $target "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench \
	--key-file "$work/key" --header-backup "$work/backup.hdr" "$work/disk.img:1") ||
	fail "the first run finished before $target%"
kills+=("$at")
while :; do
	state=$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')
	# A kill at the very end may land after the last header write: then it is done.
	if [ "$state" = complete ] && [ "$at" -ge 95 ]; then
		done_at_kill=1
		break
	fi
	case "$state" in
	interrupted | needs-repair) ;;
	*) fail "after the kill at $at%: status says '$state'" ;;
	esac
	[ "$("$FDEWIZ" list --json "$work/disk.img" | jq -r '.disks[0].partitions[0].verdict.reason')" = luks-unfinished ] ||
		fail "after the kill at $at%: list does not say luks-unfinished"
	target=$((at + 5))
	# Up to 100 %: a kill there lands after the last hotzone, before or after the header
	# is finalised; resume finishes that end window (test-encrypt-final-window.sh hits
	# it exactly).
	[ "$target" -le 100 ] || target=1000
	if ! at=$(run_and_kill_at $target "$FDEWIZ" resume --foreground --key-file "$work/key" \
		"$work/disk.img:1"); then
		break	# resume finished before the next kill point
	fi
	kills+=("$at")
done
echo "killed at: ${kills[*]} (${#kills[@]} points)"
[ "${#kills[@]}" -ge 10 ] || fail "only ${#kills[@]} kill points; the test needs at least 10"
[ "$done_at_kill" = 1 ] || grep -q "is now encrypted" "$work/out" || fail "the last resume did not finish"
[ "$("$FDEWIZ" status --json "$work/disk.img:1" | jq -r '.conversions[0].state')" = complete ] ||
	fail "status is not complete at the end"

loop=$(losetup -f --show -o $mib --sizelimit $((1022 * mib)) "$work/disk.img")
img_register loop "$loop"
cryptsetup reencrypt --decrypt --header "$work/dec.hdr" --key-file "$work/key" --batch-mode \
	"$loop" >/dev/null || fail "cryptsetup could not decrypt"
e2fsck -fn "$loop" >/dev/null 2>&1 || fail "fsck after decrypting"
img_mount "$loop" "$work/mnt" ro
(cd "$work/mnt" && sha256sum -c --quiet "$work/sums") || fail "checksums differ"
echo "PASS: ${#kills[@]} SIGKILLs, each followed by status and resume; $(wc -l <"$work/sums") files verified"
