/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sliding-window speed and the atomic status record of a conversion. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/jsonfile.h"
#include "progress.h"
#include "base/units.h"

void fdw_speed_add(struct fdw_speed_window *w, double t, uint64_t done)
{
	w->t[w->head] = t;
	w->done[w->head] = done;
	w->head = (w->head + 1) % FDW_SPEED_SAMPLES;
	if (w->count < FDW_SPEED_SAMPLES)
		w->count++;
}

double fdw_speed_rate(const struct fdw_speed_window *w)
{
	unsigned newest, oldest;

	if (w->count < 2)
		return 0;
	newest = (w->head + FDW_SPEED_SAMPLES - 1) % FDW_SPEED_SAMPLES;
	oldest = (w->head + FDW_SPEED_SAMPLES - w->count) % FDW_SPEED_SAMPLES;
	/*
	 * Walk forward from the oldest sample to the first one inside the window, but keep
	 * at least the step before the newest: on a very slow disk the steps come further
	 * apart than the window, and the rate must fall with them, not drop to "unknown".
	 */
	while ((oldest + 1) % FDW_SPEED_SAMPLES != newest &&
	       w->t[newest] - w->t[oldest] > FDW_SPEED_WINDOW_S)
		oldest = (oldest + 1) % FDW_SPEED_SAMPLES;
	if (oldest == newest || w->t[newest] <= w->t[oldest] || w->done[newest] < w->done[oldest])
		return 0;
	return (double)(w->done[newest] - w->done[oldest]) / (w->t[newest] - w->t[oldest]);
}

double fdw_speed_eta(const struct fdw_speed_window *w, double now, uint64_t total,
		     double *rate)
{
	double r = fdw_speed_rate(w), since;
	unsigned newest, prev;
	uint64_t rem, pending;

	if (rate)
		*rate = r;
	if (r <= 0)
		return -1;
	/* A rate needs two samples, so both exist. */
	newest = (w->head + FDW_SPEED_SAMPLES - 1) % FDW_SPEED_SAMPLES;
	prev = (w->head + FDW_SPEED_SAMPLES - 2) % FDW_SPEED_SAMPLES;
	rem = total > w->done[newest] ? total - w->done[newest] : 0;
	if (!rem)
		return 0;
	/* The step under way is taken to be as large as the last one (or what is left). */
	pending = w->done[newest] - w->done[prev];
	pending = pending && pending < rem ? pending : rem;
	since = now > w->t[newest] ? now - w->t[newest] : 0;
	if (since * r <= (double)pending)
		return (double)rem / r - since;
	/* Overdue: it has run @since seconds and is not done, so the rate is at most this. */
	r = (double)pending / since;
	if (rate)
		*rate = r;
	return (double)(rem - pending) / r;
}

char *fdw_progress_eta_text(const struct fdw_progress *p, const char *unknown, char *buf,
			    size_t len)
{
	if (p->state == FDW_JOB_RUNNING && p->total && p->done >= p->total) {
		snprintf(buf, len, "%s", _("finishing"));
		return buf;
	}
	return fdw_format_duration(p->state == FDW_JOB_RUNNING ? p->eta : -1, unknown, buf,
				   len);
}

static const char *const state_names[FDW_JOB__COUNT] = {
	[FDW_JOB_RUNNING] = "running",
	[FDW_JOB_PAUSED] = "paused",
	[FDW_JOB_INTERRUPTED] = "interrupted",
	[FDW_JOB_NEEDS_REPAIR] = "needs-repair",
	[FDW_JOB_COMPLETE] = "complete",
	[FDW_JOB_FAILED] = "failed",
};

const char *fdw_job_state_name(enum fdw_job_state s)
{
	return s < FDW_JOB__COUNT ? state_names[s] : "unknown";
}

int fdw_job_state_parse(const char *name, enum fdw_job_state *out)
{
	for (int i = 0; i < FDW_JOB__COUNT; i++)
		if (name && !strcmp(name, state_names[i])) {
			*out = (enum fdw_job_state)i;
			return 0;
		}
	return -EINVAL;
}

