/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase screen: for a reinstall, the filesystem, its label and what becomes of the new volume. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/base_api.h"
#include "curses.h"
#include "tui.h"

/* Which box has the focus, and why the choice was not taken. */
struct erase_state {
	int focus;			/* 0: filesystem; 1: label; 2: afterwards */
	char msg[1024];
};

enum { FOCUS_FS, FOCUS_LABEL, FOCUS_AFTER, FOCUS__COUNT };

static const char *after_text(enum fdw_erase_after a)
{
	switch (a) {
	case FDW_ERASE_AFTER_OPEN:
		return _("Leave it open (/dev/mapper/...) for an installer");
	case FDW_ERASE_AFTER_BOOT:
		return _("Open it at this system's boot (an entry in /etc/crypttab)");
	default:
		return _("Close it; open it later with the passphrase");
	}
}

/* Why filesystem @i cannot be made here, or NULL (the engine decides). */
static const char *fs_unavailable(size_t i, char *why, size_t len)
{
	return fdw_erase_check_fs(fdw_erase_fs_name(i), NULL, why, len) ? why : NULL;
}

static const char *after_unavailable(const struct tui *t, enum fdw_erase_after a)
{
	/* The wizard works on this system: its root is "/". */
	return fdw_erase_after_unavailable(t->erase.e, a, "/");
}

/* A radio line "(*) text", dim when it cannot be chosen; returns the rows used. */
static int radio(struct tui *t, int y, bool on, bool sel, bool grey, const char *text)
{
	char line[512];

	snprintf(line, sizeof(line), "%s %s", on ? "(*)" : "( )", text);
	if (sel)
		tui_attr_on(t, TUI_C_SELECT);
	else if (grey)
		tui_attr_on(t, TUI_C_DIM);
	tui_put(y, 4, COLS - 6, line, false);
	if (sel)
		tui_attr_off(t, TUI_C_SELECT);
	else if (grey)
		tui_attr_off(t, TUI_C_DIM);
	return 1;
}

static int draw_choices(struct tui *t, int y, int *label_y, int *label_x)
{
	struct erase_state *es = t->state[TUI_ERASE];
	struct tui_erase *er = &t->erase;
	char why[1024];
	int lx;

	tui_attr_on(t, TUI_C_KEY);
	tui_put(y++, 2, COLS - 4, _("Filesystem inside:"), false);
	tui_attr_off(t, TUI_C_KEY);
	for (size_t i = 0; fdw_erase_fs_name(i); i++)
		y += radio(t, y, i == er->fs, es->focus == FOCUS_FS && i == er->fs,
			   fs_unavailable(i, why, sizeof(why)) != NULL, fdw_erase_fs_name(i));
	tui_attr_on(t, TUI_C_KEY);
	lx = 2 + tui_put(y, 2, COLS - 4, _("Label:"), false) + 1;
	tui_attr_off(t, TUI_C_KEY);
	if (es->focus == FOCUS_LABEL)
		tui_attr_on(t, TUI_C_SELECT);
	tui_put(y, lx, 20, er->label, true);
	if (es->focus == FOCUS_LABEL)
		tui_attr_off(t, TUI_C_SELECT);
	*label_y = y++;
	*label_x = lx + tui_width(er->label);
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y++, 2, COLS - 4, _("Afterwards:"), false);
	tui_attr_off(t, TUI_C_KEY);
	for (int a = 0; a < FDW_ERASE_AFTER__COUNT; a++)
		y += radio(t, y, (int)er->after == a, es->focus == FOCUS_AFTER && (int)er->after == a,
			   after_unavailable(t, (enum fdw_erase_after)a) != NULL,
			   after_text((enum fdw_erase_after)a));
	return y;
}

static void erase_draw(struct tui *t)
{
	struct erase_state *es = t->state[TUI_ERASE];
	struct tui_erase *er = &t->erase;
	const char *no = NULL;
	char line[2048], why[1024];
	int y = 2, ly, lx;

	tui_title(t, _("Erase and encrypt (for a reinstall)"));
	fdw_erase_confirm_text(er->e, line, sizeof(line));
	tui_attr_on(t, TUI_C_WARN);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	tui_attr_off(t, TUI_C_WARN);
	/* Boot files on it: what stops starting comes before anything is chosen. */
	if (fdw_erase_boot_warning(er->e, line, sizeof(line))) {
		tui_attr_on(t, TUI_C_BAD);
		y += tui_wrap(y, 2, COLS - 4, 3, line);
		tui_attr_off(t, TUI_C_BAD);
	}
	/* On the smallest terminals the choices and their reason come first. */
	if (LINES >= 24)
		y += tui_wrap(y, 2, COLS - 4, 2, _("It becomes a new, empty encrypted volume, "
						 "ready for a system to be installed onto "
						 "it.")) + 1;
	y = draw_choices(t, y, &ly, &lx) + (LINES >= 24);
	/* The last refusal, else why the highlighted choice cannot be made. */
	if (es->msg[0])
		no = es->msg;
	else if (es->focus == FOCUS_FS)
		no = fs_unavailable(er->fs, why, sizeof(why));
	else if (es->focus == FOCUS_AFTER)
		no = after_unavailable(t, er->after);
	if (no && y < LINES - 1) {
		tui_attr_on(t, TUI_C_BAD);
		tui_wrap(y, 2, COLS - 4, LINES - 1 - y, no);
		tui_attr_off(t, TUI_C_BAD);
	}
	if (es->focus == FOCUS_LABEL) {
		curs_set(1);
		move(ly, lx < COLS - 1 ? lx : COLS - 1);
	}
}

