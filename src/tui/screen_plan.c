/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Plan screen: exactly what will happen, the cipher to choose (with why and its speed here),
 * the expected speed of the encrypted volume, and the baseline benchmark.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bench/bench_api.h"
#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "core/boot/boot_api.h"
#include "curses.h"
#include "tui.h"

/* What only this screen keeps: the focus, the measurement for the prediction, the ciphers. */
struct plan_state {
	int focus;			/* 0: the benchmark box; 1: the boot box; 2: ciphers */
	bool cipher_recommended;	/* the chosen cipher is the recommended one */
	char cipher_why[256];		/* why that one is recommended */
	struct fdw_predict_probe probe;
	bool measuring;
	struct fdw_bench_run *measured;	/* the probe's figures, once in */
	struct fdw_bench_run *pred;	/* the prediction for the chosen cipher */
	size_t n_pred;
	char failed[512];		/* why there is no measurement */
	int recommended;		/* index in fdw_cipher_choices(), or -1 */
	bool cipher_chosen;		/* the person moved the selection */
	/* TPM unlock for this plan, asked of the engine once when it is made (the TPM and the
	 * packages do not change while it is shown), and what is missing for it. */
	enum fdw_tpm_offer tpm;
	char tpm_why[512];
};

static struct plan_state *st(struct tui *t)
{
	return t->state[TUI_PLAN];
}

static const struct plan_state *cst(const struct tui *t)
{
	return t->state[TUI_PLAN];
}

/* Stop measuring and forget the figures (a new plan, or leaving the wizard). */
static void probe_reset(struct plan_state *s)
{
	fdw_predict_probe_stop(&s->probe);
	s->measuring = false;
	free(s->measured);
	free(s->pred);
	s->measured = s->pred = NULL;
	s->n_pred = 0;
	s->failed[0] = '\0';
}

static void plan_free_state(void *state)
{
	probe_reset(state);
}

/* The prediction for the plan's cipher, handed to the engine to keep with the job. */
static void predict_update(struct tui *t)
{
	struct plan_state *s = st(t);

	if (!s->measured || !t->enc_open)
		return;
	if (!s->pred)
		s->pred = calloc(1, sizeof(*s->pred));
	if (!s->pred)
		return;
	s->n_pred = fdw_predict_plan(s->measured, fdw_encrypt_plan(t->enc), s->pred);
	fdw_encrypt_set_prediction(t->enc, s->n_pred ? s->pred : NULL);
}

/* The recommendation's row, from the CPU's flags or, once measured, from the figures. */
static void recommend(struct tui *t)
{
	struct plan_state *s = st(t);
	const struct fdw_cipher_choice *c;
	size_t n = fdw_cipher_choices(&c);
	struct fdw_cipher_advice a;
	char spec[64];

	memset(&a, 0, sizeof(a));
	if (s->measured)
		fdw_cipher_recommend_measured(s->measured, &a);
	else
		fdw_cipher_recommend(&a);
	snprintf(spec, sizeof(spec), "%s-%s", a.cipher, a.mode);
	s->recommended = -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].spec, spec) && c[i].key_bits == a.key_bits)
			s->recommended = (int)i;
	if (a.why[0])
		snprintf(s->cipher_why, sizeof(s->cipher_why), "%s", a.why);
}

static void choose_cipher(struct tui *t, int i);

/* Every tick: take the measurement in when it is done. */
static void plan_tick(struct tui *t)
{
	struct plan_state *s = st(t);

	if (!s->measuring || fdw_predict_probe_poll(&s->probe) == 0)
		return;
	s->measuring = false;
	if (s->probe.rc || !s->probe.run) {
		snprintf(s->failed, sizeof(s->failed), "%s", s->probe.why);
	} else {
		s->measured = malloc(sizeof(*s->measured));
		if (s->measured)
			memcpy(s->measured, s->probe.run, sizeof(*s->measured));
	}
	fdw_predict_probe_stop(&s->probe);
	recommend(t);
	/* The measured advice wins while the person has not chosen. */
	if (!s->cipher_chosen && s->recommended >= 0 &&
	    s->recommended != fdw_cipher_choice_of(fdw_encrypt_plan(t->enc)))
		choose_cipher(t, s->recommended);
	predict_update(t);
}

