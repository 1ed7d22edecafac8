/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Start screen: unfinished conversions first (open their progress, resume them), and those
 * that ended while nobody watched (open their results).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base_api.h"
#include "core/disk/disk_api.h"
#include "core/boot/boot_api.h"
#include "core/convert/convert_api.h"
#include "curses.h"
#include "tui.h"

/* The conversions shown: unfinished, or ended unseen (n_ended of them); by_service: the
 * service of a restart goes on with it (nothing to resume by hand). */
struct start_state {
	struct fdw_job *jobs;
	struct fdw_progress *progress;
	bool *by_service;
	size_t n, sel, n_ended, n_by_service;
};

/* @address without a trailing ":N" (a partition of an image), resolved. */
static void disk_of(const char *address, char *out, size_t len)
{
	char copy[PATH_MAX];
	char *colon;

	snprintf(copy, sizeof(copy), "%s", address);
	colon = strrchr(copy, ':');
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
		*colon = '\0';
	if (!realpath(copy, out))
		snprintf(out, len, "%s", copy);
}

/* Is @job on one of the disks the wizard was opened on? */
static bool job_matches(const struct tui *t, const struct fdw_job *job)
{
	char disk[PATH_MAX], want[PATH_MAX];

	if (t->n_paths == 0)
		return true;
	disk_of(job->address, disk, sizeof(disk));
	for (int i = 0; i < t->n_paths; i++) {
		if (!realpath(t->paths[i], want))
			snprintf(want, sizeof(want), "%s", t->paths[i]);
		/* "/dev/sda" covers "/dev/sda2"; "disk.img" covers "disk.img:2". */
		if (!strncmp(disk, want, strlen(want)))
			return true;
	}
	return false;
}

/*
 * Keep @job when it is on this machine now (under the address it has now) and either
 * unfinished or ended while nobody watched.
 */
static void consider(struct tui *t, struct start_state *st, struct fdw_job *job, bool recorded,
		     struct fdw_restart_begun *begun)
{
	char where[PATH_MAX];
	struct fdw_progress p;
	bool ended;

	if (fdw_job_observe_at(job, &p, where, sizeof(where)) != 0 || !where[0])
		return;
	ended = fdw_job_ended_unseen(job, &p);
	if (!ended && !fdw_job_unfinished(job, &p))
		return;
	snprintf(job->address, sizeof(job->address), "%s", where);
	if (!job_matches(t, job))
		return;
	st->by_service[st->n] = fdw_restart_goes_on_with(begun, job, recorded, &p);
	st->n_by_service += st->by_service[st->n];
	st->jobs[st->n] = *job;
	st->progress[st->n++] = p;
	st->n_ended += ended;
}

static void start_load(struct tui *t, struct start_state *st)
{
	struct fdw_job *all = NULL, *other = NULL;
	struct fdw_restart_begun begun = { 0 };
	size_t n = 0, n_other = 0;

	free(st->jobs);
	free(st->progress);
	free(st->by_service);
	st->jobs = NULL;
	st->progress = NULL;
	st->by_service = NULL;
	st->n = 0;
	st->n_ended = 0;
	st->n_by_service = 0;
	if (fdw_job_list(&all, &n) != 0)
		n = 0;
	/* Unfinished conversions another tool started: they have no record, only a header. */
	if (fdw_job_unrecorded(&other, &n_other) != 0)
		n_other = 0;
	if (n + n_other == 0)
		goto out;
	st->jobs = calloc(n + n_other, sizeof(*st->jobs));
	st->progress = calloc(n + n_other, sizeof(*st->progress));
	st->by_service = calloc(n + n_other, sizeof(*st->by_service));
	if (!st->jobs || !st->progress || !st->by_service)
		goto out;
	for (size_t i = 0; i < n; i++)
		consider(t, st, &all[i], true, &begun);
	for (size_t i = 0; i < n_other; i++)
		consider(t, st, &other[i], false, &begun);
	if (st->sel >= st->n)
		st->sel = 0;
out:
	free(all);
	free(other);
}

/* What a person knows the volume by: label, size and UUID (and who began it, when not
 * fdewiz: not @by_service, the restart's step). */
static void job_name(const struct fdw_job *job, bool by_service, char *buf, size_t len)
{
	char size[32] = "";

	if (job->ident.size)
		fdw_format_size(job->ident.size, size, sizeof(size));
	snprintf(buf, len, "%s%s%s%s%s  %.8s", job->ident.label[0] ? "\"" : "", job->ident.label,
		 job->ident.label[0] ? "\", " : "", size,
		 job->created || by_service ? "" : _(", not by fdewiz"), job->id);
}

