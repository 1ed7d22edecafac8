/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Results screen: plain against encrypted, test by test, with bars and the slowdown, and
 * the prediction made on the plan beside what was measured.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "curses.h"
#include "tui.h"

static struct fdw_bench_run *load(const char *path)
{
	struct fdw_bench_run *r;

	if (!path[0])
		return NULL;
	r = calloc(1, sizeof(*r));
	if (r && fdw_bench_run_load(path, r) != 0) {
		free(r);
		r = NULL;
	}
	return r;
}

/* What only this screen keeps: the job's benchmarks and prediction, and the scrolling. */
struct results_state {
	struct fdw_bench_run *bench[2];	/* before and after, when saved */
	struct fdw_bench_run *pred;	/* the prediction recorded with the job */
	size_t top;			/* the first test shown */
};

static struct results_state *state_of(const struct tui *t)
{
	return t->state[TUI_RESULTS];
}

static const struct fdw_bench_run *pred_of(struct tui *t)
{
	return state_of(t)->pred;
}

static void results_free_state(void *state)
{
	struct results_state *s = state;

	for (int i = 0; i < 2; i++) {
		free(s->bench[i]);
		s->bench[i] = NULL;
	}
	free(s->pred);
	s->pred = NULL;
}

static bool results_enter(struct tui *t, enum tui_screen from)
{
	struct results_state *s = state_of(t);

	(void)from;
	results_free_state(s);
	/* Shown now: the next start need not bring this conversion up again. */
	fdw_job_mark_seen(&t->job);
	s->bench[0] = load(t->job.bench_before);
	s->bench[1] = load(t->job.bench_after);
	s->pred = load(t->job.bench_predicted);
	s->top = 0;
	return true;
}

static const struct fdw_bench_metric *headline(const struct fdw_bench_test *t)
{
	return t->primary < t->n_metrics ? &t->metrics[t->primary] : NULL;
}

static void value_text(const struct fdw_bench_metric *m, char *buf, size_t len)
{
	if (!m || !m->n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, m->median >= 100 ? "%.0f %s" : "%.1f %s", m->median, m->unit);
}

/* The labels' column: as wide as the widest of them. */
static int label_width(void)
{
	const char *l[] = { _("plain"), _("encrypted") };
	int w = 0;

	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		if (tui_width(l[i]) > w)
			w = tui_width(l[i]);
	return w;
}

/* With a prediction, a column of it right of the measured figures: its width, else 0. */
static int pred_col(struct tui *t)
{
	return pred_of(t) ? 13 : 0;
}

/* Two rows per test: its title and bars for plain and encrypted, scaled to the larger. */
static int draw_delta(struct tui *t, int y, const struct fdw_bench_delta *d, int tw)
{
	const struct fdw_bench_metric *mp = headline(d->plain);
	const struct fdw_bench_metric *me = mp ? fdw_bench_metric_get(d->encrypted, mp->key) :
					    NULL;
	double big = mp && me ? (mp->median > me->median ? mp->median : me->median) : 0;
	/* Predicted on the baseline beside it: the plain figure times the predicted ratio. */
	double p = mp ? fdw_results_predicted(pred_of(t), d->plain->id, mp->key, mp->median) : -1;
	int lw = label_width(), pc = pred_col(t);
	int bx = 2 + tw + 1 + lw + 1, bw = COLS - bx - 14 - pc, vx = COLS - 13 - pc;
	char v[64], s[96];

	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, tw, fdw_gettext_read(d->plain->title), true);
	tui_attr_off(t, TUI_C_KEY);
	snprintf(s, sizeof(s), _("%.1f%% slower%s"), d->slowdown_pct,
		 d->suspicious ? _(" (suspicious)") : d->unstable ? _(" (unstable)") : "");
	if (d->slowdown_pct < 0)	/* better encrypted: within noise, or suspicious */
		snprintf(s, sizeof(s), _("%.1f%% faster%s"), -d->slowdown_pct,
			 d->suspicious ? _(" (suspicious)") : d->unstable ? _(" (unstable)") : "");
	tui_attr_on(t, fdw_results_delta_notable(d) ? TUI_C_WARN : TUI_C_DIM);
	tui_put(y + 1, 4, tw - 2, s, true);
	tui_attr_off(t, fdw_results_delta_notable(d) ? TUI_C_WARN : TUI_C_DIM);
	tui_put(y, 3 + tw, lw, _("plain"), true);
	tui_put(y + 1, 3 + tw, lw, _("encrypted"), true);
	if (bw >= 4 && big > 0) {
		tui_bar(t, y, bx, bw, mp->median / big, TUI_C_BAR_PLAIN);
		tui_bar(t, y + 1, bx, bw, me->median / big, TUI_C_BAR_ENC);
	}
	value_text(mp, v, sizeof(v));
	tui_put(y, vx, 13, v, false);
	value_text(me, v, sizeof(v));
	tui_put(y + 1, vx, 13, v, false);
	/* The prediction made on the plan, beside the encrypted figure measured. */
	if (pc && p >= 0) {
		snprintf(v, sizeof(v), p >= 100 ? "%.0f %s" : "%.1f %s", p, me ? me->unit : "");
		tui_attr_on(t, TUI_C_DIM);
		tui_put(y + 1, COLS - 13, 13, v, false);
		tui_attr_off(t, TUI_C_DIM);
	}
	return 2;
}