/* Measure the partition (reading only) and the ciphers, without waiting for it. */
static void probe_begin(struct tui *t)
{
	struct plan_state *s = st(t);
	enum fdw_bench_scale scale;

	probe_reset(s);
	if (fdw_bench_scale_parse(fdw_encrypt_bench_scale(t->enc), &scale) != 0 || scale != FDW_BENCH_TINY)
		scale = FDW_BENCH_QUICK;
	if (fdw_predict_probe_start(&s->probe, t->enc, scale) == 0)
		s->measuring = true;
	else
		snprintf(s->failed, sizeof(s->failed), "%s", s->probe.why);
}

/* Prepare the conversion of @address; false (with a dialog) if it cannot be. */
static bool plan_enter(struct tui *t, const char *address)
{
	struct plan_state *s = st(t);
	struct fdw_encrypt_options o;
	struct fdw_cipher_advice a;
	char why[2048] = "", spec[48];
	int rc;

	tui_release_plan(t);
	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	/* The advice is filled in even when the CPU cannot be read. */
	fdw_cipher_recommend(&a);
	s->cipher_recommended = a.cipher[0] && a.mode[0];
	if (s->cipher_recommended) {
		/* The prepare copies the cipher into the plan: @spec only lives until then. */
		snprintf(spec, sizeof(spec), "%s-%s", a.cipher, a.mode);
		snprintf(s->cipher_why, sizeof(s->cipher_why), "%s", a.why);
		o.rq.cipher_spec = spec;
		o.rq.key_bits = a.key_bits;
	}
	o.fast_pbkdf = t->fast_pbkdf;
	o.bench_baseline = t->bench_baseline;
	/* Test-only: a benchmark scale for emulated machines ("tiny"); unknown ones are ignored. */
	o.bench_scale = getenv("FDEWIZ_TEST_BENCH_SCALE");
	snprintf(t->address, sizeof(t->address), "%s", address);
	rc = fdw_encrypt_prepare(t->enc, address, &o, why, sizeof(why));
	if (rc) {
		fdw_encrypt_close(t->enc);
		tui_show_dialog(t, _("Cannot encrypt"), why);
		return false;
	}
	t->enc_open = true;
	/* Each plan starts with the boot box off: it changes this system's files. TPM unlock
	 * starts off too (none was asked of the prepare): a choice about what the laptop's
	 * owner must guard. */
	t->boot_entries = false;
	s->tpm = fdw_encrypt_tpm_offer(t->enc, s->tpm_why, sizeof(s->tpm_why));
	s->focus = 0;
	s->cipher_chosen = false;
	recommend(t);
	return true;
}

static bool plan_open(struct tui *t, enum tui_screen from)
{
	/* From the disks: a new plan; back from the passphrase: the same one. */
	if (from == TUI_DISKS && !plan_enter(t, t->chosen)) {
		probe_reset(st(t));
		tui_go(t, TUI_DISKS);	/* read again: what refused may have changed */
		return false;
	}
	/* A new plan is measured anew; back from the passphrase, only if it was stopped. */
	if (from == TUI_DISKS || (!st(t)->measuring && !st(t)->measured))
		probe_begin(t);
	return true;
}

static void choose_cipher(struct tui *t, int i)
{
	const struct fdw_cipher_choice *c;
	size_t n = fdw_cipher_choices(&c);
	char why[2048];

	if (i < 0 || (size_t)i >= n)
		return;
	if (!fdw_cipher_choice_usable(st(t)->measured, &c[i])) {
		tui_set_status(t, true, _("%s cannot be chosen: this kernel does not offer it."),
			       _(c[i].title));
		return;
	}
	if (fdw_encrypt_set_cipher(t->enc, c[i].spec, c[i].key_bits, why, sizeof(why))) {
		tui_set_status(t, true, "%s", why);
		return;
	}
	st(t)->cipher_recommended = i == st(t)->recommended;
	predict_update(t);
}

