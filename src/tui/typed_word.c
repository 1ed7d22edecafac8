/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A typed confirmation word (YES, ERASE, WEAK): one field for the screens that ask for one. */
#include "config.h"

#include <string.h>

#include "curses.h"
#include "textlayout.h"
#include "typed_word.h"

/* Cells of the highlighted field: room for any of the words; more is kept, not shown. */
#define FIELD_CELLS 20

void tui_word_clear(struct tui_typed_word *w)
{
	w->len = 0;
	w->text[0] = '\0';
}

bool tui_word_key(struct tui_typed_word *w, struct tui_key k)
{
	return tui_field_key(w->text, &w->len, sizeof(w->text), k);
}

bool tui_word_matches(const struct tui_typed_word *w, const char *word)
{
	return !strcmp(w->text, word);
}

void tui_word_draw(struct tui *t, const struct tui_typed_word *w, int y)
{
	int fx = 2 + tui_put(y, 2, COLS - 4, "> ", false), cx;

	tui_attr_on(t, TUI_C_SELECT);
	tui_put(y, fx, FIELD_CELLS, w->text, true);
	tui_attr_off(t, TUI_C_SELECT);
	cx = fx + tui_width(w->text);
	curs_set(1);
	move(y, cx < COLS - 1 ? cx : COLS - 1);
}
