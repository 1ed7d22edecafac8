#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# No function in src/ is longer than MAX lines (signature to closing brace), except those on
# the allow list below. Kernel style makes this checkable: a function body opens with "{" in
# column 0 and closes with "}" in column 0.
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/src
MAX=90
fails=0 checks=0

# file:function, one a line, each with why it may be longer. It is for tables only (a
# function that is one long table of data); every other function is split by purpose.
allowed=(
)

# lengths ROOT FILE...: "path:line function length" for every function in each FILE, with
# the path relative to ROOT's parent (src/...). A signature starts in column 0 with a name
# and "("; the body runs from "{" in column 0 to the next "}" in column 0.
lengths()
{
	local root=$1
	shift
	awk -v strip="${root%/*}/" '
	FNR == 1 {
		open = 0
		sig = ""
		file = FILENAME
		if (index(file, strip) == 1)
			file = substr(file, length(strip) + 1)
	}
	!open && /^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
	/^\{/ && !open && sig != "" {
		open = 1
		name = sig
		sub(/\(.*/, "", name)
		n = split(name, w, /[ *]+/)
		name = w[n]
		next
	}
	/^\}/ && open { open = 0; print file ":" sigline " " name " " FNR - sigline + 1; sig = "" }
	' "$@"
}

# too_long ROOT: prints each function over MAX lines that is not allowed; 1 when there is one.
too_long()
{
	local root=$1 bad=0 where name len a ok
	while read -r where name len; do
		[ "$len" -gt "$MAX" ] || continue
		ok=0
		for a in "${allowed[@]}"; do
			[ "${where%%:*}:$name" = "$a" ] && ok=1
		done
		[ "$ok" = 1 ] && continue
		echo "$where $name is $len lines (at most $MAX; split it by purpose)"
		bad=1
	done < <(lengths "$root" $(find "$root" -name '*.c' | sort))
	return "$bad"
}

check()
{
	checks=$((checks + 1))
	if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}

desc="no function in src/ is over $MAX lines unless it is on the allow list"
check too_long "$src"

# Every allowed function still exists: a stale entry would let a new one of that name in.
stale()
{
	local a found
	for a in "${allowed[@]}"; do
		found=$(lengths "$src" "$src/../${a%%:*}" 2>/dev/null | awk -v n="${a##*:}" '$2 == n' || true)
		[ -n "$found" ] || echo "$a"
	done
}
desc="every function on the allow list exists"
check eval '[ -z "$(stale)" ] || { stale; false; }'

# The checker itself must catch a long function, or the check above proves nothing.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/core"
{
	printf '/* planted */\nstatic int long_one(int a,\n\t\t    int b)\n{\n'
	for i in $(seq 1 $((MAX - 4))); do printf '\ta += %d;\n' "$i"; done
	printf '\treturn a + b;\n}\n\nstatic int short_one(void)\n{\n\treturn 0;\n}\n'
} >"$tmp/src/core/bad.c"
desc="a planted function of $((MAX + 1)) lines is found"
check eval '! too_long "$tmp/src" >/dev/null'
desc="the planted function is measured from its signature to its closing brace"
check eval '[ "$(lengths "$tmp/src" "$tmp/src/core/bad.c" | head -1)" = "src/core/bad.c:2 long_one $((MAX + 1))" ]'
sed -i '/a += 1;/d' "$tmp/src/core/bad.c"
desc="a planted function of $MAX lines passes"
check too_long "$tmp/src"

echo "test-function-length: $((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
