/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The running system's root, encrypted at the next restart: its plan, the typed YES, the
 * preparation (in a thread: the baseline benchmark, the key derivation and the initramfs
 * take a while), and what is prepared, with the way to undo it. The passphrase and the
 * recovery key screens serve it in between (t->restarting).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "curses.h"
#include "tui.h"
#include "typed_word.h"

enum restart_mode {
	RS_PLAN,	/* what happens when; Enter: the passphrase */
	RS_CONFIRM,	/* the typed YES */
	RS_PREPARING,	/* the preparation's thread runs */
	RS_PREPARED,	/* restart when ready; c cancels */
};

struct restart_state {
	enum restart_mode mode;
	struct fdw_restart_stage stage;
	bool bench;
	struct tui_typed_word word;
	char msg[1024];
	bool cancel_asked;

	/* The preparation's thread and its result. */
	pthread_t thread;
	int done;		/* set (atomically) by the thread as it ends */
	int rc;
	struct fdw_restart_result res;
	char why[1024];
	struct tui *t;
};

#define CONFIRM_WORD _("YES")

static struct restart_state *state_of(struct tui *t)
{
	return t->state[TUI_RESTART];
}

static void *prepare_main(void *arg)
{
	struct restart_state *rs = arg;
	struct fdw_restart_options o = {
		.fast_pbkdf = rs->t->fast_pbkdf, .bench = rs->bench,
		.bench_scale = getenv("FDEWIZ_TEST_BENCH_SCALE"),
	};

	rs->rc = fdw_restart_arm(rs->t->address, rs->t->pass[0], &o, &rs->res, rs->why,
				 sizeof(rs->why));
	__atomic_store_n(&rs->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int draw_plan(struct tui *t, struct restart_state *rs, int y)
{
	char steps[FDW_RESTART_PLAN_STEPS][FDW_RESTART_PLAN_LEN];
	char line[sizeof(steps) + PATH_MAX];

	snprintf(line, sizeof(line), _("%s holds the running system. It is encrypted with one "
				       "restart:"), t->address);
	y += tui_wrap(y, 2, COLS - 4, 2, line) + 1;
	fdw_restart_plan(&rs->stage, steps);
	/* A step takes the lines it needs (the step at the restart, with a move of /boot,
	 * six at 100 columns): cut at a fixed count, its last sentence was lost. */
	for (int i = 0; i < FDW_RESTART_PLAN_STEPS && y < LINES - 6; i++) {
		snprintf(line, sizeof(line), "%d. %s", i + 1, steps[i]);
		y += tui_wrap(y, 2, COLS - 4, LINES - 6 - y, line);
	}
	y++;
	if (rs->mode == RS_PLAN && !fdw_restart_can_bench(&rs->stage)) {
		y += tui_wrap(y, 2, COLS - 4, 2, _("No benchmark: an LVM physical volume holds no "
						 "filesystem of its own to measure."));
	} else if (rs->mode == RS_PLAN) {
		tui_put(y, 2, 4, tui_checkbox(rs->bench), false);
		y += tui_wrap(y, 6, COLS - 8, 2, _("Measure the speed of the plain root now and "
						 "of the encrypted one at the end (b)"));
	}
	return y;
}

static void draw_prepared(struct tui *t, struct restart_state *rs, int y)
{
	char line[PATH_MAX + 512];

	snprintf(line, sizeof(line), _("Prepared: %s is encrypted at the next restart."),
		 rs->stage.address);
	tui_attr_on(t, TUI_C_GOOD);
	y += tui_wrap(y, 2, COLS - 4, 2, line) + 1;
	tui_attr_off(t, TUI_C_GOOD);
	fdw_restart_kernels_text(line, sizeof(line));
	if (line[0])
		y += tui_wrap(y, 2, COLS - 4, 3, line) + 1;
	y += tui_wrap(y, 2, COLS - 4, 4,
		      _("Restart when you are ready. The passphrase is asked before the system "
			"starts; the conversion then runs in the background, and fdewiz shows "
			"its progress (pause and resume work on it).")) + 1;
	tui_wrap(y, 2, COLS - 4, 3, _("Without a restart nothing happens. c cancels the "
				      "preparation: the initramfs as before, the prepared "
				      "header removed."));
}

static void draw_confirm(struct tui *t, struct restart_state *rs, int y)
{
	char line[256];

	snprintf(line, sizeof(line), _("Type %s and press Enter to prepare it. Esc goes back; "
				       "nothing has been changed yet."), CONFIRM_WORD);
	tui_attr_on(t, TUI_C_WARN);
	y += tui_wrap(y, 2, COLS - 4, 2, line) + 1;
	tui_attr_off(t, TUI_C_WARN);
	if (rs->msg[0]) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y + 2, 2, COLS - 4, LINES - y - 4, rs->msg);
		tui_attr_off(t, TUI_C_BAD);
	}
	/* Last: drawing the field moves the cursor. */
	tui_word_draw(t, &rs->word, y);
}

