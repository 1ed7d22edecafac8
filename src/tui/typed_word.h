/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A typed confirmation word (YES, ERASE, WEAK): its field, its keys, and whether it matches. */
#ifndef FDW_TUI_TYPED_WORD_H
#define FDW_TUI_TYPED_WORD_H

#include <stdbool.h>
#include <stddef.h>

#include "tui.h"

struct tui_typed_word {
	char text[64];
	size_t len;
};

/* Empty the field: on arrival, and after a wrong word (it is typed again, not edited). */
void tui_word_clear(struct tui_typed_word *w);
/* Editing keys (Backspace drops the last character whole); true when @k was one. */
bool tui_word_key(struct tui_typed_word *w, struct tui_key k);
/* Is what was typed exactly @word (already translated)? */
bool tui_word_matches(const struct tui_typed_word *w, const char *word);
/*
 * "> " and the field on row @y, with the cursor at the end of what was typed. Draw it after
 * everything else the screen draws: drawing moves the cursor.
 */
void tui_word_draw(struct tui *t, const struct tui_typed_word *w, int y);

#endif