/* Over the table, with a prediction: which column is which. Returns the rows used. */
static int draw_columns(struct tui *t, int y)
{
	if (!pred_col(t))
		return 0;
	tui_attr_on(t, TUI_C_DIM);
	tui_put(y, COLS - 26, 13, _("measured"), false);
	tui_put(y, COLS - 13, 13, _("predicted"), false);
	tui_attr_off(t, TUI_C_DIM);
	return 1;
}

/* The widest test title, within a third to a half of the screen. */
static int title_width(const struct tui *t)
{
	const struct fdw_bench_run *r = state_of(t)->bench[0];
	int w = 0;

	for (size_t i = 0; r && i < r->n_tests; i++)
		if (tui_width(fdw_gettext_read(r->tests[i].title)) > w)
			w = tui_width(fdw_gettext_read(r->tests[i].title));
	if (w > COLS / 2)
		w = COLS / 2;
	if (w < COLS / 3)
		w = COLS / 3;
	return w;
}

/* Over the baseline's figures: which column is which (the plain one is no encrypted one). */
static int baseline_columns(struct tui *t, int y, int tw, int vw)
{
	tui_attr_on(t, TUI_C_DIM);
	tui_put(y, 3 + tw, vw, _("plain, measured"), false);
	if (pred_of(t))
		tui_put(y, 4 + tw + vw, COLS - 5 - tw - vw, _("encrypted, predicted"), false);
	tui_attr_off(t, TUI_C_DIM);
	return 1;
}

/* Only the baseline: each test's figure, and the prediction for it where there is one. */
static void draw_baseline(struct tui *t, int y, int tw, int bottom)
{
	struct results_state *s = state_of(t);
	const struct fdw_bench_run *b = s->bench[0];
	int vw = tui_width(_("plain, measured")) + 2;

	if (vw < 16)
		vw = 16;
	if (s->top >= b->n_tests)
		s->top = 0;
	y += baseline_columns(t, y, tw, vw);
	for (size_t i = s->top; i < b->n_tests && y < bottom; i++) {
		const struct fdw_bench_metric *m = headline(&b->tests[i]);
		double p = m ? fdw_results_predicted(pred_of(t), b->tests[i].id, m->key,
						     m->median) : -1;
		double slow = m ? fdw_results_predicted_slowdown(pred_of(t), b->tests[i].id,
								 m->key) : -1;
		char v[64], w[128];

		if (!fdw_results_has_figure(&b->tests[i]))
			continue;
		tui_put(y, 2, tw, fdw_gettext_read(b->tests[i].title), true);
		value_text(m, v, sizeof(v));
		tui_put(y, 3 + tw, vw, v, false);
		if (p >= 0) {
			snprintf(w, sizeof(w), p >= 100 ? _("predicted %.0f %s, %.0f%% slower") :
				 _("predicted %.1f %s, %.0f%% slower"), p, m->unit,
				 slow > 0 ? slow : 0);
			tui_attr_on(t, TUI_C_DIM);
			tui_put(y, 4 + tw + vw, COLS - 5 - tw - vw, w, false);
			tui_attr_off(t, TUI_C_DIM);
		}
		y++;
	}
}

/* When the plan's probe and the baseline disagree: one dim line that says so. */
static int probe_text(struct tui *t, int y, const struct fdw_bench_run *base)
{
	char line[1024];
	int n;

	if (!fdw_results_probe_note(pred_of(t), base, line, sizeof(line)))
		return 0;
	tui_attr_on(t, TUI_C_DIM);
	n = tui_wrap(y, 2, COLS - 4, 2, line);
	tui_attr_off(t, TUI_C_DIM);
	return n;
}

/* An installed system's root: whether its boot step was done, and what it changed. */
static int system_text(struct tui *t, int y)
{
	char line[2600], safe[4096];
	bool ok;
	int n;

	if (!fdw_results_system(&t->job, &ok, line, sizeof(line)))
		return 0;
	tui_attr_on(t, ok ? TUI_C_GOOD : TUI_C_WARN);
	n = tui_wrap(y, 2, COLS - 4, 4, fdw_text_safe(line, safe, sizeof(safe)));
	tui_attr_off(t, ok ? TUI_C_GOOD : TUI_C_WARN);
	return n;
}

