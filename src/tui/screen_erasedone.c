/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase result: the new volume and how to use it, or how far the erase got and what to do. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/base/base_api.h"
#include "curses.h"
#include "tui.h"

/* The engine's report (or its reason), as shown and as said again after the wizard quits. */
static void report(const struct tui *t, char *buf, size_t len)
{
	const struct tui_erase *er = &t->erase;

	if (er->rc)
		snprintf(buf, len, _("erase-encrypt %s: %s."), fdw_erase_address(er->e), er->why);
	else
		fdw_erase_report(er->e, &er->res, buf, len);
}

static void edone_draw(struct tui *t)
{
	char text[8192], *line, *save = NULL;
	int y = 2;

	tui_title(t, t->erase.rc ? _("The erase did not finish") : _("Erased and encrypted"));
	report(t, text, sizeof(text));
	tui_attr_on(t, t->erase.rc ? TUI_C_BAD : TUI_C_GOOD);
	for (line = strtok_r(text, "\n", &save); line && y < LINES - 2;
	     line = strtok_r(NULL, "\n", &save))
		y += tui_wrap(y, 2, COLS - 4, LINES - 2 - y, line) + 1;
	tui_attr_off(t, t->erase.rc ? TUI_C_BAD : TUI_C_GOOD);
}

static void edone_key(struct tui *t, struct tui_key k)
{
	if (tui_key_is(k, 'd')) {
		tui_release_erase(t);
		tui_go(t, TUI_DISKS);
	} else if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ENTER || k.kind == TUI_KEY_ESC) {
		t->quit = true;
	}
}

static bool edone_enter(struct tui *t, enum tui_screen from)
{
	size_t n;

	(void)from;
	if (!t->erase.done)
		return false;
	/* Said again on the terminal once the wizard has quit; the exit status tells too. */
	report(t, t->farewell, sizeof(t->farewell));
	n = strlen(t->farewell);
	while (n && t->farewell[n - 1] == '\n')
		t->farewell[--n] = '\0';
	t->exit_code = t->erase.rc ? 1 : 0;
	return true;
}

const struct tui_screen_ops tui_screen_erasedone = {
	.enter = edone_enter,
	.draw = edone_draw,
	.key = edone_key,
	.hint = N_("d: disks  q: quit"),
};
