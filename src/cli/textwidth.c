/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Columns laid out by display width, so Cyrillic and CJK text lines up like ASCII. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"

int cli_text_width(const char *s)
{
	size_t n = mbstowcs(NULL, s, 0);
	wchar_t *w;
	int width;

	if (n == (size_t)-1)
		return (int)strlen(s);
	w = malloc((n + 1) * sizeof(*w));
	if (!w)
		return (int)strlen(s);
	mbstowcs(w, s, n + 1);
	width = wcswidth(w, n);
	free(w);
	return width < 0 ? (int)strlen(s) : width;
}

void cli_pad(FILE *out, const char *text, int width, bool right)
{
	int pad = width - cli_text_width(text);

	if (!right)
		fputs(text, out);
	while (pad-- > 0)
		fputc(' ', out);
	if (right)
		fputs(text, out);
}