/* Up/Down in the cipher list: the next row that may be chosen, chosen at once. */
static void cipher_step(struct tui *t, int dir)
{
	const struct fdw_cipher_choice *c;
	int n = (int)fdw_cipher_choices(&c), i = fdw_cipher_choice_of(fdw_encrypt_plan(t->enc));

	int next = i + dir;

	for (i = next; i >= 0 && i < n; i += dir)
		if (fdw_cipher_choice_usable(st(t)->measured, &c[i]))
			break;
	if (i < 0 || i >= n) {
		/* Nothing further may be chosen: say why for the row right next to it. */
		if (next >= 0 && next < n)
			choose_cipher(t, next);
		return;
	}
	st(t)->cipher_chosen = true;
	choose_cipher(t, i);
}

/* Why the boot box cannot be ticked for the planned partition, or NULL when it can. */
static const char *plan_boot_unavailable(const struct tui *t)
{
	if (!t->enc_open)
		return _("No partition is planned.");
	/* The wizard writes this system's own files: its root is "/". */
	return fdw_encrypt_boot_unavailable(t->enc, "/");
}

/* "label   value" with labels padded to @lw cells; returns the rows used. */
static int field(struct tui *t, int y, int lw, const char *label, const char *value, int lines)
{
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, lw, label, true);
	tui_attr_off(t, TUI_C_KEY);
	return tui_wrap(y, 3 + lw, COLS - 4 - lw, lines, value);
}

static const char *strategy_sentence(const struct fdw_target *tg, const struct fdw_plan *pl)
{
	if (tg->part->verdict.lvm_system)
		return _("LVM physical volume: it ends 32 MiB before the partition's end (the room "
			 "made first, see Boot setup); its logical volumes move with it, none is "
			 "resized.");
	switch (pl->strategy) {
	case FDW_STRATEGY_SHRINK:
		return _("shrink: the filesystem gives up 32 MiB at its end; the data moves up "
			 "to make room for the header at the start.");
	case FDW_STRATEGY_GROW:
		return _("grow: the partition grows into the free space right after it; the "
			 "filesystem is not touched.");
	case FDW_STRATEGY_FREE_TAIL:
		return _("free tail: the filesystem already ends before the last 32 MiB of the "
			 "partition; nothing is resized and nothing grows back afterwards.");
	case FDW_STRATEGY_DETACHED:
		return _("detached header: the header lives in a file on another disk; the data "
			 "does not move.");
	default:
		return "";
	}
}

/* What the benchmark box will really do: the after-run needs the volume open. */
static const char *bench_text(const struct tui *t)
{
	static char text[512];
	const char *closed = t->enc_open ? fdw_encrypt_closed_why(t->enc) : NULL;

	if (t->enc_open && !fdw_encrypt_can_bench(t->enc))
		return _("No benchmark: an LVM physical volume holds no filesystem fdewiz mounts");
	if (!closed)
		return _("Measure the speed before and after (a quick benchmark of the plain "
			 "filesystem first)");
	snprintf(text, sizeof(text), _("Measure the speed of the plain filesystem first (not "
				       "after the conversion: %s)"), closed);
	return text;
}

/*
 * An installed system's root on a disk: the second box unlocks it at its start with this
 * computer's TPM (its crypttab is the boot step's, never this system's). Else the crypttab
 * box.
 */
static bool tpm_box(const struct tui *t)
{
	return t->enc_open && cst(t)->tpm != FDW_TPM_OFFER_NONE;
}

/* Is TPM unlock chosen? The engine holds the choice. */
static bool tpm_chosen(const struct tui *t)
{
	return t->enc_open && fdw_encrypt_tpm_pcrs(t->enc) != NULL;
}

static const char *boot_text(const struct tui *t)
{
	if (tpm_box(t))
		return _("Unlock it at each start with this computer's TPM, nothing typed (the "
			 "passphrase and the recovery key stay)");
	return _("Open this volume at boot (add it to /etc/crypttab and adjust /etc/fstab)");
}