int fdw_progress_write(const char *path, const struct fdw_progress *p)
{
	struct json_object *o = json_object_new_object();
	int rc;

	json_object_object_add(o, "state", json_object_new_string(fdw_job_state_name(p->state)));
	json_object_object_add(o, "phase", json_object_new_string(fdw_phase_key(p->phase)));
	json_object_object_add(o, "done", json_object_new_int64((int64_t)p->done));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)p->total));
	json_object_object_add(o, "speed", json_object_new_double(p->speed));
	json_object_object_add(o, "elapsed", json_object_new_double(p->elapsed));
	json_object_object_add(o, "eta", json_object_new_double(p->eta));
	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	json_object_object_add(o, "pid_start", json_object_new_int64((int64_t)p->pid_start));
	json_object_object_add(o, "boot_id", json_object_new_string(p->boot_id));
	json_object_object_add(o, "updated", json_object_new_int64(p->updated));
	json_object_object_add(o, "message", json_object_new_string(p->message));
	json_object_object_add(o, "pace", json_object_new_string(p->pace));
	json_object_object_add(o, "yielding", json_object_new_boolean(p->yielding));
	json_object_object_add(o, "others_bps", json_object_new_double(p->others_bps));
	json_object_object_add(o, "slept", json_object_new_double(p->slept));
	if (p->bench_what[0]) {
		struct json_object *b = json_object_new_object();

		json_object_object_add(b, "what", json_object_new_string(p->bench_what));
		json_object_object_add(b, "fraction", json_object_new_double(p->bench_fraction));
		json_object_object_add(b, "left", json_object_new_double(p->bench_left));
		json_object_object_add(o, "bench", b);
	}
	rc = fdw_json_write_atomic(path, o);
	json_object_put(o);
	return rc;
}

int fdw_progress_read(const char *path, struct fdw_progress *p)
{
	struct json_object *o = json_object_from_file(path), *b;
	char state[32], phase[32];
	int rc;

	memset(p, 0, sizeof(*p));
	if (!o)
		return access(path, F_OK) == 0 ? -EINVAL : -ENOENT;
	fdw_json_get_str(o, "state", state, sizeof(state));
	rc = fdw_job_state_parse(state, &p->state);
	fdw_json_get_str(o, "phase", phase, sizeof(phase));
	p->phase = fdw_phase_parse(phase);
	fdw_json_get_str(o, "message", p->message, sizeof(p->message));
	p->done = (uint64_t)fdw_json_get_int(o, "done");
	p->total = (uint64_t)fdw_json_get_int(o, "total");
	p->speed = fdw_json_get_double(o, "speed");
	p->elapsed = fdw_json_get_double(o, "elapsed");
	p->eta = fdw_json_get_double(o, "eta");
	p->pid = (pid_t)fdw_json_get_int(o, "pid");
	p->pid_start = (uint64_t)fdw_json_get_int(o, "pid_start");
	fdw_json_get_str(o, "boot_id", p->boot_id, sizeof(p->boot_id));
	p->updated = (time_t)fdw_json_get_int(o, "updated");
	fdw_json_get_str(o, "pace", p->pace, sizeof(p->pace));
	p->yielding = json_object_object_get_ex(o, "yielding", &b) && json_object_get_boolean(b);
	p->others_bps = fdw_json_get_double(o, "others_bps");
	p->slept = fdw_json_get_double(o, "slept");
	if (json_object_object_get_ex(o, "bench", &b) && json_object_is_type(b, json_type_object)) {
		fdw_json_get_str(b, "what", p->bench_what, sizeof(p->bench_what));
		p->bench_fraction = fdw_json_get_double(b, "fraction");
		p->bench_left = fdw_json_get_double(b, "left");
	}
	json_object_put(o);
	return rc;
}

const char *fdw_job_state_label(enum fdw_job_state s)
{
	switch (s) {
	case FDW_JOB_RUNNING:
		return _("running");
	case FDW_JOB_PAUSED:
		return _("paused");
	case FDW_JOB_INTERRUPTED:
		return _("interrupted");
	case FDW_JOB_NEEDS_REPAIR:
		return _("needs repair");
	case FDW_JOB_COMPLETE:
		return _("complete");
	case FDW_JOB_FAILED:
		return _("failed");
	default:
		return "?";
	}
}
