/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Decrypt in place: what it does, the typed YES and the passphrase, then the engine's
 * decryption in a thread of its own (the screen keeps drawing its progress, p stops it at
 * a safe point), then what the engine said.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "curses.h"
#include "tui.h"
#include "typed_word.h"

enum decrypt_phase { ASKING, RUNNING, ENDED };

struct decrypt_state {
	struct fdw_decrypt *d;		/* the engine's: the partition locked and checked */
	enum decrypt_phase phase;
	struct tui_typed_word word;
	int focus;			/* 0: the word, 1: the passphrase */
	char msg[256];			/* why the last Enter was refused */
	struct fdw_secret *pass;	/* the wizard's passphrase field (t->pass[0]) */
	pthread_t thread;
	pthread_mutex_t lock;		/* @p and @said, written by the thread */
	bool lock_made;
	struct fdw_foreground_progress p;
	char said[4096];		/* what the engine said, a line each */
	int rc;
	int finished;			/* the thread is done (atomic) */
	bool stopping;
};

/* TRANSLATORS: the word typed to confirm a decryption; in capitals like YES elsewhere. */
#define DECRYPT_WORD _("YES")

static struct decrypt_state *state_of(struct tui *t)
{
	return t->state[TUI_DECRYPT];
}

static void on_progress(const struct fdw_foreground_progress *p, void *ctx)
{
	struct decrypt_state *st = ctx;

	pthread_mutex_lock(&st->lock);
	st->p = *p;
	pthread_mutex_unlock(&st->lock);
}

static void on_say(enum fdw_say kind, const char *line, void *ctx)
{
	struct decrypt_state *st = ctx;
	size_t n;

	pthread_mutex_lock(&st->lock);
	n = strlen(st->said);
	snprintf(st->said + n, sizeof(st->said) - n, "%s%s%s", n ? "\n" : "",
		 kind == FDW_SAY_LIST_ITEM ? "  " : "", line);
	pthread_mutex_unlock(&st->lock);
}

static void *decrypt_main(void *arg)
{
	struct decrypt_state *st = arg;
	const struct fdw_foreground_ops ops = { .progress = on_progress, .say = on_say, .ctx = st };

	st->rc = fdw_decrypt_run(st->d, NULL, st->pass, &ops);
	__atomic_store_n(&st->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void draw_asking(struct tui *t, struct decrypt_state *st, int y)
{
	char line[PATH_MAX + 512];
	bool cont = fdw_decrypt_continuing(st->d);
	int word_y = y;

	if (cont)
		snprintf(line, sizeof(line), _("The decryption of %s is under way: it goes on from "
					       "where it stopped."), fdw_decrypt_address(st->d));
	else
		snprintf(line, sizeof(line), _("%s: its data is moved back to the start of the "
					       "partition as plain data, readable without a "
					       "passphrase, and its filesystem grows back to the "
					       "whole partition. The header is saved first."),
			 fdw_decrypt_address(st->d));
	y += tui_wrap(y, 2, COLS - 4, 4, line) + 1;
	if (!cont) {
		snprintf(line, sizeof(line), _("Type %s to decrypt it:"), DECRYPT_WORD);
		tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, 2, line);
		tui_attr_off(t, TUI_C_WARN);
		word_y = y;
		y += 2;
	}
	tui_put(y, 2, COLS - 4, _("Passphrase or recovery key:"), false);
	tui_masked(t, y + 1, 4, COLS - 8 > 40 ? 40 : COLS - 8, st->pass, st->focus == 1);
	if (st->msg[0]) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y + 3, 2, COLS - 4, 2, st->msg);
		tui_attr_off(t, TUI_C_BAD);
	}
	/* Last: drawing the field puts the cursor there. */
	if (!cont && st->focus == 0)
		tui_word_draw(t, &st->word, word_y);
}

static void draw_running(struct tui *t, struct decrypt_state *st, int y)
{
	struct fdw_foreground_progress p;
	char line[256], done[32], total[32];

	pthread_mutex_lock(&st->lock);
	p = st->p;
	pthread_mutex_unlock(&st->lock);
	snprintf(line, sizeof(line), _("Decrypting %s"), fdw_decrypt_address(st->d));
	y += tui_wrap(y, 2, COLS - 4, 2, line) + 1;
	tui_bar(t, y, 2, COLS - 4, p.percent / 100.0, TUI_C_BAR_PLAIN);
	snprintf(line, sizeof(line), _("%5.1f%%  %s of %s"), p.percent,
		 fdw_format_size(p.done, done, sizeof(done)),
		 fdw_format_size(p.total, total, sizeof(total)));
	tui_put(y + 2, 2, COLS - 4, line, false);
	if (st->stopping)
		tui_put(y + 4, 2, COLS - 4, _("Stopping at the next safe point..."), false);
}

static void decrypt_draw(struct tui *t)
{
	struct decrypt_state *st = state_of(t);

	tui_title(t, _("Decrypt in place"));
	if (st->phase == ASKING) {
		draw_asking(t, st, 2);
	} else if (st->phase == RUNNING) {
		draw_running(t, st, 2);
	} else {
		tui_attr_on(t, st->rc ? TUI_C_BAD : TUI_C_GOOD);
		tui_wrap(2, 2, COLS - 4, LINES - 5, st->said);
		tui_attr_off(t, st->rc ? TUI_C_BAD : TUI_C_GOOD);
	}
}