/* The line under the second box: why it is greyed out, or what TPM unlock means. */
static const char *box_note(const struct tui *t, char *buf, size_t len)
{
	if (!tpm_box(t))
		return plan_boot_unavailable(t);
	if (cst(t)->tpm == FDW_TPM_OFFER_UNAVAILABLE)
		return cst(t)->tpm_why;
	if (!tpm_chosen(t))
		return NULL;
	fdw_tpm_plan_text(fdw_encrypt_tpm_pcrs(t->enc), buf, len);
	return buf;
}

/* Rows the two boxes take (with the note under the second one). */
static int boxes_height(const struct tui *t)
{
	char buf[1024];
	const char *note = box_note(t, buf, sizeof(buf));

	return tui_wrap_count(COLS - 8, 2, bench_text(t)) +
	       tui_wrap_count(COLS - 8, 2, boot_text(t)) +
	       (note ? tui_wrap_count(COLS - 8, 5, note) : 0);
}

/* One box at @y: "[x] text", the box highlighted when focused. Returns the rows used. */
static int draw_box_line(struct tui *t, int y, bool on, bool focus, bool grey, const char *text)
{
	int n;

	if (y >= LINES - 1)
		return 0;
	tui_attr_on(t, focus ? TUI_C_SELECT : grey ? TUI_C_DIM : TUI_C_NORMAL);
	tui_put(y, 2, 4, grey ? "[-]" : tui_checkbox(on), false);
	tui_attr_off(t, focus ? TUI_C_SELECT : grey ? TUI_C_DIM : TUI_C_NORMAL);
	if (grey)
		tui_attr_on(t, TUI_C_DIM);
	n = tui_wrap(y, 6, COLS - 8, LINES - 1 - y < 2 ? LINES - 1 - y : 2, text);
	if (grey)
		tui_attr_off(t, TUI_C_DIM);
	return n;
}

static int draw_boxes(struct tui *t, int y0)
{
	char buf[1024];
	bool tpm = tpm_box(t);
	const char *note = box_note(t, buf, sizeof(buf));
	/* Greyed out: the TPM box when something is missing, the crypttab box when refused. */
	bool grey = tpm ? st(t)->tpm != FDW_TPM_OFFER_READY : note != NULL;
	int y = y0;

	y += draw_box_line(t, y, t->bench_baseline, st(t)->focus == 0,
			   t->enc_open && !fdw_encrypt_can_bench(t->enc), bench_text(t));
	y += draw_box_line(t, y, tpm ? tpm_chosen(t) : t->boot_entries, st(t)->focus == 1, grey,
			   boot_text(t));
	if (note && y < LINES - 1) {
		char safe[2048];

		tui_attr_on(t, TUI_C_DIM);
		y += tui_wrap(y, 6, COLS - 8, LINES - 1 - y < 5 ? LINES - 1 - y : 5,
			      fdw_text_safe(note, safe, sizeof(safe)));
		tui_attr_off(t, TUI_C_DIM);
	}
	return y - y0;
}

/* Space on the second box: TPM unlock (checked by the engine) or the crypttab entry. */
static void toggle_second_box(struct tui *t)
{
	char why[1024];

	if (tpm_box(t)) {
		if (st(t)->tpm == FDW_TPM_OFFER_UNAVAILABLE)
			tui_set_status(t, false, "%s", st(t)->tpm_why);
		else if (fdw_encrypt_set_tpm(t->enc, tpm_chosen(t) ? NULL : FDW_TPM_DEFAULT_PCRS,
					     why, sizeof(why)) != 0)
			tui_set_status(t, false, "%s", why);
	} else if (plan_boot_unavailable(t)) {
		t->boot_entries = false;
		tui_set_status(t, false, "%s", plan_boot_unavailable(t));
	} else {
		t->boot_entries = !t->boot_entries;
	}
}

