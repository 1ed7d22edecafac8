/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Start screen: unfinished conversions first (open their progress, resume them). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/units.h"
#include "curses.h"
#include "tui.h"

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

/* Keep @job when it is unfinished and on this machine now, under the address it has now. */
static void consider(struct tui *t, struct fdw_job *job)
{
	char where[PATH_MAX];
	struct fdw_progress p;

	if (fdw_job_observe_at(job, &p, where, sizeof(where)) != 0 || !where[0])
		return;
	if (p.state != FDW_JOB_RUNNING && p.state != FDW_JOB_PAUSED &&
	    p.state != FDW_JOB_INTERRUPTED && p.state != FDW_JOB_NEEDS_REPAIR)
		return;
	snprintf(job->address, sizeof(job->address), "%s", where);
	if (!job_matches(t, job))
		return;
	t->jobs[t->n_jobs] = *job;
	t->job_progress[t->n_jobs++] = p;
}

void start_load(struct tui *t)
{
	struct fdw_job *all = NULL, *other = NULL;
	size_t n = 0, n_other = 0;

	free(t->jobs);
	free(t->job_progress);
	t->jobs = NULL;
	t->job_progress = NULL;
	t->n_jobs = 0;
	if (fdw_job_list(&all, &n) != 0)
		n = 0;
	/* Unfinished conversions another tool started: they have no record, only a header. */
	if (fdw_job_unrecorded(&other, &n_other) != 0)
		n_other = 0;
	if (n + n_other == 0)
		goto out;
	t->jobs = calloc(n + n_other, sizeof(*t->jobs));
	t->job_progress = calloc(n + n_other, sizeof(*t->job_progress));
	if (!t->jobs || !t->job_progress)
		goto out;
	for (size_t i = 0; i < n; i++)
		consider(t, &all[i]);
	for (size_t i = 0; i < n_other; i++)
		consider(t, &other[i]);
	if (t->job_sel >= t->n_jobs)
		t->job_sel = 0;
out:
	free(all);
	free(other);
}

/* What a person knows the volume by: label, size and UUID. */
static void job_name(const struct fdw_job *job, char *buf, size_t len)
{
	char size[32] = "";

	if (job->ident.size)
		fdw_format_size(job->ident.size, size, sizeof(size));
	snprintf(buf, len, "%s%s%s%s%s  %.8s", job->ident.label[0] ? "\"" : "", job->ident.label,
		 job->ident.label[0] ? "\", " : "", size, job->created ? "" : _(", not by fdewiz"),
		 job->id);
}

void start_draw(struct tui *t)
{
	int y = 2, cw = COLS - 4;

	tui_title(t, _("Unfinished conversions"));
	y += tui_wrap(y, 2, cw, 3, _("These conversions have not finished. Open one to see its "
				     "progress, or resume one that stopped; a conversion "
				     "continues where it stopped, the data stays intact."));
	y++;
	for (size_t i = 0; i < t->n_jobs && y < LINES - 3; i++, y++) {
		const struct fdw_progress *p = &t->job_progress[i];
		char line[PATH_MAX + 256];
		double pct = p->total ? 100.0 * (double)p->done / (double)p->total : 0;

		char name[160];

		job_name(&t->jobs[i], name, sizeof(name));
		snprintf(line, sizeof(line), "%s %s  %s", i == t->job_sel ? ">" : " ",
			 t->jobs[i].address, name);
		if (i == t->job_sel)
			tui_attr_on(t, TUI_C_SELECT);
		tui_put(y, 2, cw, line, true);
		snprintf(line, sizeof(line), "%-12s %5.1f%%  %s", tui_state_label(p->state), pct,
			 tui_phase_label(p->phase));
		tui_put(y, COLS - 40 > 30 ? COLS - 40 : 30, 38, line, false);
		if (i == t->job_sel)
			tui_attr_off(t, TUI_C_SELECT);
	}
	tui_attr_on(t, TUI_C_DIM);
	tui_put(LINES - 1, 0, COLS, _("Enter: progress  r: resume  n: choose a partition  "
				      "?: help  q: quit"), true);
	tui_attr_off(t, TUI_C_DIM);
}

void start_key(struct tui *t, struct tui_key k)
{
	if (k.kind == TUI_KEY_UP || tui_key_is(k, 'k')) {
		if (t->job_sel > 0)
			t->job_sel--;
	} else if (k.kind == TUI_KEY_DOWN || tui_key_is(k, 'j')) {
		if (t->job_sel + 1 < t->n_jobs)
			t->job_sel++;
	} else if (k.kind == TUI_KEY_ENTER) {
		if (t->n_jobs)
			tui_open_job(t, &t->jobs[t->job_sel]);
	} else if (tui_key_is(k, 'r')) {
		if (!t->n_jobs)
			return;
		if (t->job_progress[t->job_sel].state == FDW_JOB_RUNNING)
			tui_set_status(t, false, "%s", _("It is running already: press Enter to "
							 "see its progress."));
		else
			tui_prompt_resume(t, &t->jobs[t->job_sel]);
	} else if (tui_key_is(k, 'n')) {
		tui_scan(t);
		tui_go(t, TUI_DISKS);
	} else if (tui_key_is(k, 'q') || k.kind == TUI_KEY_ESC) {
		t->quit = true;
	}
}
