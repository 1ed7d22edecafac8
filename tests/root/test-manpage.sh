#!/bin/bash
# fdewiz(8) renders without warnings and documents every command and option --help shows.
set -euo pipefail

lib=$(dirname "$0")/../lib
. "$lib/assert.sh"
. "$lib/cli-help.sh"

require_cmds man groff lexgrog awk
require_fdewiz
page=$FDEWIZ_SRCDIR/data/fdewiz.8
[ -f "$page" ] || { echo "FAIL: no man page at $page"; exit 1; }

# 1. No warnings from man-db (as a reader sees it) nor from groff with every warning on.
warn=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 \
	>/dev/null)
assert_eq "man --warnings, 80 columns" "" "$warn"
for width in 80 120; do
	warn=$(groff -man -ww -z -Tutf8 -rLL=${width}n "$page" 2>&1)
	assert_eq "groff -ww at $width columns" "" "$warn"
done
whatis=$(lexgrog "$page" 2>&1 || true)
assert_contains "lexgrog (the whatis line)" "$whatis" '"fdewiz - encrypt a Linux partition'

# 2. The version in the title line is the program's.
version=$("$FDEWIZ" --version | awk '{ print $2 }')
th=$(grep -m1 '^\.TH ' "$page")
assert_contains "title line" "$th" "\"fdewiz $version\""

# The page as text, one paragraph per line, no hyphenation, no overstriking.
text=$(groff -man -Tascii -rLL=300n -rHY=0 -P-cbou "$page" 2>/dev/null)
section()
{
	printf '%s\n' "$text" | awk -v s="$1" '/^[A-Z]/ { on = ($0 == s); next } on'
}

for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES SAFETY \
	EXAMPLES "SEE ALSO"; do
	assert_true "section $s" grep -qx -- "$s" <<<"$text"
done

# 3. Every command --help lists is a tag in COMMANDS and appears in SYNOPSIS.
commands=$(help_commands)
assert_true "fdewiz --help lists commands" test -n "$commands"
cmd_section=$(section COMMANDS)
synopsis=$(section SYNOPSIS)
for cmd in $commands; do
	assert_true "COMMANDS has an entry for '$cmd'" \
		grep -qE -- "^ {7}$cmd( |\$)" <<<"$cmd_section"
	assert_true "SYNOPSIS shows 'fdewiz $cmd'" grep -qE -- "fdewiz $cmd( |\$)" <<<"$synopsis"
done

# 4. Every long option any --help prints is a tag in OPTIONS (not merely mentioned);
#    a tag may list several ("--quick, --full").
opt_section=$(section OPTIONS)
check_option()
{
	assert_true "OPTIONS has an entry for $2 (from $1 --help)" \
		grep -qE -- "^ {7}(-[a-zA-Z], |--[a-z0-9-]+, )*$2([ =,]|\$)" <<<"$opt_section"
}
n_opts=0
for opt in $(help_global_options); do
	check_option fdewiz "$opt"
	n_opts=$((n_opts + 1))
done
for cmd in $commands; do
	opts=$(help_options "$cmd") || { assert_fail "fdewiz $cmd --help failed"; continue; }
	for opt in $opts; do
		[ "$opt" = --help ] && continue
		check_option "fdewiz $cmd" "$opt"
		n_opts=$((n_opts + 1))
	done
done
echo "checked $(wc -w <<<"$commands") commands and $n_opts options against the page"
todo=$(grep -c 'TODO check' "$page" || true)
[ "$todo" -eq 0 ] || echo "note: $todo places in the page are marked 'TODO check'"

assert_finish
