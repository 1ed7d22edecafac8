/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one place fdewiz includes curses: the wide-character ncurses API. */
#ifndef FDW_TUI_CURSES_H
#define FDW_TUI_CURSES_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#if defined(HAVE_NCURSESW_CURSES_H) || __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#endif