/* The engine's steps after the conversion, one a line: one flowing paragraph here. */
static int steps_field(struct tui *t, int y, int lw, const char *label, const char *steps)
{
	char joined[4608], safe[8192];
	size_t o = 0;

	/* "; " between the steps. */
	for (const char *c = steps; *c && o + 3 < sizeof(joined); c++) {
		if (*c == '\n') {
			joined[o++] = ';';
			joined[o++] = ' ';
		} else {
			joined[o++] = *c;
		}
	}
	joined[o] = '\0';
	return field(t, y, lw, label, fdw_text_safe(joined, safe, sizeof(safe)), 8);
}

/* An installed system's root: what is done in it after the conversion. */
static int system_steps(struct tui *t, int y, int lw, const char *label)
{
	char name[64], steps[4096];

	fdw_system_boot_name(fdw_encrypt_target(t->enc), name, sizeof(name));
	fdw_system_boot_steps(fdw_encrypt_target(t->enc), name, steps, sizeof(steps));
	return steps_field(t, y, lw, label, steps);
}

/* A closed LUKS volume beside it may be the root of a system that mounts it. */
static int unseen_note(struct tui *t, int y, int lw, const char *label)
{
	const struct fdw_target *tg = fdw_encrypt_target(t->enc);
	char note[1024];

	if (!fdw_system_data_unseen_note(&tg->disk, tg->part, note, sizeof(note)))
		return 0;
	return steps_field(t, y, lw, label, note);
}

/* A partition of another installed system: whose it is and what is written in that one. */
static int data_steps(struct tui *t, int y, int lw, const char *label)
{
	char steps[4096];

	fdw_system_data_steps(fdw_encrypt_target(t->enc)->part, steps, sizeof(steps));
	return steps_field(t, y, lw, label, steps);
}

/* One cipher row's speed: measured here, or why not, and the recommendation's mark. */
static void cipher_speed(struct tui *t, const struct fdw_cipher_choice *c, bool rec, char *buf,
			 size_t len)
{
	struct plan_state *s = st(t);
	char said[160];
	double mibps;
	bool userspace;

	if (!s->measuring && !s->measured)
		snprintf(said, sizeof(said), "%s", _("not measured"));
	else if (fdw_cipher_choice_speed(s->measured, c, &mibps, &userspace, said, sizeof(said)))
		snprintf(said, sizeof(said), userspace ? _("%5.0f MiB/s (OpenSSL)") :
			 _("%5.0f MiB/s"), mibps);
	snprintf(buf, len, "%s%s%s", said, rec ? "  " : "", rec ? _("recommended") : "");
}

/* The cipher rows, the chosen one marked; returns the rows used. */
static int draw_ciphers(struct tui *t, int y, int lw, const char *label)
{
	const struct fdw_cipher_choice *c;
	int n = (int)fdw_cipher_choices(&c), cur = fdw_cipher_choice_of(fdw_encrypt_plan(t->enc));
	int x = 3 + lw, tw = 0, i;
	char speed[256];

	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, lw, label, true);
	tui_attr_off(t, TUI_C_KEY);
	for (i = 0; i < n; i++)
		if (tui_width(_(c[i].title)) > tw)
			tw = tui_width(_(c[i].title));
	if (tw > COLS - x - 30)
		tw = COLS - x - 30;
	for (i = 0; i < n && y + i < LINES - 1; i++) {
		bool sel = st(t)->focus == 2 && i == cur;

		tui_attr_on(t, sel ? TUI_C_SELECT : TUI_C_NORMAL);
		tui_put(y + i, x, 4, i == cur ? "(*)" : "( )", false);
		tui_attr_off(t, sel ? TUI_C_SELECT : TUI_C_NORMAL);
		tui_put(y + i, x + 4, tw, _(c[i].title), true);
		cipher_speed(t, &c[i], i == st(t)->recommended, speed, sizeof(speed));
		tui_put(y + i, x + 5 + tw, COLS - x - 6 - tw, speed, false);
	}
	return i;
}