static void restart_draw(struct tui *t)
{
	struct restart_state *rs = state_of(t);
	int y = 2;

	tui_title(t, _("Encrypt at the next restart"));
	if (rs->mode == RS_PREPARED) {
		draw_prepared(t, rs, y);
		return;
	}
	y = draw_plan(t, rs, y);
	if (rs->mode == RS_PREPARING) {
		tui_attr_on(t, TUI_C_WARN);
		tui_wrap(y, 2, COLS - 4, 3, rs->bench ?
			 _("Preparing: the plain root's benchmark, the header's key derivation "
			   "and the initramfs take a few minutes...") :
			 _("Preparing: the header's key derivation and the initramfs take a "
			   "while..."));
		tui_attr_off(t, TUI_C_WARN);
		return;
	}
	if (rs->mode == RS_CONFIRM)
		draw_confirm(t, rs, y);
}

static void start_preparing(struct tui *t, struct restart_state *rs)
{
	int rc;

	rs->done = 0;
	rs->t = t;
	memset(&rs->res, 0, sizeof(rs->res));
	tui_hold_suspend(true);
	rc = pthread_create(&rs->thread, NULL, prepare_main, rs);
	if (rc) {
		tui_hold_suspend(false);
		tui_wipe_passphrases(t);
		tui_show_dialog(t, _("Not prepared"), strerror(rc));
		tui_go(t, TUI_DISKS);
		return;
	}
	rs->mode = RS_PREPARING;
}

/* The preparation ended: the key to write down, or why nothing was prepared. */
static void restart_tick(struct tui *t)
{
	struct restart_state *rs = state_of(t);

	if (rs->mode != RS_PREPARING || !__atomic_load_n(&rs->done, __ATOMIC_ACQUIRE))
		return;
	pthread_join(rs->thread, NULL);
	tui_hold_suspend(false);
	tui_wipe_passphrases(t);
	if (rs->rc) {
		fdw_restart_result_wipe(&rs->res);
		t->restarting = false;
		tui_show_dialog(t, _("Not prepared"), rs->why);
		tui_go(t, TUI_DISKS);
		return;
	}
	rs->stage = rs->res.stage;
	rs->mode = RS_PREPARED;
	/* The key is the recovery screen's now, which comes back here once it is seen. */
	t->recovery = rs->res.recovery;
	rs->res.recovery = NULL;
	if (t->recovery)
		tui_go(t, TUI_RECOVERY);
}

static void cancel_preparation(struct tui *t, struct restart_state *rs)
{
	char why[1024];

	if (!rs->cancel_asked) {
		rs->cancel_asked = true;
		tui_set_status(t, false, "%s", _("Press c again to cancel the preparation."));
		return;
	}
	rs->cancel_asked = false;
	tui_set_status(t, false, "%s", _("Cancelling (the initramfs is put back)..."));
	tui_redraw(t);
	if (fdw_restart_cancel(why, sizeof(why)) != 0) {
		tui_show_dialog(t, _("Not cancelled"), why);
		return;
	}
	t->restarting = false;
	tui_show_dialog(t, _("Cancelled"), _("The initramfs no longer carries fdewiz's step and "
					     "the prepared header is removed; the system starts "
					     "as before."));
	tui_go(t, TUI_DISKS);
}

