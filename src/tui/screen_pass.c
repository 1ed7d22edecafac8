/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Passphrase screen: typed twice into locked memory, with a strength hint. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "core/base/base_api.h"
#include "curses.h"
#include "tui.h"
#include "typed_word.h"

/* Which field has the focus, and why the passphrase was not taken. */
struct pass_state {
	int focus;			/* 0, 1: the fields; 2: the recovery key box */
	char msg[256];
	/* The engine rated the passphrase weak: @weak_why says why, and it is taken only
	 * once the person types the word in @word (Esc: choose another one). */
	bool weak_ask;
	char weak_why[768];
	struct tui_typed_word word;
};

/* TRANSLATORS: the word the person types to keep a weak passphrase, in capitals
 * like YES; not the strength label "weak". */
#define WEAK_WORD _("WEAK")

/*
 * The weak passphrase's second confirmation, from @y to the bottom. The question and its
 * field always fit (the smallest terminal included); the reason takes the rows left.
 */
static void draw_weak(struct tui *t, int y)
{
	struct pass_state *ps = t->state[TUI_PASS];
	char why[1024], ask[512];
	int ask_rows, why_rows;

	snprintf(why, sizeof(why), _("Weak passphrase: %s"), ps->weak_why);
	snprintf(ask, sizeof(ask), _("To use it anyway, type %s and press Enter. Esc: choose "
				     "another one."), WEAK_WORD);
	ask_rows = tui_wrap_count(COLS - 4, 3, ask);
	/* Rows below: the field, and the message under it. */
	why_rows = LINES - 1 - y - ask_rows - 2;
	if (why_rows > 5)
		why_rows = 5;
	if (why_rows > 0) {
		tui_attr_on(t, TUI_C_BAD);
		y += tui_wrap(y, 2, COLS - 4, why_rows, why);
		tui_attr_off(t, TUI_C_BAD);
	}
	tui_attr_on(t, TUI_C_WARN);
	y += tui_wrap(y, 2, COLS - 4, 3, ask);
	tui_attr_off(t, TUI_C_WARN);
	if (ps->msg[0] && y + 1 < LINES - 1) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y + 1, 2, COLS - 4, 1, ps->msg);
		tui_attr_off(t, TUI_C_BAD);
	}
	tui_word_draw(t, &ps->word, y);
}

/* Erasing makes no recovery key, the restart always makes one: neither has the box. */
static bool two_fields(const struct tui *t)
{
	return t->erasing || t->restarting;
}

/* Where a passphrase both fields agree on leads. */
static enum tui_screen next_screen(const struct tui *t)
{
	return t->erasing ? TUI_ERASE_CONFIRM : t->restarting ? TUI_RESTART : TUI_CONFIRM;
}

static void pass_draw(struct tui *t)
{
	struct pass_state *ps = t->state[TUI_PASS];
	const char *labels[] = { _("Passphrase:"), _("Again:") };
	struct fdw_strength_result s;
	char line[512];
	int y = 2, lw = 0, fw, field_y;

	tui_title(t, _("Choose the passphrase"));
	/* While a weak one waits for its word, its reason takes this paragraph's room. */
	if (!ps->weak_ask)
		y += tui_wrap(y, 2, COLS - 4, 3,
			      _("The passphrase unlocks the encrypted partition at every start. "
				"Without it the data cannot be read by anyone, you included: keep "
				"it safe.")) + 1;
	for (int i = 0; i < 2; i++)
		if (tui_width(labels[i]) > lw)
			lw = tui_width(labels[i]);
	fw = COLS - 6 - lw < 40 ? COLS - 6 - lw : 40;
	for (int i = 0; i < 2; i++) {
		tui_attr_on(t, TUI_C_KEY);
		tui_put(y + 2 * i, 2, lw, labels[i], true);
		tui_attr_off(t, TUI_C_KEY);
	}
	field_y = y;
	tui_masked(t, y + 2, 3 + lw, fw, t->pass[1], false);
	tui_masked(t, y, 3 + lw, fw, t->pass[0], false);
	y += 4;

	/* The engine's reason repeats the strength and its advice: it takes their place. */
	if (ps->weak_ask) {
		draw_weak(t, y);
		return;
	}
	fdw_strength_estimate(t->pass[0]->data, t->pass[0]->len, &s);
	if (s.level != FDW_STRENGTH_EMPTY) {
		snprintf(line, sizeof(line), _("Strength: %s."), fdw_strength_label(s.level));
		tui_attr_on(t, s.level == FDW_STRENGTH_STRONG ? TUI_C_GOOD :
			    s.level == FDW_STRENGTH_FAIR ? TUI_C_WARN : TUI_C_BAD);
		tui_put(y, 2, COLS - 4, line, false);
		tui_attr_off(t, s.level == FDW_STRENGTH_STRONG ? TUI_C_GOOD :
			     s.level == FDW_STRENGTH_FAIR ? TUI_C_WARN : TUI_C_BAD);
		tui_wrap(y + 1, 2, COLS - 4, 2, s.advice);
	}
	y += 3;
	if (ps->msg[0]) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y, 2, COLS - 4, 2, ps->msg);
		tui_attr_off(t, TUI_C_BAD);
	}
	y += 2;
	/* Erasing makes no recovery key, the restart always one: no box for either. */
	if (!two_fields(t)) {
		if (ps->focus == 2)
			tui_attr_on(t, TUI_C_SELECT);
		tui_put(y, 2, 4, tui_checkbox(t->recovery_key), false);
		if (ps->focus == 2)
			tui_attr_off(t, TUI_C_SELECT);
		tui_wrap(y, 6, COLS - 8, 2, _("Also make a recovery key (a long random key in a "
					       "second slot, shown once, to write down)"));
	}
	/* The cursor goes last: it marks the field being typed into. */
	if (ps->focus < 2) {
		curs_set(1);
		tui_masked(t, field_y + 2 * ps->focus, 3 + lw, fw, t->pass[ps->focus],
			   true);
	}
}

