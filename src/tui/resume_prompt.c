/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The resume prompt over the screen: the passphrase, then the engine's one resume
 * (core/convert/resume.h), whose words are shown as the command line prints them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tui.h"

/* What the engine said while it resumed, a line each, for the dialog. */
struct said {
	char text[sizeof(((struct tui *)0)->dialog)];
};

static void collect(enum fdw_say kind, const char *line, void *ctx)
{
	struct said *s = ctx;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%s%s%s", n ? "\n" : "",
		 kind == FDW_SAY_LIST_ITEM ? "  " : "", line);
}

static void prompt_closed(struct tui *t)
{
	tui_secret_clear(t->prompt_pass);
	t->prompt = TUI_PROMPT_NONE;
	t->prompt_msg[0] = '\0';
}

/* Resumed, or it could not be: what the engine said, and where the wizard goes next. */
static void resume_ended(struct tui *t, enum fdw_resume_kind kind, pid_t worker, int rc,
			 const struct said *said, const char *why)
{
	if (worker) {
		tui_set_status(t, false, "%s", _("Resumed: converting in the background."));
		t->have_prog = false;
		tui_go(t, TUI_PROGRESS);
		return;
	}
	if (rc) {
		char text[sizeof(said->text)];

		snprintf(text, sizeof(text), "%s%s%s", said->text,
			 said->text[0] && why[0] ? "\n" : "", why[0] ? why : "");
		tui_show_dialog(t, _("Not resumed"), text[0] ? text : strerror(-rc));
		return;
	}
	/* A step done here, in the foreground: the list shows what is left now, or the
	 * disks when nothing is. */
	tui_show_dialog(t, kind == FDW_RESUME_BOOT_STEPS ? _("Step done") : _("Resumed"),
			said->text);
	if (!tui_go(t, TUI_START))
		tui_go(t, TUI_DISKS);
}

static void prompt_key(struct tui *t, struct tui_key k)
{
	struct said said = { "" };
	const struct fdw_foreground_ops ops = { .say = collect, .ctx = &said };
	const struct fdw_resume_how how = { .ops = &ops };
	enum fdw_resume_kind kind = FDW_RESUME_CONVERSION;
	struct fdw_resume *r = NULL;
	char why[1024] = "";
	pid_t worker = 0;
	int rc;

	if (k.kind == TUI_KEY_ESC) {
		prompt_closed(t);
		tui_set_status(t, false, "%s", _("Not resumed. Nothing was changed."));
		return;
	}
	if (k.kind != TUI_KEY_ENTER) {
		tui_secret_key(t->prompt_pass, k);
		return;
	}
	if (t->prompt_pass->len == 0) {
		snprintf(t->prompt_msg, sizeof(t->prompt_msg), "%s", _("Type the passphrase."));
		return;
	}
	snprintf(t->prompt_msg, sizeof(t->prompt_msg), "%s", _("Checking the passphrase..."));
	tui_redraw(t);
	rc = fdw_resume_open(t->job.address, &r, why, sizeof(why));
	if (!rc) {
		kind = fdw_resume_kind(r);
		if (kind == FDW_RESUME_BOOT_STEPS) {
			/* Seconds to a minute (the initramfs is made again): said first. */
			snprintf(t->prompt_msg, sizeof(t->prompt_msg), "%s",
				 _("Setting up the installed system's boot..."));
			tui_redraw(t);
		}
		rc = fdw_resume_run(r, t->prompt_pass, &how, &worker, why, sizeof(why));
	}
	fdw_resume_close(r);
	if (rc == -EPERM) {
		/* Wrong passphrase: let the user type it again. */
		tui_secret_clear(t->prompt_pass);
		snprintf(t->prompt_msg, sizeof(t->prompt_msg), "%s",
			 why[0] ? why : _("The passphrase is wrong. Nothing was changed."));
		tui_capitalise(t->prompt_msg);
		return;
	}
	prompt_closed(t);
	resume_ended(t, kind, worker, rc, &said, why);
}

void tui_prompt_resume(struct tui *t, const struct fdw_job *job)
{
	t->job = *job;
	t->have_job = true;
	t->prompt = TUI_PROMPT_RESUME;
	t->prompt_key = prompt_key;
	t->prompt_msg[0] = '\0';
	tui_secret_clear(t->prompt_pass);
}
