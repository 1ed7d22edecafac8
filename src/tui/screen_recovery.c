/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Recovery key screen: the key, shown once while the conversion already runs. */
#include "config.h"

#include <limits.h>
#include <stdio.h>

#include "core/base/base_api.h"
#include "curses.h"
#include "tui.h"

/* Quitting leaves the key unseen for good: the first q only asks. */
struct recovery_state {
	bool quit_asked;
};

static void recovery_draw(struct tui *t)
{
	const char *lines[4] = {
		_("Write it down or print it now: it is shown only this once and is kept "
		  "nowhere else."),
		_("It opens the volume like the passphrase does; cryptsetup open accepts it "
		  "exactly as printed, dashes included."),
		_("Keep it away from this computer: whoever has it can read the data."),
		_("The conversion is already running in the background; it does not wait for "
		  "this screen."),
	};
	/* The restart's key comes before anything on the disk changes. */
	if (t->restarting)
		lines[3] = _("Nothing on the disk changes before the restart.");
	char line[PATH_MAX + 128];
	int y = 2, kw, x, bottom, need = 0;
	bool framed;

	tui_title(t, _("Recovery key"));
	if (!t->recovery)
		return;
	snprintf(line, sizeof(line), _("The recovery key of %s:"), t->address);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	bottom = LINES - 3;
	for (size_t i = 0; i < 3; i++)
		need += tui_wrap_count(COLS - 4, 3, lines[i]);
	/* The key on a line of its own, centred; framed by rules when there is room. */
	kw = (int)t->recovery->len;
	x = (COLS - kw) / 2 > 0 ? (COLS - kw) / 2 : 0;
	framed = y + 5 + need <= bottom;
	if (framed) {
		tui_hline(t, y + 1, x - 1 > 0 ? x - 1 : 0, kw + 2);
		tui_hline(t, y + 3, x - 1 > 0 ? x - 1 : 0, kw + 2);
		y += 2;
	} else {
		y++;
	}
	tui_attr_on(t, TUI_C_KEY);
	attron(A_BOLD);
	tui_put(y, x, kw, t->recovery->data, false);
	attroff(A_BOLD);
	tui_attr_off(t, TUI_C_KEY);
	y += framed ? 3 : 2;
	/* Whole sentences only, in order: the last one is the first to go. */
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int n = tui_wrap_count(COLS - 4, 3, lines[i]);

		if (y + n > bottom)
			break;
		if (i == 2)
			tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, n, lines[i]);
		if (i == 2)
			tui_attr_off(t, TUI_C_WARN);
	}
	tui_attr_on(t, TUI_C_KEY);
	tui_put(LINES - 2, 2, COLS - 4, _("I have written it down: press Enter."), false);
	tui_attr_off(t, TUI_C_KEY);
}

/* Without a key to show the screen is empty, hints included. */
static const char *recovery_hint(const struct tui *t)
{
	if (!t->recovery)
		return NULL;
	return t->restarting ? N_("Enter: written down, go on  q: quit (it stays prepared)") :
			       N_("Enter: written down, go on  q: quit (the conversion goes on)");
}

static void recovery_key(struct tui *t, struct tui_key k)
{
	struct recovery_state *rs = t->state[TUI_RECOVERY];

	if (k.kind == TUI_KEY_ENTER) {
		/* Either wipes the key. */
		tui_go(t, t->restarting ? TUI_RESTART : TUI_PROGRESS);
	} else if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
		if (!rs->quit_asked) {
			rs->quit_asked = true;
			tui_set_status(t, false, "%s", _("The key is not shown again. Press q "
							 "again to quit anyway, Enter once it "
							 "is written down."));
			return;
		}
		if (t->restarting)
			snprintf(t->farewell, sizeof(t->farewell),
				 _("%s is encrypted at the next restart; 'fdewiz cancel' undoes "
				   "that."), t->address);
		else
			snprintf(t->farewell, sizeof(t->farewell),
				 _("The conversion of %s continues in the background. Run fdewiz "
				   "again (or fdewiz status) to see it."), t->job.address);
		t->quit = true;
	} else {
		rs->quit_asked = false;
		tui_set_status(t, false, "%s", _("Press Enter once the recovery key is written "
						 "down."));
	}
}

static bool recovery_enter(struct tui *t, enum tui_screen from)
{
	struct recovery_state *rs = t->state[TUI_RECOVERY];

	(void)from;
	rs->quit_asked = false;
	return true;
}

const struct tui_screen_ops tui_screen_recovery = {
	.enter = recovery_enter,
	.draw = recovery_draw,
	.key = recovery_key,
	.hint_of = recovery_hint,
	.state_size = sizeof(struct recovery_state),
};
