#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The wizard's screens as the manual shows them, captured from the real program on the demo
# image (data/make-demo-disk.sh) in tmux at 100x30, into doc/captures/NAME.txt. Each file
# starts with a stamp: the sources that draw that screen and a hash of each as it was.
# tests/unit/test-captures.sh fails when one of those sources changed since, and when a
# block of doc/manual.md marked <!-- capture NAME --> is not that capture: run this again
# then.
#
# Run as root from a built tree: doc/make-captures.sh   (about two minutes; it converts the
# demo image's Data partition in a folder of its own under /var/tmp, nothing else).
# The recovery key is shown as X's. The manual's blocks marked <!-- capture NAME --> are
# then made the captures (doc/captures.py update).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/assert.sh"
. "$top/tests/lib/tmux.sh"
require_root
require_cmds tmux parted mkfs.ext4 mkfs.vfat sha256sum
FDEWIZ=${FDEWIZ:-$top/src/fdewiz}
[ -x "$FDEWIZ" ] || { echo "$0: build fdewiz first ($FDEWIZ)" >&2; exit 1; }

work=/var/tmp/fdw-demo
srv=fdewiz-captures-$$
pass="correct horse battery staple"
rm -rf "$work"
mkdir -p "$work/demo" "$top/doc/captures"
trap 'tmux_stop "$srv"; rm -rf "$work"' EXIT
"$top/data/make-demo-disk.sh" "$work/demo/laptop.img" >/dev/null
img=$work/demo/laptop.img

# keep NAME: the screen now, stamped with the sources doc/captures.py names for NAME.
keep()
{
	local out=$top/doc/captures/$1.txt

	{
		python3 "$top/doc/captures.py" stamp "$top" "$1"
		tmux_capture "$srv" | sed -e 's/[[:space:]]*$//' \
			-e 's/[0-9A-Z]\{6\}\(-[0-9A-Z]\{6\}\)\{7\}/XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX-XXXXXX/'
	} >"$out"
	echo "captured $1"
}

# A build with sanitizers needs its options in the pane too.
tmux_start "$srv" 100 30 env FDEWIZ_STATE_DIR="$work/state" FDEWIZ_TEST_FAST_PBKDF=1 \
	FDEWIZ_TEST_BENCH_SCALE=tiny ${ASAN_OPTIONS:+ASAN_OPTIONS="$ASAN_OPTIONS"} "$FDEWIZ" "$img"
tmux_wait_for "$srv" "Choose a partition" 30
tmux_select "$srv" " 3 Data " || { echo "$0: no Data row" >&2; exit 1; }
keep disks
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Plan for $img:3" 30
tmux_wait_for "$srv" "Reading large files" 120
keep plan
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Choose the passphrase" 10
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" Space
tmux_wait_for "$srv" "Strength: strong" 10
keep passphrase
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Type YES" 10
tmux_send "$srv" -l "YES"
keep confirm
tmux_send "$srv" Enter
tmux_wait_for "$srv" "Recovery key" 300
keep recovery
tmux_send "$srv" Enter
tmux_wait_for "$srv" "State: running" 300
tmux_wait_for "$srv" "ETA" 60
keep progress
tmux_wait_for "$srv" "Results for $img:3" 1200
keep results
tmux_send "$srv" q
tmux_wait_exit "$srv" 30 || true
python3 "$top/doc/captures.py" update "$top"
python3 "$top/doc/captures.py" check "$top"
echo "doc/captures: $(ls "$top/doc/captures" | wc -l) captures, copied into doc/manual.md"