static void start_draw(struct tui *t)
{
	struct start_state *st = t->state[TUI_START];
	int y = 2, cw = COLS - 4;

	if (!st->n_ended) {
		tui_title(t, _("Unfinished conversions"));
		y += tui_wrap(y, 2, cw, 3, _("These conversions have not finished. Open one to "
					     "see its progress, or resume one that stopped; a "
					     "conversion continues where it stopped, the data "
					     "stays intact."));
	} else {
		tui_title(t, _("Conversions since you last looked"));
		y += tui_wrap(y, 2, cw, 3, _("These conversions have not finished, or ended "
					     "while nobody watched. Open one to see its progress "
					     "or its results, or resume one that stopped; a "
					     "conversion continues where it stopped, the data "
					     "stays intact."));
	}
	y++;
	for (size_t i = 0; i < st->n && y < LINES - 3; i++, y++) {
		const struct fdw_progress *p = &st->progress[i];
		char line[PATH_MAX + 256];
		double pct = p->total ? 100.0 * (double)p->done / (double)p->total : 0;

		char name[160];

		job_name(&st->jobs[i], st->by_service[i], name, sizeof(name));
		snprintf(line, sizeof(line), "%s %s  %s", i == st->sel ? ">" : " ",
			 st->jobs[i].address, name);
		if (i == st->sel)
			tui_attr_on(t, TUI_C_SELECT);
		tui_put(y, 2, cw, line, true);
		/* Converted with a step left: that step is what resume does. */
		snprintf(line, sizeof(line), "%-12s %5.1f%%  %s", fdw_job_state_label(p->state), pct,
			 p->state == FDW_JOB_COMPLETE && fdw_job_unfinished(&st->jobs[i], p) ?
			 _("boot step left") : fdw_phase_label(p->phase));
		tui_put(y, COLS - 40 > 30 ? COLS - 40 : 30, 38, line, false);
		if (i == st->sel)
			tui_attr_off(t, TUI_C_SELECT);
	}
	/* The restart's own: said under the list, so that nobody resumes it by hand. */
	if (st->n_by_service && y + 1 < LINES - 3) {
		char why[512];

		fdw_restart_phase_text(FDW_RESTART_BEGUN, NULL, why, sizeof(why));
		tui_wrap(y + 1, 2, cw, 2, why);
	}
}

/* Enter opens a conversion: its progress, or the results of one that ended unseen. */
static const char *start_hint(const struct tui *t)
{
	const struct start_state *st = t->state[TUI_START];

	return st->n_ended ?
		N_("Enter: open  r: resume  n: choose a partition  ?: help  q: quit") :
		N_("Enter: progress  r: resume  n: choose a partition  ?: help  q: quit");
}

static void start_key(struct tui *t, struct tui_key k)
{
	struct start_state *st = t->state[TUI_START];

	if (k.kind == TUI_KEY_UP || tui_key_is(k, 'k')) {
		if (st->sel > 0)
			st->sel--;
	} else if (k.kind == TUI_KEY_DOWN || tui_key_is(k, 'j')) {
		if (st->sel + 1 < st->n)
			st->sel++;
	} else if (k.kind == TUI_KEY_ENTER) {
		if (st->n)
			tui_open_job(t, &st->jobs[st->sel]);
	} else if (tui_key_is(k, 'r')) {
		if (!st->n)
			return;
		if (st->jobs[st->sel].direction[0]) {
			tui_open_job(t, &st->jobs[st->sel]);
			return;
		}
		switch (fdw_resume_offer(&st->jobs[st->sel], &st->progress[st->sel],
					 st->by_service[st->sel])) {
		case FDW_OFFER_RUNNING:
			tui_set_status(t, false, "%s", _("It is running already: press Enter to "
							 "see its progress."));
			break;
		case FDW_OFFER_SERVICE:
			tui_set_status(t, false, "%s", _("The restart's conversion: its service "
							 "(fdewiz-restart) goes on with it once "
							 "the system has started; nothing to do."));
			break;
		case FDW_OFFER_COMPLETE:
			tui_set_status(t, false, "%s", _("It is complete: press Enter to see its "
							 "results."));
			break;
		case FDW_OFFER_FAILED:
			tui_set_status(t, false, "%s", _("It cannot be resumed from here: press "
							 "Enter to see what happened."));
			break;
		case FDW_OFFER_RESUME:
			tui_prompt_resume(t, &st->jobs[st->sel]);
			break;
		}
	} else if (tui_key_is(k, 'n')) {
		tui_go(t, TUI_DISKS);
	} else if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
		t->quit = true;
	}
}

/* The wizard opens on a running conversion's progress, the unfinished ones, or the disks. */
static bool first_screen(struct tui *t, struct start_state *st)
{
	struct fdw_restart_stage prepared;
	size_t running = 0, first = 0;

	/* A restart prepared and not yet made: what it is, and how to undo it. */
	if (fdw_restart_prepared(&prepared)) {
		tui_go(t, TUI_RESTART);
		return false;
	}
	for (size_t i = 0; i < st->n; i++)
		if (st->progress[i].state == FDW_JOB_RUNNING && !running++)
			first = i;
	if (running == 1) {
		tui_open_job(t, &st->jobs[first]);
		return false;
	}
	if (st->n)
		return true;
	tui_go(t, TUI_DISKS);
	return false;
}

static bool start_enter(struct tui *t, enum tui_screen from)
{
	struct start_state *st = t->state[TUI_START];

	/* Back from the disks only when there were unfinished conversions to come back to. */
	if (from == TUI_DISKS && !st->n)
		return false;
	start_load(t, st);
	if (from == TUI__COUNT)
		return first_screen(t, st);
	return st->n > 0;
}

static void start_free(void *state)
{
	struct start_state *st = state;

	free(st->jobs);
	free(st->progress);
	free(st->by_service);
}

const struct tui_screen_ops tui_screen_start = {
	.enter = start_enter,
	.draw = start_draw,
	.key = start_key,
	.hint_of = start_hint,
	.state_size = sizeof(struct start_state),
	.free_state = start_free,
};
