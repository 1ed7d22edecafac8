#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The layout rules that keep the engine a library: src/core never includes curses and never
# writes to the terminal; only src/tui/curses.h includes curses, and the text layout none.
set -euo pipefail

src=${FDEWIZ_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/src
fails=0 checks=0

# A curses include of any spelling: <curses.h>, <ncurses.h>, <ncursesw/...>, "curses.h".
curses_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](n?curses[^>"]*|ncursesw/[^>"]*)[>"]'
# The system's headers, which only src/tui/curses.h includes (the screens include it).
sys_curses_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*<(n?curses[^>]*|ncursesw/[^>]*)>'
# Writes to the terminal: stdio on stdout/stderr, printf-family, perror, write(1|2, ...).
print_re='\b(printf|vprintf|puts|putchar|perror)[[:space:]]*\(|\b(fprintf|vfprintf|fputs|fputc|fwrite|putc)[[:space:]]*\(.*\bstd(out|err)\b|\bdprintf[[:space:]]*\([[:space:]]*(1|2|STD(OUT|ERR)_FILENO)[[:space:]]*,|\bwrite[[:space:]]*\([[:space:]]*(1|2|STD(OUT|ERR)_FILENO)[[:space:]]*,'

# check_tree DIR: prints each violation; returns 1 when there is one.
check_tree()
{
	local dir=$1 bad=0 hits
	hits=$(grep -rnE --include='*.[ch]' "$curses_re" "$dir/core" || true)
	[ -z "$hits" ] || { echo "src/core includes curses:"; echo "$hits"; bad=1; }
	hits=$(grep -rnE --include='*.[ch]' "$print_re" "$dir/core" || true)
	[ -z "$hits" ] || { echo "src/core writes to the terminal (log through fdw_log):"; echo "$hits"; bad=1; }
	hits=$(grep -rlE --include='*.[ch]' "$curses_re" "$dir" | grep -v '/tui/' || true)
	[ -z "$hits" ] || { echo "curses included outside src/tui:"; echo "$hits"; bad=1; }
	hits=$(grep -rnE --include='*.[ch]' "$sys_curses_re" "$dir/tui" 2>/dev/null |
		grep -v '/tui/curses\.h:' || true)
	[ -z "$hits" ] || { echo "src/tui includes curses other than through curses.h:"; echo "$hits"; bad=1; }
	# The text layout is unit-tested without a terminal: it stays free of curses.
	hits=$(grep -lE "$curses_re" "$dir"/tui/textlayout.[ch] 2>/dev/null || true)
	[ -z "$hits" ] || { echo "the text layout includes curses:"; echo "$hits"; bad=1; }
	return "$bad"
}

# check_screens DIR: a screen file defines only static functions and its one table, only
# tui.c names the tables (screens reach each other through tui_go(), never by a call), and
# only tui.c draws the key-hint line, from the table's hint.
check_screens()
{
	local dir=$1 bad=0 hits
	hits=$(grep -nE '^[a-z][a-z_ ]*[ *]\**[a-z_]+\(' "$dir"/tui/screen_*.c 2>/dev/null |
		grep -vE ':[0-9]+:static ' || true)
	[ -z "$hits" ] || { echo "a screen file exports a function (make it static):"; echo "$hits"; bad=1; }
	hits=$(grep -nE '\btui_screen_[a-z]+\b' "$dir"/tui/*.c 2>/dev/null |
		grep -vE '/tui\.c:|:const struct tui_screen_ops tui_screen_[a-z]+ = \{' || true)
	[ -z "$hits" ] || { echo "a screen's table named outside tui.c:"; echo "$hits"; bad=1; }
	hits=$(grep -nE 'tui_put\(LINES - 1,' "$dir"/tui/screen_*.c 2>/dev/null || true)
	[ -z "$hits" ] || { echo "a screen draws its own hint line (give its table a hint):"; echo "$hits"; bad=1; }
	return "$bad"
}

check()
{
	checks=$((checks + 1))
	if "$@"; then echo "ok   $desc"; else echo "FAIL $desc"; fails=$((fails + 1)); fi
}

desc="the source tree keeps the engine free of curses and terminal output"
check check_tree "$src"
desc="the wizard's screens reach each other only through tui_go()"
check check_screens "$src"

# Every C source says its licence on its first line (the project is GPL-3.0-or-later).
no_spdx()
{
	local f
	for f in $(find "$1" "$1/../tests" -name '*.[ch]' 2>/dev/null); do
		head -1 "$f" | grep -q 'SPDX-License-Identifier: GPL-3.0-or-later' || echo "$f"
	done
}
desc="every C source starts with its SPDX licence line"
check eval '[ -z "$(no_spdx "$src")" ] || { no_spdx "$src"; false; }'

# Every C source with a translatable message is in po/POTFILES.in: else xgettext never
# sees its messages and they stay English in every language, with no warning.
untranslated_files()
{
	local f
	for f in $(grep -rlE '(^|[^A-Za-z0-9_])N?_\("' "$1" --include='*.c'); do
		grep -qx "src/${f#"$1"/}" "$2" || echo "$f is not in po/POTFILES.in"
	done
}
desc="every C source with translatable messages is in po/POTFILES.in"
check eval '[ -z "$(untranslated_files "$src" "$src/../po/POTFILES.in")" ] ||
	{ untranslated_files "$src" "$src/../po/POTFILES.in"; false; }'

# Every environment variable the program reads is either one of the few that are not test
# hooks (below, with why) or documented in the test hook table of HACKING.md. Names are taken
# from getenv("NAME") and from getenv(MACRO) with "#define MACRO "NAME"", and every
# "FDEWIZ_..." string in the sources counts as one.
not_hooks='^(PATH|TERM|NO_COLOR)$'	# the helpers' search path; the terminal and its colours

# env_names DIR: every environment variable name the sources under DIR read, one a line.
env_names()
{
	local dir=$1 macro
	{
		grep -rhoE --include='*.[ch]' '\b(secure_)?getenv[[:space:]]*\([[:space:]]*"[^"]+"' "$dir" |
			sed -E 's/.*"([^"]+)"/\1/'
		grep -rhoE --include='*.[ch]' '"FDEWIZ_[A-Z0-9_]+"' "$dir" | tr -d '"'
		for macro in $(grep -rhoE --include='*.[ch]' \
			       '\b(secure_)?getenv[[:space:]]*\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*' "$dir" |
			       sed -E 's/.*\([[:space:]]*//'); do
			grep -rhE --include='*.[ch]' "^#[[:space:]]*define[[:space:]]+$macro[[:space:]]+\"" \
				"$dir" | sed -E 's/.*"([^"]+)".*/\1/'
		done
	} | sort -u
}

# undocumented_hooks DIR HACKING: each name read under DIR that is neither in $not_hooks nor
# in the first column of a row of HACKING's "Test hooks" table; 1 when there is one.
undocumented_hooks()
{
	local dir=$1 doc=$2 table name bad=0
	table=$(awk '/^## Test hooks/ { on = 1; next } /^## / { on = 0 } on && /^\|/' "$doc")
	# None at all means the search is broken, not that the sources read none.
	[ -n "$(env_names "$dir")" ] || { echo "no getenv() found under $dir"; return 1; }
	for name in $(env_names "$dir"); do
		[[ "$name" =~ $not_hooks ]] && continue
		if ! printf '%s\n' "$table" | cut -d'|' -f2 | grep -qE "\`$name(=[^\`]*)?\`"; then
			echo "$name is read in src/ but not in HACKING.md's test hook table"
			bad=1
		fi
	done
	return "$bad"
}
desc="every environment variable read in src/ is documented as a test hook in HACKING.md"
check undocumented_hooks "$src" "$src/../HACKING.md"

# Secrets never come from the environment: no variable the program reads is named for one.
secret_hooks()
{
	env_names "$1" | grep -E 'PASS|SECRET|(^|_)KEY($|_)|PHRASE|TOKEN' || true
}
desc="no environment variable read in src/ carries a secret"
check eval '[ -z "$(secret_hooks "$src")" ] || { secret_hooks "$src"; false; }'

# The checker itself must catch each kind of violation, or the check above proves nothing.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for planted in '#include <ncursesw/curses.h>' '#include "curses.h"' \
	'	fprintf(stderr, "x");' '	printf("%d", 1);' '	write(STDERR_FILENO, "x", 1);' \
	'	fputs("x", stdout);'; do
	mkdir -p "$tmp/t/core" "$tmp/t/tui"
	printf '/* planted */\n%s\n' "$planted" >"$tmp/t/core/bad.c"
	desc="a planted violation is found: $planted"
	check eval '! check_tree "$tmp/t" >/dev/null'
	rm -rf "$tmp/t"
done
mkdir -p "$tmp/t/core" "$tmp/t/cli"
printf '#include <curses.h>\n' >"$tmp/t/cli/x.c"
desc="curses included by the command line is found"
check eval '! check_tree "$tmp/t" >/dev/null'
rm -rf "$tmp/t"
mkdir -p "$tmp/t/core" "$tmp/t/tui"
printf '#include <ncursesw/ncurses.h>\n' >"$tmp/t/tui/screen_x.c"
desc="a screen including curses around src/tui/curses.h is found"
check eval '! check_tree "$tmp/t" >/dev/null'
rm -rf "$tmp/t"
mkdir -p "$tmp/t/core" "$tmp/t/tui"
printf '#include "curses.h"\n' >"$tmp/t/tui/textlayout.c"
desc="the text layout including curses is found"
check eval '! check_tree "$tmp/t" >/dev/null'

rm -rf "$tmp/t"
mkdir -p "$tmp/t/tui"
printf 'void disks_key(struct tui *t)\n{\n}\n' >"$tmp/t/tui/screen_x.c"
desc="a screen function that is not static is found"
check eval '! check_screens "$tmp/t" >/dev/null'
printf 'static void x(struct tui *t)\n{\n\ttui_screen_plan.enter(t, 0);\n}\n' >"$tmp/t/tui/screen_x.c"
desc="a screen calling another screen's table is found"
check eval '! check_screens "$tmp/t" >/dev/null'
printf 'static void x(struct tui *t)\n{\n\ttui_put(LINES - 1, 0, COLS, _("q: quit"), true);\n}\n' \
	>"$tmp/t/tui/screen_x.c"
desc="a screen drawing its own hint line is found"
check eval '! check_screens "$tmp/t" >/dev/null'

# A hook read but not documented is found, through a literal and through a macro.
rm -rf "$tmp/t"
mkdir -p "$tmp/t/core"
printf '## Test hooks\n\n| variable | effect |\n| --- | --- |\n| `FDEWIZ_A=X` | a |\n' >"$tmp/doc"
printf '#define HOOK_ENV "FDEWIZ_B"\nstatic void f(void)\n{\n\tgetenv(HOOK_ENV);\n\tgetenv("FDEWIZ_A");\n}\n' \
	>"$tmp/t/core/x.c"
desc="a hook read through a macro and missing from the table is found"
check eval '[ "$(undocumented_hooks "$tmp/t" "$tmp/doc")" = "FDEWIZ_B is read in src/ but not in HACKING.md'"'"'s test hook table" ]'
printf '\tgetenv("OTHER_HOOK");\n' >>"$tmp/t/core/x.c"
printf '| `FDEWIZ_B` | b |\n' >>"$tmp/doc"
desc="a hook read under any name and missing from the table is found"
check eval '[ "$(undocumented_hooks "$tmp/t" "$tmp/doc")" = "OTHER_HOOK is read in src/ but not in HACKING.md'"'"'s test hook table" ]'
printf '| `OTHER_HOOK` | c |\n' >>"$tmp/doc"
desc="hooks in the table pass"
check undocumented_hooks "$tmp/t" "$tmp/doc"
printf '\tgetenv("FDEWIZ_TEST_PASSPHRASE");\n' >>"$tmp/t/core/x.c"
desc="a hook named for a secret is found"
check eval '[ -n "$(secret_hooks "$tmp/t")" ]'

mkdir -p "$tmp/p/core"
printf 'static const char *m = N_("a message");\n' >"$tmp/p/core/y.c"
: >"$tmp/potfiles"
desc="a source with messages missing from POTFILES.in is found"
check eval '[ "$(untranslated_files "$tmp/p" "$tmp/potfiles")" = "$tmp/p/core/y.c is not in po/POTFILES.in" ]'
echo "src/core/y.c" >"$tmp/potfiles"
desc="it passes once listed"
check eval '[ -z "$(untranslated_files "$tmp/p" "$tmp/potfiles")" ]'

echo "test-engine-rules: $((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
