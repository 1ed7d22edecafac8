/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase confirmation: names the partition and its size, says all of it goes; a typed word. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/base_api.h"
#include "curses.h"
#include "tui.h"
#include "typed_word.h"

/* The word typed, and why the last one was refused. */
struct erase_confirm_state {
	struct tui_typed_word word;
	char msg[256];
	bool working;			/* the erase runs: the screen says so */
};

/* TRANSLATORS: the word typed to destroy a partition's data; in capitals like YES. */
#define ERASE_WORD _("ERASE")
/* TRANSLATORS: typed to erase a partition that may hold encrypted data. */
#define RANDOM_WORD _("DESTROY")

/* Random-looking contents (perhaps encrypted data) take the command line's stronger word. */
static const char *word_needed(const struct tui *t)
{
	char buf[PATH_MAX + 256];

	return fdw_erase_random_warning(t->erase.e, buf, sizeof(buf)) ? RANDOM_WORD :
									  ERASE_WORD;
}

static void econfirm_draw(struct tui *t)
{
	struct erase_confirm_state *cs = t->state[TUI_ERASE_CONFIRM];
	char line[PATH_MAX + 512], after[256];
	int y = 2;

	tui_title(t, _("Confirm: erase and encrypt"));
	fdw_erase_confirm_text(t->erase.e, line, sizeof(line));
	tui_attr_on(t, TUI_C_BAD);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	y += tui_wrap(y, 2, COLS - 4, 3, _("Everything on it will be destroyed: its files, its "
					 "filesystem, any system installed there. This cannot "
					 "be undone."));
	if (fdw_erase_random_warning(t->erase.e, line, sizeof(line)))
		y += tui_wrap(y, 2, COLS - 4, 3, line);
	if (fdw_erase_boot_warning(t->erase.e, line, sizeof(line)))
		y += tui_wrap(y, 2, COLS - 4, 3, line);
	tui_attr_off(t, TUI_C_BAD);
	y++;
	fdw_erase_outcome(t->erase.e, line, sizeof(line), after, sizeof(after));
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	y += tui_wrap(y, 2, COLS - 4, 2, after) + 1;
	if (cs->working) {
		tui_attr_on(t, TUI_C_WARN);
		tui_wrap(y, 2, COLS - 4, 2, _("Erasing and encrypting... please wait."));
		tui_attr_off(t, TUI_C_WARN);
		return;
	}
	snprintf(line, sizeof(line), _("Type %s and press Enter to destroy the data. Esc goes "
				       "back; nothing has been changed yet."), word_needed(t));
	tui_attr_on(t, TUI_C_WARN);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	tui_attr_off(t, TUI_C_WARN);
	if (cs->msg[0] && y + 2 < LINES - 1) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y + 2, 2, COLS - 4, LINES - y - 3, cs->msg);
		tui_attr_off(t, TUI_C_BAD);
	}
	tui_word_draw(t, &cs->word, y);
}

/* No keys to offer while the erase runs. */
static const char *econfirm_hint(const struct tui *t)
{
	const struct erase_confirm_state *cs = t->state[TUI_ERASE_CONFIRM];

	return cs->working ? NULL : N_("Enter: erase if the word is right  Esc: back");
}

/* The word was right: the engine erases, then the result is shown. */
static void econfirm_run(struct tui *t)
{
	struct erase_confirm_state *cs = t->state[TUI_ERASE_CONFIRM];
	struct tui_erase *er = &t->erase;

	cs->working = true;
	tui_redraw(t);
	er->rc = fdw_erase_run(er->e, t->pass[0], &er->res, er->why, sizeof(er->why));
	er->done = true;
	cs->working = false;
	tui_wipe_passphrases(t);
	tui_go(t, TUI_ERASE_DONE);
}

static void econfirm_key(struct tui *t, struct tui_key k)
{
	struct erase_confirm_state *cs = t->state[TUI_ERASE_CONFIRM];

	if (k.kind == TUI_KEY_ESC) {
		/* Back to the passphrase: it is typed again, the old one is wiped. */
		tui_wipe_passphrases(t);
		tui_go(t, TUI_PASS);
	} else if (k.kind == TUI_KEY_ENTER) {
		if (tui_word_matches(&cs->word, word_needed(t))) {
			econfirm_run(t);
			return;
		}
		snprintf(cs->msg, sizeof(cs->msg), _("Not confirmed: that was not %s. Nothing was "
						     "changed."), word_needed(t));
		tui_word_clear(&cs->word);
	} else {
		tui_word_key(&cs->word, k);
	}
}

static bool econfirm_enter(struct tui *t, enum tui_screen from)
{
	struct erase_confirm_state *cs = t->state[TUI_ERASE_CONFIRM];

	(void)from;
	if (!t->erase.open)
		return false;
	memset(cs, 0, sizeof(*cs));
	return true;
}

const struct tui_screen_ops tui_screen_eraseconfirm = {
	.enter = econfirm_enter,
	.draw = econfirm_draw,
	.key = econfirm_key,
	.hint_of = econfirm_hint,
	.state_size = sizeof(struct erase_confirm_state),
	.text = true,
};
