#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The manual's wizard captures are the program's (doc/captures.py): each capture in
# doc/captures/ carries a hash of every source that draws its screen, and each block of
# doc/manual.md marked <!-- capture NAME --> is that capture. The check is first shown to
# fail on a copy of the tree with a planted change to a screen's text and one to a block,
# then
# passes on the tree itself. Cost: well under a second (python3, no build).
set -euo pipefail

top=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fails=0 checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect WHAT STATUS TREE [TEXT]: the check on TREE exits STATUS and says TEXT.
expect()
{
	local out rc=0

	checks=$((checks + 1))
	out=$(python3 "$top/doc/captures.py" check "$3" 2>&1) || rc=$?
	if [ "$rc" -ne "$2" ] || [[ "$out" != *"${4:-}"* ]]; then
		echo "FAIL: $1: exit $rc, said: ${out:-nothing}"
		fails=$((fails + 1))
	else
		echo "ok: $1${out:+: $(head -1 <<<"$out")}"
	fi
}

# A copy of what the check reads: the manual, the captures, the sources they name.
copy=$tmp/tree
mkdir -p "$copy"
(cd "$top" && cp --parents doc/manual.md doc/captures/*.txt src/tui/*.c src/core/*/*.c "$copy")
expect "the copy passes as the tree does" 0 "$copy"
sed -i '0,/_("Choose a partition to encrypt in place")/s//_("Pick a partition to encrypt in place")/' \
	"$copy/src/tui/screen_disks.c"
grep -q 'Pick a partition' "$copy/src/tui/screen_disks.c" || { echo "FAIL: nothing planted"; exit 1; }
expect "a planted change to the disks screen's title is caught" 1 "$copy" \
	"doc/captures/disks.txt: made before src/tui/screen_disks.c changed"
cp "$top/src/tui/screen_disks.c" "$copy/src/tui/screen_disks.c"
sed -i '0,/^ fdewiz — Recovery key$/s//  fdewiz — Recovery key/' "$copy/doc/manual.md"
expect "a planted change to a block of the manual is caught" 1 "$copy" \
	"doc/manual.md: the recovery block is not doc/captures/recovery.txt"
expect "the tree's captures are the program's" 0 "$top"

echo "test-captures: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