static void validate(struct tui *t)
{
	struct pass_state *ps = t->state[TUI_PASS];

	if (t->pass[0]->len == 0) {
		snprintf(ps->msg, sizeof(ps->msg), "%s", _("Type a passphrase."));
		ps->focus = 0;
		return;
	}
	if (ps->focus == 0) {
		ps->focus = 1;
		return;
	}
	if (!fdw_secret_equal(t->pass[0], t->pass[1])) {
		/* Both go: the user cannot see which one has the typo. */
		tui_wipe_passphrases(t);
		ps->focus = 0;
		snprintf(ps->msg, sizeof(ps->msg), "%s",
			 _("The two passphrases do not match. Type both again."));
		return;
	}
	ps->msg[0] = '\0';
	/* The engine decides: a weak one needs its own, explicit yes. */
	if (fdw_strength_check_new(t->pass[0]->data, t->pass[0]->len, false, ps->weak_why,
				   sizeof(ps->weak_why)) == -EPERM) {
		ps->weak_ask = true;
		tui_word_clear(&ps->word);
		return;
	}
	tui_go(t, next_screen(t));
}

static void weak_clear(struct pass_state *ps)
{
	ps->weak_ask = false;
	ps->weak_why[0] = '\0';
	tui_word_clear(&ps->word);
}

/* Keys while the weak passphrase waits for its typed word. */
static void weak_key(struct tui *t, struct tui_key k)
{
	struct pass_state *ps = t->state[TUI_PASS];
	char why[768];

	if (k.kind == TUI_KEY_ESC) {
		/* Back to the fields, emptied: a stronger one is typed afresh. */
		weak_clear(ps);
		tui_wipe_passphrases(t);
		ps->focus = 0;
		snprintf(ps->msg, sizeof(ps->msg), "%s", _("Type a stronger passphrase (several "
							   "unrelated words)."));
	} else if (k.kind == TUI_KEY_ENTER) {
		if (!tui_word_matches(&ps->word, WEAK_WORD) ||
		    fdw_strength_check_new(t->pass[0]->data, t->pass[0]->len, true, why,
					   sizeof(why)) != 0) {
			snprintf(ps->msg, sizeof(ps->msg), _("Not accepted: that was not %s."),
				 WEAK_WORD);
			tui_word_clear(&ps->word);
			return;
		}
		weak_clear(ps);
		ps->msg[0] = '\0';
		tui_go(t, next_screen(t));
	} else {
		tui_word_key(&ps->word, k);
	}
}

static void pass_key(struct tui *t, struct tui_key k)
{
	struct pass_state *ps = t->state[TUI_PASS];

	if (ps->weak_ask) {
		weak_key(t, k);
		return;
	}
	if (k.kind == TUI_KEY_ESC) {
		tui_wipe_passphrases(t);
		ps->msg[0] = '\0';
		/* The restart's screen, with the passphrase wiped, shows its plan again. */
		tui_go(t, t->erasing ? TUI_ERASE : t->restarting ? TUI_RESTART : TUI_PLAN);
	} else if (k.kind == TUI_KEY_TAB || k.kind == TUI_KEY_DOWN) {
		ps->focus = (ps->focus + 1) % (two_fields(t) ? 2 : 3);
	} else if (k.kind == TUI_KEY_BACKTAB || k.kind == TUI_KEY_UP) {
		ps->focus = (ps->focus + (two_fields(t) ? 1 : 2)) % (two_fields(t) ? 2 : 3);
	} else if (k.kind == TUI_KEY_ENTER) {
		validate(t);
	} else if (ps->focus == 2) {
		if (tui_key_is(k, ' '))
			t->recovery_key = !t->recovery_key;
	} else {
		/* A mismatch message says why both fields are empty; it goes once the second
		 * one is being typed again, so it never stands next to two new entries. */
		if (ps->focus == 1)
			ps->msg[0] = '\0';
		tui_secret_key(t->pass[ps->focus], k);
	}
}

/* The weak passphrase's word has keys of its own. */
static const char *pass_hint(const struct tui *t)
{
	const struct pass_state *ps = t->state[TUI_PASS];

	return ps->weak_ask ? N_("Enter: use it if the word is right  Esc: back") :
			      N_("Tab: next field  Enter: continue  Space: toggle the box  "
				 "Esc: back");
}

/* The passphrase is always typed afresh: coming back, the old one is wiped. */
static bool pass_enter(struct tui *t, enum tui_screen from)
{
	struct pass_state *ps = t->state[TUI_PASS];

	(void)from;
	tui_wipe_passphrases(t);
	ps->focus = 0;
	ps->msg[0] = '\0';
	weak_clear(ps);
	return true;
}

const struct tui_screen_ops tui_screen_pass = {
	.enter = pass_enter,
	.draw = pass_draw,
	.key = pass_key,
	.hint_of = pass_hint,
	.state_size = sizeof(struct pass_state),
	.text = true,
};