/* "480 -> 310 MB/s (-35 %)" for line @id of the prediction; false: it has no such line. */
static bool pred_value(const struct fdw_bench_run *p, const char *id, bool with_plain,
		       char *buf, size_t len)
{
	for (size_t i = 0; i < p->n_tests; i++) {
		const struct fdw_bench_test *t = &p->tests[i];
		const struct fdw_bench_metric *m = &t->metrics[t->primary];
		const struct fdw_bench_metric *pl = &t->metrics[t->primary + 2];
		double slow = fdw_predict_slowdown(p, id);

		if (strcmp(t->id, id) != 0)
			continue;
		if (!with_plain)
			snprintf(buf, len, "%.0f %s", m->median, m->unit);
		else if (slow >= 1)
			snprintf(buf, len, _("%.0f -> %.0f %s (-%.0f %%)"), pl->median, m->median,
				 m->unit, slow);
		else
			snprintf(buf, len, _("%.0f -> %.0f %s (same)"), pl->median, m->median,
				 m->unit);
		return true;
	}
	snprintf(buf, len, "-");
	return false;
}

/* The four read lines with their writes; returns the rows used. */
static int draw_pred_lines(struct tui *t, int y, int x)
{
	static const char *const ids[][3] = {
		{ "io.seqread.qd8", "io.seqwrite.qd8", N_("SEQ1M Q8T1 read") },
		{ "io.seqread.qd1", "io.seqwrite.qd1", N_("SEQ1M Q1T1 read") },
		{ "io.randread.qd32", "io.randwrite.qd32", N_("RND4K Q32T1 read") },
		{ "io.randread.qd1", "io.randwrite.qd1", N_("RND4K Q1T1 read") },
	};
	const struct fdw_bench_run *p = st(t)->pred;
	int tw = 0, vw = 28, i;
	char v[128], w[160];

	for (i = 0; i < 4; i++)
		if (tui_width(_(ids[i][2])) > tw)
			tw = tui_width(_(ids[i][2]));
	for (i = 0; i < 4; i++) {
		tui_put(y + i, x, tw, _(ids[i][2]), true);
		pred_value(p, ids[i][0], true, v, sizeof(v));
		tui_put(y + i, x + tw + 2, vw, v, true);
		/* Never the read figure again: the plan measures reading only. */
		if (pred_value(p, ids[i][1], false, v, sizeof(v)))
			snprintf(w, sizeof(w), _("write %s"), v);
		else
			snprintf(w, sizeof(w), "%s", _("write: not measured"));
		tui_put(y + i, x + tw + 3 + vw, COLS - x - tw - 4 - vw, w, false);
	}
	return 4;
}

/* The expected speed of the encrypted volume, in @room rows at most; returns rows used. */
static int draw_prediction(struct tui *t, int y, int lw, int room)
{
	struct plan_state *s = st(t);
	int x = 3 + lw, w = COLS - 4 - lw, used = 0;
	char line[768];
	double cpu;

	if (room < 1)
		return 0;
	tui_attr_on(t, TUI_C_KEY);
	tui_put(y, 2, lw, _("Expected"), true);
	tui_attr_off(t, TUI_C_KEY);
	if (s->measuring || !s->n_pred) {
		if (s->measuring)
			snprintf(line, sizeof(line), "%s", _("measuring this partition (reading "
							     "only) and the ciphers..."));
		else if (s->failed[0])
			snprintf(line, sizeof(line), _("no prediction: %s"), s->failed);
		else
			fdw_predict_sentence(s->pred, line, sizeof(line));
		tui_attr_on(t, TUI_C_DIM);
		used = tui_wrap(y, x, w, room < 2 ? room : 2, line);
		tui_attr_off(t, TUI_C_DIM);
		return used;
	}
	fdw_predict_sentence(s->pred, line, sizeof(line));
	if (room >= 4 + tui_wrap_count(w, 2, line))
		used += draw_pred_lines(t, y, x);
	tui_attr_on(t, TUI_C_GOOD);
	used += tui_wrap(y + used, x, w, room - used < 2 ? room - used : 2, line);
	tui_attr_off(t, TUI_C_GOOD);
	cpu = s->pred->tests[0].metrics[4].median;
	/* Past one core, in cores: "200 % of one core" reads as a mistake. */
	if (cpu < 99.5)	/* what %.0f would print as 100 */
		snprintf(line, sizeof(line), _("CPU: about %.0f %% of one core for the cipher "
					       "while reading at full speed. Measured just now, "
					       "reading only: writes are not measured before the "
					       "conversion."), cpu);
	else
		snprintf(line, sizeof(line), _("CPU: about %.1f cores for the cipher while "
					       "reading at full speed. Measured just now, reading "
					       "only: writes are not measured before the "
					       "conversion."),
			 cpu / 100);
	if (room - used >= tui_wrap_count(w, 2, line)) {
		tui_attr_on(t, TUI_C_DIM);
		used += tui_wrap(y + used, x, w, 2, line);
		tui_attr_off(t, TUI_C_DIM);
	}
	return used;
}