static void restart_key(struct tui *t, struct tui_key k)
{
	struct restart_state *rs = state_of(t);

	if (rs->mode == RS_PREPARING)
		return;		/* the thread must finish: it undoes itself on failure */
	if (rs->mode == RS_PREPARED) {
		if (tui_key_is(k, 'c')) {
			cancel_preparation(t, rs);
			return;
		}
		rs->cancel_asked = false;
		if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
			snprintf(t->farewell, sizeof(t->farewell),
				 _("%s is encrypted at the next restart; 'fdewiz cancel' undoes "
				   "that."), rs->stage.address);
			t->quit = true;
		}
		return;
	}
	if (rs->mode == RS_PLAN) {
		if (k.kind == TUI_KEY_ESC) {
			t->restarting = false;
			tui_go(t, TUI_DISKS);
		} else if (k.kind == TUI_KEY_ENTER) {
			t->restarting = true;
			tui_go(t, TUI_PASS);
		} else if (tui_key_is(k, 'b') && fdw_restart_can_bench(&rs->stage)) {
			rs->bench = !rs->bench;
		}
		return;
	}
	/* RS_CONFIRM */
	if (k.kind == TUI_KEY_ESC) {
		tui_wipe_passphrases(t);
		tui_go(t, TUI_PASS);
	} else if (k.kind == TUI_KEY_ENTER) {
		if (tui_word_matches(&rs->word, CONFIRM_WORD)) {
			rs->msg[0] = '\0';
			start_preparing(t, rs);
			return;
		}
		snprintf(rs->msg, sizeof(rs->msg), _("Not confirmed: that was not %s. Nothing "
						    "was changed."), CONFIRM_WORD);
		tui_word_clear(&rs->word);
	} else {
		tui_word_key(&rs->word, k);
	}
}

static bool enter_plan(struct tui *t, struct restart_state *rs)
{
	char why[1024];

	snprintf(t->address, sizeof(t->address), "%s", t->chosen);
	if (fdw_restart_check(t->address, &rs->stage, why, sizeof(why)) != 0) {
		t->restarting = false;
		tui_show_dialog(t, _("Not at a restart"), why);
		return false;
	}
	rs->mode = RS_PLAN;
	rs->bench = rs->bench && fdw_restart_can_bench(&rs->stage);
	return true;
}

static bool restart_enter(struct tui *t, enum tui_screen from)
{
	struct restart_state *rs = state_of(t);

	rs->cancel_asked = false;
	rs->msg[0] = '\0';
	tui_word_clear(&rs->word);
	if (from == TUI_RECOVERY) {
		fdw_secret_free(t->recovery);	/* seen and written down */
		t->recovery = NULL;
		return true;
	}
	/* The passphrase screen comes back with both fields agreed, or wiped by Esc. */
	if (from == TUI_PASS && t->pass[0]->len) {
		rs->mode = RS_CONFIRM;
		return true;
	}
	if (from == TUI_PASS)
		return enter_plan(t, rs);
	if (from == TUI_DISKS) {
		rs->bench = t->bench_baseline;
		return enter_plan(t, rs);
	}
	/* Opened by the wizard's start: a preparation waiting for its restart. */
	if (!fdw_restart_prepared(&rs->stage))
		return false;
	snprintf(t->address, sizeof(t->address), "%s", rs->stage.address);
	t->restarting = true;
	rs->mode = RS_PREPARED;
	return true;
}

static const char *restart_hint(const struct tui *t)
{
	const struct restart_state *rs = t->state[TUI_RESTART];

	switch (rs->mode) {
	case RS_PLAN:
		return N_("Enter: choose the passphrase  b: benchmark on/off  Esc: back");
	case RS_CONFIRM:
		return N_("Enter: prepare if the word is right  Esc: back");
	case RS_PREPARED:
		return N_("c: cancel the preparation  q: quit");
	default:
		return NULL;
	}
}

static void restart_free(void *state)
{
	struct restart_state *rs = state;

	fdw_restart_result_wipe(&rs->res);
}

const struct tui_screen_ops tui_screen_restart = {
	.enter = restart_enter,
	.draw = restart_draw,
	.key = restart_key,
	.hint_of = restart_hint,
	.tick = restart_tick,
	.state_size = sizeof(struct restart_state),
	.free_state = restart_free,
	.text = true,
};
