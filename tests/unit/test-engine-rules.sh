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

# check_screens DIR: a screen file defines only static functions and its one table, and only
# tui.c names the tables: screens reach each other through tui_go(), never by a call.
check_screens()
{
	local dir=$1 bad=0 hits
	hits=$(grep -nE '^[a-z][a-z_ ]*[ *]\**[a-z_]+\(' "$dir"/tui/screen_*.c 2>/dev/null |
		grep -vE ':[0-9]+:static ' || true)
	[ -z "$hits" ] || { echo "a screen file exports a function (make it static):"; echo "$hits"; bad=1; }
	hits=$(grep -nE '\btui_screen_[a-z]+\b' "$dir"/tui/*.c 2>/dev/null |
		grep -vE '/tui\.c:|:const struct tui_screen_ops tui_screen_[a-z]+ = \{' || true)
	[ -z "$hits" ] || { echo "a screen's table named outside tui.c:"; echo "$hits"; bad=1; }
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

echo "test-engine-rules: $((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