static const char *decrypt_hint(const struct tui *t)
{
	const struct decrypt_state *st = t->state[TUI_DECRYPT];

	if (st->phase == ASKING)
		return N_("Tab: next field  Enter: decrypt  Esc: back, nothing changed");
	if (st->phase == RUNNING)
		return N_("p: stop at a safe point (it goes on later)");
	return N_("Enter: back to the disks");
}

/* The word and the passphrase are there: the engine runs in its thread. */
static void decrypt_start(struct tui *t, struct decrypt_state *st)
{
	int rc;

	if (!fdw_decrypt_continuing(st->d) && !tui_word_matches(&st->word, DECRYPT_WORD)) {
		snprintf(st->msg, sizeof(st->msg), _("Not confirmed: that was not %s. Nothing was "
						     "changed."), DECRYPT_WORD);
		tui_word_clear(&st->word);
		st->focus = 0;
		return;
	}
	if (st->pass->len == 0) {
		snprintf(st->msg, sizeof(st->msg), "%s", _("Type the passphrase."));
		st->focus = 1;
		return;
	}
	if (!st->lock_made)
		st->lock_made = pthread_mutex_init(&st->lock, NULL) == 0;
	st->said[0] = '\0';
	st->finished = 0;
	tui_hold_suspend(true);
	rc = pthread_create(&st->thread, NULL, decrypt_main, st);
	if (rc) {
		tui_hold_suspend(false);
		snprintf(st->msg, sizeof(st->msg), "%s", strerror(rc));
		return;
	}
	st->phase = RUNNING;
}

static void decrypt_key(struct tui *t, struct tui_key k)
{
	struct decrypt_state *st = state_of(t);

	if (st->phase == RUNNING) {
		if (tui_key_is(k, 'p') && !st->stopping) {
			st->stopping = true;
			fdw_decrypt_request_stop();
		}
		return;
	}
	if (st->phase == ENDED) {
		if (k.kind == TUI_KEY_ENTER || k.kind == TUI_KEY_ESC || tui_key_is(k, 'q'))
			tui_go(t, TUI_DISKS);
		return;
	}
	if (k.kind == TUI_KEY_ESC) {
		tui_go(t, TUI_DISKS);
	} else if (k.kind == TUI_KEY_TAB || k.kind == TUI_KEY_BACKTAB) {
		st->focus = fdw_decrypt_continuing(st->d) ? 1 : !st->focus;
	} else if (k.kind == TUI_KEY_ENTER) {
		if (st->focus == 0 && !fdw_decrypt_continuing(st->d))
			st->focus = 1;
		else
			decrypt_start(t, st);
	} else if (st->focus == 0) {
		tui_word_key(&st->word, k);
	} else {
		tui_secret_key(st->pass, k);
	}
}

/* In the main loop: once the engine is done, what it said, and the lock given back. */
static void decrypt_poll(struct tui *t)
{
	struct decrypt_state *st = state_of(t);

	if (!st || st->phase != RUNNING || !__atomic_load_n(&st->finished, __ATOMIC_ACQUIRE))
		return;
	pthread_join(st->thread, NULL);
	tui_hold_suspend(false);
	tui_wipe_passphrases(t);
	fdw_decrypt_close(st->d);
	st->d = NULL;
	if (!st->said[0])
		snprintf(st->said, sizeof(st->said), "%s", strerror(-st->rc));
	tui_capitalise(st->said);
	st->phase = ENDED;
}

static bool decrypt_enter(struct tui *t, enum tui_screen from)
{
	struct decrypt_state *st = state_of(t);
	char why[PATH_MAX + 1024];

	(void)from;
	fdw_decrypt_close(st->d);
	st->d = NULL;
	if (fdw_decrypt_prepare(t->chosen, &st->d, why, sizeof(why)) != 0) {
		tui_capitalise(why);
		tui_set_status(t, true, "%s", why);
		return false;
	}
	st->phase = ASKING;
	st->stopping = false;
	st->msg[0] = '\0';
	tui_word_clear(&st->word);
	st->pass = t->pass[0];
	tui_secret_clear(st->pass);
	st->focus = fdw_decrypt_continuing(st->d) ? 1 : 0;
	return true;
}

static void decrypt_free(void *state)
{
	struct decrypt_state *st = state;

	if (st->phase == RUNNING)
		pthread_join(st->thread, NULL);
	fdw_decrypt_close(st->d);
	if (st->lock_made)
		pthread_mutex_destroy(&st->lock);
}

const struct tui_screen_ops tui_screen_decrypt = {
	.enter = decrypt_enter,
	.draw = decrypt_draw,
	.key = decrypt_key,
	.hint_of = decrypt_hint,
	.poll = decrypt_poll,
	.state_size = sizeof(struct decrypt_state),
	.free_state = decrypt_free,
	.text = true,
};