static void plan_draw(struct tui *t)
{
	const struct plan_state *s = st(t);
	const struct fdw_plan *pl = fdw_encrypt_plan(t->enc);
	const struct fdw_partition *p = fdw_encrypt_target(t->enc)->part;
	const char *labels[] = { _("Partition"), _("Strategy"), _("Header"), _("Filesystem"),
				 _("Free space used"), _("Encrypted volume"), _("Cipher"),
				 _("Sector size"), _("Expected") };
	char title[PATH_MAX + 64], v[PATH_MAX + 256], a[32], b[32];
	int lw = 0, y = 2;

	snprintf(title, sizeof(title), _("Plan for %s"), t->address);
	tui_title(t, title);
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (tui_width(labels[i]) > lw)
			lw = tui_width(labels[i]);
	lw += 1;

	snprintf(v, sizeof(v), "%s, %s %s%s%s", p->address,
		 fdw_format_size(p->size, a, sizeof(a)), p->fstype ? p->fstype : "",
		 p->label ? _(", label ") : "", p->label ? p->label : "");
	y += field(t, y, lw, labels[0], v, 1);
	y += field(t, y, lw, labels[1], strategy_sentence(fdw_encrypt_target(t->enc), pl), 2);
	if (pl->detached_header)
		snprintf(v, sizeof(v), _("in the file %s (keep it safe, off this disk)"),
			 pl->detached_header);
	else
		snprintf(v, sizeof(v), _("%s at the start of the partition"),
			 fdw_format_size(pl->header_bytes, a, sizeof(a)));
	y += field(t, y, lw, labels[2], v, 1);
	fdw_format_size(pl->fs_size_max, b, sizeof(b));
	if (pl->fs_size_before < 0)
		snprintf(a, sizeof(a), "?");
	else
		fdw_format_size((uint64_t)pl->fs_size_before, a, sizeof(a));
	/* "2.7 GiB now, at most 2.7 GiB" says nothing: show the 32 MiB in whole MiB. */
	if (!strcmp(a, b) && pl->fs_size_before >= 0) {
		snprintf(a, sizeof(a), "%llu MiB",
			 (unsigned long long)((uint64_t)pl->fs_size_before >> 20));
		snprintf(b, sizeof(b), "%llu MiB", (unsigned long long)(pl->fs_size_max >> 20));
	}
	snprintf(v, sizeof(v), _("%s now, at most %s before encryption"), a, b);
	y += field(t, y, lw, labels[3], v, 1);
	if (pl->grow_bytes)
		snprintf(v, sizeof(v), _("%s of the free space after the partition"),
			 fdw_format_size(pl->grow_bytes, a, sizeof(a)));
	else
		snprintf(v, sizeof(v), "%s", _("none"));
	y += field(t, y, lw, labels[4], v, 1);
	y += field(t, y, lw, labels[5], fdw_format_size(pl->volume_size, a, sizeof(a)), 1);
	y += draw_ciphers(t, y, lw, labels[6]);
	/* The reason for the recommendation, while it is the one chosen. */
	if (s->cipher_recommended && s->cipher_why[0] &&
	    y + tui_wrap_count(COLS - 4 - lw, 2, s->cipher_why) + 2 + boxes_height(t) <=
	    LINES - 1) {
		tui_attr_on(t, TUI_C_DIM);
		y += tui_wrap(y, 3 + lw, COLS - 4 - lw, 2, s->cipher_why);
		tui_attr_off(t, TUI_C_DIM);
	}
	snprintf(v, sizeof(v), _("%u bytes"), pl->sector_size);
	y += field(t, y, lw, labels[7], v, 1);
	if (p->os.found)
		y += system_steps(t, y, lw, _("Boot setup"));
	else if (fdw_system_data_applies(p))
		y += data_steps(t, y, lw, _("Another system"));
	else
		y += unseen_note(t, y, lw, _("Note"));
	y += draw_prediction(t, y, lw, LINES - 2 - y - boxes_height(t));
	y++;
	y += draw_boxes(t, y);
	if (y < LINES - 2) {
		tui_attr_on(t, TUI_C_DIM);
		tui_wrap(y + 1, 2, COLS - 4, LINES - 2 - y - 1,
			 _("Nothing has been changed yet. The next steps ask for the passphrase "
			   "and a typed confirmation."));
		tui_attr_off(t, TUI_C_DIM);
	}
}

