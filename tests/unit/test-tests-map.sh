#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/README.md's map names every test `make check` runs: each test in tests/Makefile.inc's
# lists (the variables TESTS is made of: UNIT_TESTS, SOURCE_TESTS, SYSTEM_TESTS) has a table
# row beginning "| `NAME" (its base name, then `.sh` or a backtick; the folder may come
# first, as in `fuzz/test-fuzz-smoke.sh`). A mention elsewhere in the text does not count.
# The check is first shown to fail on a copy of the README with one row removed (exactly
# that test reported missing), then passes on the tree itself. Reads the Makefile.inc
# itself: no build, no make. Cost: well under a second.
set -euo pipefail

top=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# make_vars MAKEFILE: its variable assignments, one "NAME<tab>OP<tab>VALUE" a line, with
# backslash-continued lines joined and comments dropped (recipe lines, which start with a
# tab, are no assignments).
make_vars()
{
	awk '
	{
		line = $0
		if (!cont && line ~ /^[ \t]*#/) {
			# A comment ending in a backslash goes on to the next line.
			skip = line ~ /\\$/
			next
		}
		if (skip) { skip = line ~ /\\$/; next }
		sub(/[ \t]#.*$/, "", line)
		buf = cont ? buf " " line : line
		if (buf ~ /\\$/) { sub(/\\$/, "", buf); cont = 1; next }
		cont = 0
		if (match(buf, /^[A-Za-z_][A-Za-z0-9_]*[ \t]*(\+=|:=|\?=|=)/)) {
			head = substr(buf, 1, RLENGTH)
			val = substr(buf, RLENGTH + 1)
			name = head
			sub(/[ \t]*(\+=|:=|\?=|=)$/, "", name)
			op = substr(head, length(name) + 1)
			gsub(/[ \t]/, "", op)
			gsub(/\t/, " ", val)
			print name "\t" op "\t" val
		}
	}' "$1"
}

# list_tests MAKEFILE: every test `make check` can run (TESTS and the three lists, whichever
# conditional adds them), one path a line, each once. Fails, saying why, when one of the
# three lists is missing or empty: a renamed list must not make the check pass on nothing.
list_tests()
{
	local -A var=()
	local name op val missing=0 v

	while IFS=$'\t' read -r name op val; do
		if [ "$op" = += ]; then
			var[$name]="${var[$name]:-} $val"
		elif [ "$op" != "?=" ] || [ -z "${var[$name]+set}" ]; then
			var[$name]=$val
		fi
	done < <(make_vars "$1")
	for v in UNIT_TESTS SOURCE_TESTS SYSTEM_TESTS; do
		if [ -z "$(tr -d ' \t' <<<"${var[$v]:-}")" ]; then
			echo "FAIL: $1 has no test in $v"
			missing=1
		fi
	done
	[ "$missing" = 0 ] || return 1
	# expand WORDS DEPTH: the words, with each $(VAR) replaced by its value.
	expand()
	{
		local w
		[ "$2" -lt 10 ] || return 0
		for w in $1; do
			if [[ $w =~ ^\$\(([A-Za-z_][A-Za-z0-9_]*)\)$ ]]; then
				expand "${var[${BASH_REMATCH[1]}]:-}" $(($2 + 1))
			else
				printf '%s\n' "$w"
			fi
		done
	}
	set -f
	expand "${var[TESTS]:-} \$(UNIT_TESTS) \$(SOURCE_TESTS) \$(SYSTEM_TESTS)" 0 |
		grep '^tests/' | awk '!seen[$0]++'
	set +f
}

# check_map README MAKEFILE: "ok: NAME ..." or "FAIL: NAME is not in tests/README.md's map"
# for each test MAKEFILE lists; returns 1 if any is missing.
check_map()
{
	local tests

	tests=$(list_tests "$2") || { printf '%s\n' "$tests"; return 1; }
	printf '%s\n' "$tests" | awk -v readme="$1" '
	BEGIN {
		while ((getline line <readme) > 0)
			if (index(line, "| `") == 1)
				rows[++n] = substr(line, 4)
		close(readme)
	}
	# starts(ROW, NAME): ROW begins with NAME followed by ".sh" or a backtick.
	function starts(row, name) {
		if (index(row, name) != 1)
			return 0
		row = substr(row, length(name) + 1)
		return index(row, ".sh") == 1 || index(row, "`") == 1
	}
	{
		path = $0
		name = path
		sub(/^.*\//, "", name)
		sub(/\.sh$/, "", name)
		dir = path
		sub(/^tests\//, "", dir)
		dir = dir ~ /\// ? dir : ""
		sub(/\/[^\/]*$/, "", dir)
		found = 0
		for (i = 1; i <= n && !found; i++)
			found = starts(rows[i], name) ||
				(dir != "" && starts(rows[i], dir "/" name))
		if (found) {
			print "ok: " name " is in the map"
		} else {
			print "FAIL: " name " is not in tests/README.md'"'"'s map"
			bad = 1
		}
	}
	END { exit bad }'
}

passed=0 failed=0
pass() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }

readme=$top/tests/README.md
mk=$top/tests/Makefile.inc

# 1. The check fails when a row is missing: on a copy of the README without one row, it
# reports that test, and only it, besides what it reports on the tree. The row removed is
# one whose test is also named in the text outside its row, if there is one, so that a mere
# mention is shown not to count.
tree_rc=0
out=$(check_map "$readme" "$mk") || tree_rc=$?
victim=$(sed -n 's/^ok: \(.*\) is in the map$/\1/p' <<<"$out" | awk -v readme="$readme" '
	BEGIN {
		while ((getline line <readme) > 0)
			if (index(line, "| `") != 1)
				text = text "\n" line
	}
	NR == 1 { first = $0 }
	!found && index(text, $0) { print; found = 1 }
	END { if (!found) print first }')
if [ -z "$victim" ]; then
	fail "no test of $mk has a row in $readme to remove"
else
	copy=$tmp/README.md
	grep -v -e "^| \`${victim}[.\`]" -e "^| \`[^\`]*/${victim}[.\`]" "$readme" >"$copy" || true
	rc=0
	demo=$(check_map "$copy" "$mk") || rc=$?
	# The failures the copy adds to the tree's own.
	fails=$(grep '^FAIL: ' <<<"$demo" | grep -vxF -f <(grep '^FAIL: ' <<<"$out" || true) || true)
	if [ "$rc" = 1 ] && [ "$fails" = "FAIL: $victim is not in tests/README.md's map" ]; then
		pass "a copy of the map without the row of $victim: exactly that test is missing (exit 1)"
	else
		fail "a copy of the map without the row of $victim: exit $rc, said: ${fails:-no failure}"
	fi
fi

# 2. The tree's map names every test (the check run above).
printf '%s\n' "$out"
passed=$((passed + $(grep -c '^ok: ' <<<"$out" || true)))
failed=$((failed + $(grep -c '^FAIL: ' <<<"$out" || true)))
if [ "$tree_rc" != 0 ] && ! grep -q '^FAIL: ' <<<"$out"; then
	fail "the check on the tree exited $tree_rc without saying why"
fi

echo "test-tests-map: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
