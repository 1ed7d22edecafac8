/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Text layout for the wizard, without curses: display width, wrapping, Japanese line breaks. */
#include "config.h"

#include <string.h>

#include "textlayout.h"

/* Append "\xHH" for each of @nb bytes at @b, as far as @max allows; the new count. */
static size_t escape_bytes(const char *b, size_t nb, wchar_t *out, size_t n, size_t max)
{
	static const wchar_t hex[] = L"0123456789abcdef";

	for (size_t i = 0; i < nb && n + 4 <= max; i++) {
		unsigned char c = (unsigned char)b[i];

		out[n++] = L'\\';
		out[n++] = L'x';
		out[n++] = hex[c >> 4];
		out[n++] = hex[c & 0xf];
	}
	return n;
}

/* Characters a terminal would act on: shown escaped, like the command line does. */
static bool control_char(wchar_t wc)
{
	return wc < 0x20 || wc == 0x7f || (wc >= 0x80 && wc <= 0x9f) ||
	       (wc >= 0x202a && wc <= 0x202e) || (wc >= 0x2066 && wc <= 0x2069);
}

size_t tui_text_decode(const char *s, wchar_t *out, size_t max)
{
	mbstate_t st;
	size_t n = 0, len;

	if (!s)
		return 0;
	len = strlen(s);
	memset(&st, 0, sizeof(st));
	while (len > 0 && n < max) {
		wchar_t wc;
		size_t used = mbrtowc(&wc, s, len, &st);

		if (used == (size_t)-1 || used == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			n = escape_bytes(s, 1, out, n, max);
			s++;
			len--;
			continue;
		} else if (used == 0) {
			break;
		}
		if (wc == L'\t')
			out[n++] = L' ';
		else if (wc == L'\n')
			out[n++] = L'\n';	/* a break where text wraps, else a space */
		else if (control_char(wc))
			n = escape_bytes(s, used, out, n, max);
		else
			out[n++] = wc;
		s += used;
		len -= used;
	}
	return n;
}

int tui_text_cell_width(wchar_t wc)
{
	int w = wcwidth(wc);

	return w < 0 ? 1 : w;
}

int tui_width(const char *s)
{
	wchar_t buf[TUI_TEXT_MAX];
	size_t n = tui_text_decode(s, buf, TUI_TEXT_MAX);
	int w = 0;

	for (size_t i = 0; i < n; i++)
		w += tui_text_cell_width(buf[i]);
	return w;
}

bool tui_text_no_line_start(wchar_t c)
{
	/*
	 * Closing brackets and quotes, the comma and full stop (、。，．), middle dot, small
	 * kana, the prolonged sound mark and iteration marks; and the usual Latin marks.
	 */
	return c && wcschr(L"\u3001\u3002\uff0c\uff0e\uff01\uff1f\uff1a\uff1b\u30fb"
			   L"\uff09\u300d\u300f\u3011\u3015\u3009\u300b\uff3d\uff5d\u201d\u2019"
			   L"\u30fc\u301c\u3005\u309d\u309e\u30fd\u30fe"
			   L"\u3041\u3043\u3045\u3047\u3049\u3063\u3083\u3085\u3087\u308e"
			   L"\u30a1\u30a3\u30a5\u30a7\u30a9\u30c3\u30e3\u30e5\u30e7\u30ee"
			   L"\u30f5\u30f6,.;:!?)]}", c) != NULL;
}

bool tui_text_no_line_end(wchar_t c)
{
	/* Opening brackets and quotes: 「『（【〔〈《［｛“‘ and ( [ {. */
	return c && wcschr(L"\u300c\u300e\uff08\u3010\u3014\u3008\u300a\uff3b\uff5b\u201c"
			   L"\u2018([{", c) != NULL;
}

size_t tui_text_line_end(const wchar_t *buf, size_t n, size_t start, int w)
{
	size_t i = start, brk = 0;
	int used = 0;

	while (i < n && buf[i] != L'\n' && used + tui_text_cell_width(buf[i]) <= w) {
		used += tui_text_cell_width(buf[i]);
		if (buf[i] == L' ')
			brk = i;
		else if (tui_text_cell_width(buf[i]) == 2 && i + 1 < n &&
			 !tui_text_no_line_start(buf[i + 1]) && !tui_text_no_line_end(buf[i]))
			brk = i + 1;
		i++;
	}
	if (i < n && buf[i] == L'\n')
		return i;
	if (i < n && brk > start)
		i = brk;
	return i == start ? i + 1 : i;
}

size_t tui_text_next_line(const wchar_t *buf, size_t n, size_t end)
{
	/* After a hard break the next line keeps its indent; after a wrap, no leading blank. */
	if (end < n && buf[end] == L'\n')
		return end + 1;
	while (end < n && buf[end] == L' ')
		end++;
	/* A wrap at the spaces before a newline: that newline ends the same line. */
	return end < n && buf[end] == L'\n' ? end + 1 : end;
}

int tui_text_wrap(const wchar_t *buf, size_t n, int w, int max_lines,
		  struct tui_text_line *lines)
{
	size_t start = 0;
	int count = 0;

	if (w <= 0)
		return 0;
	while (start < n && count < max_lines) {
		size_t end = tui_text_line_end(buf, n, start, w);

		lines[count].start = start;
		lines[count].end = end;
		count++;
		start = tui_text_next_line(buf, n, end);
	}
	return count;
}

int tui_wrap_count(int w, int max_lines, const char *s)
{
	wchar_t buf[TUI_TEXT_MAX];
	size_t n = tui_text_decode(s, buf, TUI_TEXT_MAX), start = 0;
	int lines = 0;

	if (w <= 0)
		return 0;
	while (start < n && lines < max_lines) {
		start = tui_text_next_line(buf, n, tui_text_line_end(buf, n, start, w));
		lines++;
	}
	return lines;
}

int tui_box_width(int cols)
{
	return cols - 8 < 70 ? cols - 8 : 70;
}

int tui_box_lines(const char *msg, int cols, int rows, int extra)
{
	/* Counted by the rule wrapped text is drawn with, CJK breaks and kinsoku included. */
	int lines = tui_wrap_count(tui_box_width(cols) - 4, rows, msg);

	return lines > rows - 8 - extra ? rows - 8 - extra : lines;
}