/* On the cipher list Up/Down choose a cipher; elsewhere Space ticks a box. */
static const char *plan_hint(const struct tui *t)
{
	const struct plan_state *s = t->state[TUI_PLAN];

	return s->focus == 2 ?
		N_("Up/Down: cipher  Tab: next  Enter: continue  e: erase instead  Esc: back  "
		   "q: quit") :
		N_("Tab: next  Space: toggle  Enter: continue  e: erase instead  Esc: back  "
		   "q: quit");
}

static void plan_key(struct tui *t, struct tui_key k)
{
	struct plan_state *s = st(t);

	if (tui_key_is(k, ' ')) {
		if (s->focus == 0 && t->enc_open && !fdw_encrypt_can_bench(t->enc)) {
			/* Greyed out: there is nothing to measure. */
		} else if (s->focus == 0) {
			t->bench_baseline = !t->bench_baseline;
			fdw_encrypt_set_bench(t->enc, t->bench_baseline, NULL);
		} else if (s->focus == 2) {
			/* The cipher list is chosen with Up/Down; Space there ticks nothing. */
		} else {
			toggle_second_box(t);
		}
	} else if (s->focus == 2 && (k.kind == TUI_KEY_DOWN || k.kind == TUI_KEY_UP)) {
		cipher_step(t, k.kind == TUI_KEY_DOWN ? 1 : -1);
	} else if (k.kind == TUI_KEY_TAB) {
		s->focus = (s->focus + 1) % 3;
	} else if (k.kind == TUI_KEY_BACKTAB) {
		s->focus = (s->focus + 2) % 3;
	} else if (k.kind == TUI_KEY_DOWN || k.kind == TUI_KEY_UP) {
		s->focus = !s->focus;
	} else if (k.kind == TUI_KEY_ENTER) {
		/* The conversion must not start while the partition is being read. */
		if (s->measuring)
			probe_reset(s);
		tui_go(t, TUI_PASS);
	} else if (k.kind == TUI_KEY_ESC || k.kind == TUI_KEY_BACKSPACE) {
		/* Nothing changed: the disks are as they were, the selection too. */
		probe_reset(s);
		tui_release_plan(t);
		tui_go(t, TUI_DISKS);
	} else if (tui_key_is(k, 'e')) {
		/* Erase and encrypt instead (for a reinstall): the plan's lock is let go there. */
		probe_reset(s);
		tui_go(t, TUI_ERASE);
	} else if (tui_key_is(k, 'q')) {
		probe_reset(s);
		t->quit = true;
	}
}

const struct tui_screen_ops tui_screen_plan = {
	.enter = plan_open,
	.draw = plan_draw,
	.key = plan_key,
	.hint_of = plan_hint,
	.tick = plan_tick,
	.state_size = sizeof(struct plan_state),
	.free_state = plan_free_state,
};
