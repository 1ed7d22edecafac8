/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Text layout for the wizard, without curses: display width, wrapping, Japanese line breaks. */
#ifndef FDW_TUI_TEXTLAYOUT_H
#define FDW_TUI_TEXTLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

/* Longest text, in wide characters, the layout takes; the rest is cut off. */
#define TUI_TEXT_MAX 1024

/* One wrapped line: wide characters [start, end) of the decoded text. */
struct tui_text_line {
	size_t start, end;
};

/*
 * Decode @s (multibyte, the locale's) into at most @max wide characters at @out. Tabs
 * become spaces; a newline stays (a hard break for the wrapping below, a space on one
 * line); invalid bytes and characters a terminal would act on (C0, C1, bidirectional
 * overrides) become "\xHH", since labels and names come from whoever made the disk.
 * Returns the count.
 */
size_t tui_text_decode(const char *s, wchar_t *out, size_t max);

/* Cells @wc takes on a terminal: 2 for CJK, 1 for Latin and Cyrillic, 1 when unknown. */
int tui_text_cell_width(wchar_t wc);

/* Cells @s takes once decoded. */
int tui_width(const char *s);

/* Characters a line must not start with (、。」）ー ...: kinsoku, and , . ; : ! ? ). */
bool tui_text_no_line_start(wchar_t c);
/* Characters a line must not end with (「（『 ... and opening brackets). */
bool tui_text_no_line_end(wchar_t c);

/*
 * Where the line starting at @start ends (exclusive) in @w cells: at the last space that
 * fits, or between two double-width characters (CJK text has no spaces between words),
 * never before a character that may not start a line nor after one that may not end it;
 * at a newline (a line of its own, empty when the newline is at @start). Otherwise always
 * at least one character further than @start.
 */
size_t tui_text_line_end(const wchar_t *buf, size_t n, size_t start, int w);
/* Where the line after one that ended at @end starts: past its newline, or past the
 * spaces a wrap left there. */
size_t tui_text_next_line(const wchar_t *buf, size_t n, size_t end);

/*
 * Wrap the @n wide characters at @buf into lines of @w cells, at most @max_lines of them,
 * into @lines; spaces at the start of a wrapped line are skipped (not after a newline).
 * Returns the lines used.
 */
int tui_text_wrap(const wchar_t *buf, size_t n, int w, int max_lines,
		  struct tui_text_line *lines);

/* How many lines @s wraps into in @w cells (at most @max_lines): what tui_wrap() draws. */
int tui_wrap_count(int w, int max_lines, const char *s);

/* Width of a dialog box on a terminal @cols wide (its text has 4 cells less). */
int tui_box_width(int cols);
/* Lines @msg takes in a dialog box on a @cols x @rows terminal with @extra rows of its own. */
int tui_box_lines(const char *msg, int cols, int rows, int extra);

#endif