/* A header backup that could not be refreshed: there is none valid, and how to make one. */
static int backup_text(struct tui *t, int y)
{
	char line[PATH_MAX * 2 + 512], safe[PATH_MAX * 3];
	int n;

	if (!fdw_results_backup_stale(&t->job, line, sizeof(line)))
		return 0;
	tui_attr_on(t, TUI_C_WARN);
	n = tui_wrap(y, 2, COLS - 4, 4, fdw_text_safe(line, safe, sizeof(safe)));
	tui_attr_off(t, TUI_C_WARN);
	return n;
}

static void results_draw(struct tui *t)
{
	struct results_state *s = state_of(t);
	char title[PATH_MAX + 64], line[PATH_MAX * 2 + 128], note[1024];
	struct fdw_bench_delta d[FDW_BENCH_MAX_TESTS];
	size_t n = 0;
	int y = 2, tw = title_width(t), bottom = LINES - 2;

	snprintf(title, sizeof(title), _("Results for %s"), t->job.address);
	tui_title(t, title);
	fdw_results_summary(&t->job, s->bench[0] != NULL, s->bench[1] != NULL, line,
			    sizeof(line), note, sizeof(note));
	tui_attr_on(t, TUI_C_GOOD);
	y += tui_wrap(y, 2, COLS - 4, 2, line);
	tui_attr_off(t, TUI_C_GOOD);
	y += system_text(t, y);
	y += backup_text(t, y);
	y++;
	if (s->bench[0] && s->bench[1]) {
		n = fdw_bench_compare(s->bench[0], s->bench[1], d, FDW_BENCH_MAX_TESTS);
		fdw_results_verdict(d, n, line, sizeof(line));
		y += tui_wrap(y, 2, COLS - 4, 2, line);
		fdw_results_prediction_verdict(d, n, pred_of(t), line, sizeof(line));
		if (line[0]) {
			tui_attr_on(t, TUI_C_DIM);
			y += tui_wrap(y, 2, COLS - 4, 2, line);
			tui_attr_off(t, TUI_C_DIM);
		}
		y += probe_text(t, y, s->bench[0]);
		y++;
		bottom -= 2;
		if (s->top >= n)
			s->top = n ? n - 1 : 0;
		y += draw_columns(t, y);
		for (size_t i = s->top; i < n && y + 1 < bottom; i++)
			y += draw_delta(t, y, &d[i], tw);
		snprintf(line, sizeof(line), _("Saved: %s and %s"), t->job.bench_before,
			 t->job.bench_after);
		tui_attr_on(t, TUI_C_DIM);
		tui_wrap(LINES - 3, 2, COLS - 4, 2, line);
		tui_attr_off(t, TUI_C_DIM);
	} else if (s->bench[0]) {
		tui_attr_on(t, TUI_C_WARN);
		y += tui_wrap(y, 2, COLS - 4, 3, note);
		tui_attr_off(t, TUI_C_WARN);
		y += probe_text(t, y, s->bench[0]);
		y++;
		draw_baseline(t, y, tw, bottom - 2);
		snprintf(line, sizeof(line), _("Saved: %s"), t->job.bench_before);
		tui_attr_on(t, TUI_C_DIM);
		tui_wrap(LINES - 3, 2, COLS - 4, 2, line);
		tui_attr_off(t, TUI_C_DIM);
	} else {
		tui_wrap(y, 2, COLS - 4, 3, note);
	}
}

static void results_key(struct tui *t, struct tui_key k)
{
	struct results_state *s = state_of(t);

	if (k.kind == TUI_KEY_UP || tui_key_is(k, 'k')) {
		if (s->top > 0)
			s->top--;
	} else if (k.kind == TUI_KEY_DOWN || tui_key_is(k, 'j')) {
		s->top++;
	} else if (tui_key_is(k, 'd')) {
		tui_go(t, TUI_DISKS);
	} else if (tui_key_is(k, 'u')) {
		/* Undo: the decryption's own screen checks, asks and runs it. */
		snprintf(t->chosen, sizeof(t->chosen), "%s", t->job.address);
		tui_go(t, TUI_DECRYPT);
	} else if (k.kind == TUI_KEY_ENTER || k.kind == TUI_KEY_ESC || tui_key_is(k, 'q')) {
		snprintf(t->farewell, sizeof(t->farewell), _("%s is encrypted."), t->job.address);
		t->quit = true;
	}
}

const struct tui_screen_ops tui_screen_results = {
	.enter = results_enter,
	.draw = results_draw,
	.key = results_key,
	.hint = N_("Up/Down: scroll  u: undo (decrypt)  d: disks  q: quit"),
	.state_size = sizeof(struct results_state),
	.free_state = results_free_state,
};