/* What was chosen, checked by the engine; on to the passphrase when it agrees. */
static void erase_continue(struct tui *t)
{
	struct erase_state *es = t->state[TUI_ERASE];
	struct tui_erase *er = &t->erase;
	struct fdw_erase_options o = {
		.fs = fdw_erase_fs_name(er->fs), .label = er->label, .after = er->after,
		.fast_pbkdf = t->fast_pbkdf, .root = "/",
	};

	if (fdw_erase_set_options(er->e, &o, es->msg, sizeof(es->msg)))
		return;
	es->msg[0] = '\0';
	tui_go(t, TUI_PASS);
}

/* Up/Down in the focused box: the next choice, unavailable ones included (they say why). */
static void erase_move(struct tui *t, int dir)
{
	struct erase_state *es = t->state[TUI_ERASE];
	struct tui_erase *er = &t->erase;
	int n = 0;

	es->msg[0] = '\0';
	if (es->focus == FOCUS_FS) {
		while (fdw_erase_fs_name((size_t)n))
			n++;
		er->fs = (size_t)(((int)er->fs + n + dir) % n);
	} else if (es->focus == FOCUS_AFTER) {
		er->after = (enum fdw_erase_after)(((int)er->after + FDW_ERASE_AFTER__COUNT + dir) %
						   FDW_ERASE_AFTER__COUNT);
	}
}

static void erase_key(struct tui *t, struct tui_key k)
{
	struct erase_state *es = t->state[TUI_ERASE];
	struct tui_erase *er = &t->erase;

	if (k.kind == TUI_KEY_ESC) {
		/* Nothing was changed: back to the disks, read again. */
		tui_release_erase(t);
		tui_go(t, TUI_DISKS);
	} else if (k.kind == TUI_KEY_TAB) {
		es->focus = (es->focus + 1) % FOCUS__COUNT;
	} else if (k.kind == TUI_KEY_BACKTAB) {
		es->focus = (es->focus + FOCUS__COUNT - 1) % FOCUS__COUNT;
	} else if (k.kind == TUI_KEY_UP || k.kind == TUI_KEY_DOWN) {
		erase_move(t, k.kind == TUI_KEY_UP ? -1 : 1);
	} else if (k.kind == TUI_KEY_ENTER) {
		erase_continue(t);
	} else if (es->focus == FOCUS_LABEL) {
		es->msg[0] = '\0';
		tui_field_key(er->label, &er->label_len, sizeof(er->label), k);
	} else if (tui_key_is(k, 'q')) {
		t->quit = true;
	}
}

/* The default filesystem when the engine can make it here, else the first it can. */
static size_t first_fs(void)
{
	char why[1024];
	size_t first = SIZE_MAX;

	for (size_t i = 0; fdw_erase_fs_name(i); i++) {
		if (fs_unavailable(i, why, sizeof(why)))
			continue;
		if (!strcmp(fdw_erase_fs_name(i), FDW_ERASE_DEFAULT_FS))
			return i;
		if (first == SIZE_MAX)
			first = i;
	}
	return first == SIZE_MAX ? 0 : first;
}

/* From the disks or the plan: a new erase of t->chosen, checked at once (nothing written). */
static bool erase_enter(struct tui *t, enum tui_screen from)
{
	struct erase_state *es = t->state[TUI_ERASE];
	struct tui_erase *er = &t->erase;
	struct fdw_erase_options o = { .fs = "none", .root = "/" };
	char why[2048];

	t->erasing = true;
	if (from == TUI_PASS)
		return true;
	tui_release_plan(t);	/* its lock: the erase takes the partition's own */
	tui_release_erase(t);
	t->erasing = true;
	memset(er, 0, sizeof(*er));
	memset(es, 0, sizeof(*es));
	if (fdw_erase_prepare(&er->e, t->chosen, &o, why, sizeof(why))) {
		fdw_erase_close(er->e);
		er->e = NULL;
		t->erasing = false;
		tui_show_dialog(t, _("Cannot erase"), why);
		tui_go(t, TUI_DISKS);
		return false;
	}
	er->open = true;
	er->fs = first_fs();
	er->after = FDW_ERASE_AFTER_CLOSE;
	return true;
}

const struct tui_screen_ops tui_screen_erase = {
	.enter = erase_enter,
	.draw = erase_draw,
	.key = erase_key,
	.hint = N_("Tab: next box  Up/Down: choose  Enter: continue  Esc: back  q: quit"),
	.state_size = sizeof(struct erase_state),
	.text = true,
};
