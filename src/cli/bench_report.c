/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Benchmark tables and JSON: one run, or a plain run against an encrypted one. */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_report.h"
#include "cli.h"
#include "core/base/base_api.h"

#define COMPARE_JSON_VERSION 1

/* A value with as many digits as make sense for its size. */
static void fmt_value(double v, const char *unit, char *buf, size_t len)
{
	const char *u = unit && *unit ? unit : "";
	const char *sep = *u && strcmp(u, "%") ? " " : "";

	if (v >= 100 || v <= -100)
		snprintf(buf, len, "%.0f%s%s", v, sep, u);
	else if (v >= 10 || v <= -10)
		snprintf(buf, len, "%.1f%s%s", v, sep, u);
	else
		snprintf(buf, len, "%.2f%s%s", v, sep, u);
}

static void fmt_metric(const struct fdw_bench_test *t, const char *key, char *buf, size_t len)
{
	const struct fdw_bench_metric *m = fdw_bench_metric_get(t, key);

	if (!m || !m->n)
		snprintf(buf, len, "-");
	else if (!strcmp(m->unit, "%"))
		snprintf(buf, len, "%.0f%%", m->median);
	else
		fmt_value(m->median, strcmp(m->unit, "us") ? m->unit : "", buf, len);
}

static const struct fdw_bench_metric *headline(const struct fdw_bench_test *t)
{
	return t->primary < t->n_metrics ? &t->metrics[t->primary] : NULL;
}

/* The title column: as wide as the longest (translated) title, within reason. */
static int title_width(const struct fdw_bench_test *t, size_t n)
{
	int w = cli_text_width(_("TEST"));

	for (size_t i = 0; i < n; i++)
		if (cli_text_width(_(t[i].title)) > w)
			w = cli_text_width(_(t[i].title));
	return w > 60 ? 60 : w;
}

/*
 * The header of a table: @title padded to @w, then each of the @n headings right-aligned in
 * its column, widened in @widths where a translated heading is wider than the figures.
 */
static void print_header(FILE *out, int w, const char *const *heads, int *widths, size_t n)
{
	cli_pad(out, _("TEST"), w, false);
	for (size_t i = 0; i < n; i++) {
		if (cli_text_width(heads[i]) > widths[i])
			widths[i] = cli_text_width(heads[i]);
		fputc(' ', out);
		cli_pad(out, heads[i], widths[i], true);
	}
	fputc('\n', out);
}

/* One test's figures after its title, in the columns @cw; @h: its headline figure. */
typedef void (*bench_row_fn)(FILE *out, const struct fdw_bench_test *t,
			     const struct fdw_bench_metric *h, const int *cw);

/*
 * One table of the report: its headings (@n of them, the columns @cw widened to fit), then
 * for each test of @r that @kind names (NULL: those of neither "io" nor "kernel") its
 * title padded to @w and what @row prints.
 */
static void print_rows(FILE *out, const struct fdw_bench_run *r, int w, const char *kind,
		       const char *const *heads, int *cw, size_t n, bench_row_fn row)
{
	fputc('\n', out);
	print_header(out, w, heads, cw, n);
	for (size_t i = 0; i < r->n_tests; i++) {
		const struct fdw_bench_test *t = &r->tests[i];

		if (kind ? strcmp(t->kind, kind) != 0
			 : !strcmp(t->kind, "io") || !strcmp(t->kind, "kernel"))
			continue;
		cli_pad(out, cli_safe(fdw_gettext_read(t->title)), w, false);
		row(out, t, headline(t), cw);
	}
}

/* I/O tests: throughput and IOPS side by side, as the usual disk benchmarks show them. */
static void io_row(FILE *out, const struct fdw_bench_test *t, const struct fdw_bench_metric *h,
		   const int *cw)
{
	char mbps[24], iops[24], p50[24], p99[24], cpu[24], spread[24];

	fmt_metric(t, "mbps", mbps, sizeof(mbps));
	fmt_metric(t, "iops", iops, sizeof(iops));
	snprintf(spread, sizeof(spread), "%.1f%%", h && h->n ? h->spread_pct : 0.0);
	fmt_metric(t, "lat_p50_us", p50, sizeof(p50));
	fmt_metric(t, "lat_p99_us", p99, sizeof(p99));
	fmt_metric(t, "cpu_pct", cpu, sizeof(cpu));
	fprintf(out, " %*s %*s %*s %*s %*s %*s%s\n", cw[0], mbps, cw[1], iops, cw[2], spread,
		cw[3], p50, cw[4], p99, cw[5], cpu, t->unstable ? _("  unstable") : "");
}

/* Build and cipher tests: the headline; a row without a figure says why in words. */
static void other_row(FILE *out, const struct fdw_bench_test *t,
		      const struct fdw_bench_metric *h, const int *cw)
{
	char val[32], cpu[24], spread[24];

	if (!strcmp(t->id, "cipher.recommended")) {
		fprintf(out, " %s\n", _("advice, not a measurement (why: below)"));
		return;
	}
	if (!h || !h->n) {
		fprintf(out, " %s\n", _("not measured here (why: below)"));
		return;
	}
	fmt_value(h->median, h->unit, val, sizeof(val));
	snprintf(spread, sizeof(spread), "%.1f%%", h->spread_pct);
	if (fdw_bench_metric_get(t, "cpu_pct"))
		fmt_metric(t, "cpu_pct", cpu, sizeof(cpu));
	else
		cpu[0] = '\0';
	fprintf(out, " %*s %*s %*s%s\n", cw[0], val, cw[1], spread, cw[2], cpu,
		t->unstable ? _("  unstable") : "");
}

/* The real kernel build: wall, user and system time of each step, and files per second. */
static void kernel_row(FILE *out, const struct fdw_bench_test *t,
		       const struct fdw_bench_metric *h, const int *cw)
{
	char wall[24], user[24], sys[24], cpu[24], fps[24], spread[24];

	if (!h || !h->n) {
		fprintf(out, " %s\n", _("not measured here (why: below)"));
		return;
	}
	fmt_metric(t, "wall_s", wall, sizeof(wall));
	fmt_metric(t, "user_s", user, sizeof(user));
	fmt_metric(t, "sys_s", sys, sizeof(sys));
	fmt_metric(t, "cpu_pct", cpu, sizeof(cpu));
	/* The heading says the unit; the figure alone fits the column. */
	if (fdw_bench_metric_get(t, "files_per_s"))
		fmt_value(fdw_bench_metric_get(t, "files_per_s")->median, "", fps, sizeof(fps));
	else
		fps[0] = '\0';
	snprintf(spread, sizeof(spread), "%.1f%%", h->spread_pct);
	fprintf(out, " %*s %*s %*s %*s %*s %*s%s\n", cw[0], wall, cw[1], user, cw[2], sys,
		cw[3], cpu, cw[4], fps, cw[5], spread, t->unstable ? _("  unstable") : "");
}

static void print_io_rows(FILE *out, const struct fdw_bench_run *r, int w)
{
	const char *const heads[] = { _("MB/s"), _("IOPS"), _("SPREAD"), _("P50 us"),
				      _("P99 us"), _("CPU") };
	int cw[] = { 10, 10, 7, 9, 9, 6 };

	print_rows(out, r, w, "io", heads, cw, 6, io_row);
}

static void print_other_rows(FILE *out, const struct fdw_bench_run *r, int w)
{
	const char *const heads[] = { _("RESULT"), _("SPREAD"), _("CPU") };
	int cw[] = { 14, 7, 6 };

	print_rows(out, r, w, NULL, heads, cw, 3, other_row);
}

static void print_kernel_rows(FILE *out, const struct fdw_bench_run *r, int w)
{
	const char *const heads[] = { _("WALL"), _("USER"), _("SYS"), _("CPU"), _("FILES/S"),
				      _("SPREAD") };
	int cw[] = { 9, 9, 9, 6, 9, 7 };

	print_rows(out, r, w, "kernel", heads, cw, 6, kernel_row);
}

void bench_print_table(FILE *out, const struct fdw_bench_run *r)
{
	char date[40];
	size_t i, runs = 0, n_io = 0, n_kernel = 0;
	int w;
	struct tm tm;

	localtime_r(&r->date, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	for (i = 0; i < r->n_tests; i++) {
		const struct fdw_bench_metric *h = headline(&r->tests[i]);

		if (h && h->n > runs)
			runs = h->n;
		n_io += !strcmp(r->tests[i].kind, "io");
		n_kernel += !strcmp(r->tests[i].kind, "kernel");
	}
	fprintf(out, _("Benchmark of %s%s%s%s, %s\n"), cli_safe(r->target),
		r->device[0] ? " (" : "", cli_safe(r->device), r->device[0] ? ")" : "", date);
	fprintf(out, dngettext(PACKAGE, "Scale %s, I/O engine %s, %zu run per test, cipher %s; "
			       "%s, kernel %s\n", "Scale %s, I/O engine %s, %zu runs per test, "
			       "cipher %s; %s, kernel %s\n", runs),
		r->scale[0] ? cli_safe(r->scale) : "-", r->io_engine[0] ? cli_safe(r->io_engine) : "-",
		runs, r->cipher[0] ? cli_safe(r->cipher) : _("none (plain)"), cli_safe(r->cpu_model),
		cli_safe(r->kernel));
	w = title_width(r->tests, r->n_tests);
	if (n_io)
		print_io_rows(out, r, w);
	if (n_io + n_kernel < r->n_tests)
		print_other_rows(out, r, w);
	if (n_kernel)
		print_kernel_rows(out, r, w);
	for (i = 0; i < r->n_tests; i++)
		if (r->tests[i].note[0])
			fprintf(out, "  %s: %s\n", cli_safe(_(r->tests[i].title)),
				cli_safe(r->tests[i].note));
	if (r->io_size) {
		char size[32];

		fprintf(out, _("I/O: %s used, %.1f s per test and run.\n"),
			fdw_format_size(r->io_size, size, sizeof(size)), r->io_runtime);
	}
	if (r->note[0])
		fprintf(out, _("Note: %s\n"), cli_safe(r->note));
}

void bench_print_json(FILE *out, const struct fdw_bench_run *r)
{
	struct json_object *o = fdw_bench_run_to_json(r);

	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* Why a test of @plain has no line in the comparison, in words; NULL when it has one. */
static const char *not_compared(const struct fdw_bench_test *t,
				const struct fdw_bench_delta *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].plain == t)
			return NULL;
	if (!strcmp(t->id, "cipher.recommended"))
		return N_("advice, not a measurement");
	return N_("not measured in one of the two runs (why: in its note)");
}

static void fmt_cpu_pair(const struct fdw_bench_delta *d, char *buf, size_t len)
{
	char a[16], b[16];

	if (d->cpu_plain < 0 && d->cpu_encrypted < 0) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(a, sizeof(a), d->cpu_plain < 0 ? "?" : "%.0f%%", d->cpu_plain);
	snprintf(b, sizeof(b), d->cpu_encrypted < 0 ? "?" : "%.0f%%", d->cpu_encrypted);
	snprintf(buf, len, "%s -> %s", a, b);
}

void bench_print_compare_table(FILE *out, const struct fdw_bench_run *plain,
			       const struct fdw_bench_run *enc,
			       const struct fdw_bench_delta *d, size_t n)
{
	const char *const heads[] = { _("PLAIN"), _("ENCRYPTED"), _("RATIO"), _("SLOWDOWN"),
				      _("SPREAD"), _("CPU") };
	int cw[] = { 12, 12, 7, 9, 7, 15 };
	char a[32], b[32], cpu[48], ratio[16], slow[16], spread[16];
	size_t i, flagged = 0;
	int w = cli_text_width(_("TEST"));

	fprintf(out, _("Plain:     %s (%s%s%s)\n"), cli_safe(plain->target),
		cli_safe(plain->label), plain->cipher[0] ? ", " : "", cli_safe(plain->cipher));
	fprintf(out, _("Encrypted: %s (%s%s%s)\n"), cli_safe(enc->target), cli_safe(enc->label),
		enc->cipher[0] ? ", " : "", cli_safe(enc->cipher));
	for (i = 0; i < n; i++)
		if (cli_text_width(fdw_gettext_read(d[i].plain->title)) > w)
			w = cli_text_width(fdw_gettext_read(d[i].plain->title));
	if (w > 60)
		w = 60;
	fputc('\n', out);
	print_header(out, w, heads, cw, 6);
	for (i = 0; i < n; i++) {
		const struct fdw_bench_metric *hp = headline(d[i].plain);
		const struct fdw_bench_metric *he = fdw_bench_metric_get(d[i].encrypted, hp->key);

		fmt_value(hp->median, hp->unit, a, sizeof(a));
		fmt_value(he->median, he->unit, b, sizeof(b));
		fmt_cpu_pair(&d[i], cpu, sizeof(cpu));
		snprintf(ratio, sizeof(ratio), "%.0f%%", d[i].ratio_pct);
		snprintf(slow, sizeof(slow), "%.1f%%", d[i].slowdown_pct);
		snprintf(spread, sizeof(spread), "%.1f%%", d[i].spread_pct);
		cli_pad(out, cli_safe(fdw_gettext_read(d[i].plain->title)), w, false);
		fprintf(out, " %*s %*s %*s %*s %*s %*s%s%s\n", cw[0], a, cw[1], b, cw[2], ratio,
			cw[3], slow, cw[4], spread, cw[5], cpu, d[i].suspicious ? "  !" : "",
			d[i].unstable ? _("  unstable") : "");
		flagged += d[i].suspicious;
	}
	if (!n)
		fprintf(out, _("The two runs have no test in common.\n"));
	for (i = 0; i < n; i++) {
		if (!d[i].suspicious)
			continue;
		fprintf(out, _("! %s: the encrypted volume measured %.0f%% better than the "
			       "plain one, more than the run-to-run spread (%.1f%%). Encryption "
			       "cannot make this faster; this is likely a cache or sync artifact. "
			       "Repeat both runs on an idle machine before trusting it.\n"),
			cli_safe(fdw_gettext_read(d[i].plain->title)), -d[i].slowdown_pct,
			d[i].spread_pct);
	}
	for (i = 0; i < n; i++)
		if (d[i].unstable && !d[i].suspicious)
			fprintf(out, _("~ %s: the runs varied too much to trust this line.\n"),
				cli_safe(fdw_gettext_read(d[i].plain->title)));
	for (i = 0; i < n; i++)
		if (!strcmp(d[i].plain->kind, "build")) {
			/* Measured in the VM: synthetic 25 % slower, a real kernel build none. */
			fprintf(out, "%s\n", _("The build rows simulate a build that does more file "
						"I/O for its computing than a compiler does: read "
						"their slowdown as an upper bound for a real build "
						"(--kind kernel measures one)."));
			break;
		}
	for (i = 0; i < plain->n_tests; i++) {
		const char *why = not_compared(&plain->tests[i], d, n);

		if (why)
			fprintf(out, _("  %s: not compared: %s.\n"),
				cli_safe(fdw_gettext_read(plain->tests[i].title)), _(why));
	}
	(void)flagged;
}

static struct json_object *run_summary(const char *file, const struct fdw_bench_run *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "label", json_object_new_string(r->label));
	json_object_object_add(o, "target", json_object_new_string(r->target));
	json_object_object_add(o, "device", json_object_new_string(r->device));
	json_object_object_add(o, "cipher", json_object_new_string(r->cipher));
	json_object_object_add(o, "date_unix", json_object_new_int64((int64_t)r->date));
	return o;
}

void bench_print_compare_json(FILE *out, const char *a, const struct fdw_bench_run *plain,
			      const char *b, const struct fdw_bench_run *enc,
			      const struct fdw_bench_delta *d, size_t n)
{
	struct json_object *o = json_object_new_object(), *ts = json_object_new_array();
	size_t i;

	json_object_object_add(o, "format", json_object_new_string("fdewiz-bench-compare"));
	json_object_object_add(o, "format_version", json_object_new_int(COMPARE_JSON_VERSION));
	json_object_object_add(o, "plain", run_summary(a, plain));
	json_object_object_add(o, "encrypted", run_summary(b, enc));
	for (i = 0; i < n; i++) {
		const struct fdw_bench_metric *hp = headline(d[i].plain);
		const struct fdw_bench_metric *he = fdw_bench_metric_get(d[i].encrypted, hp->key);
		struct json_object *t = json_object_new_object();

		json_object_object_add(t, "id", json_object_new_string(d[i].plain->id));
		json_object_object_add(t, "title", json_object_new_string(d[i].plain->title));
		json_object_object_add(t, "metric", json_object_new_string(hp->key));
		json_object_object_add(t, "unit", json_object_new_string(hp->unit));
		json_object_object_add(t, "plain", json_object_new_double(hp->median));
		json_object_object_add(t, "encrypted", json_object_new_double(he->median));
		json_object_object_add(t, "ratio_pct", json_object_new_double(d[i].ratio_pct));
		json_object_object_add(t, "slowdown_pct",
				       json_object_new_double(d[i].slowdown_pct));
		json_object_object_add(t, "spread_pct", json_object_new_double(d[i].spread_pct));
		json_object_object_add(t, "cpu_plain_pct", json_object_new_double(d[i].cpu_plain));
		json_object_object_add(t, "cpu_encrypted_pct",
				       json_object_new_double(d[i].cpu_encrypted));
		json_object_object_add(t, "suspicious", json_object_new_boolean(d[i].suspicious));
		json_object_object_add(t, "unstable", json_object_new_boolean(d[i].unstable));
		json_object_object_add(t, "note", json_object_new_string(
			d[i].suspicious ? "Encrypted measured better than plain beyond the "
					  "run-to-run spread: likely a cache or sync artifact." :
			d[i].unstable ? "The runs varied too much to trust this line." : ""));
		json_object_array_add(ts, t);
	}
	json_object_object_add(o, "tests", ts);
	ts = json_object_new_array();
	for (i = 0; i < plain->n_tests; i++) {
		const char *why = not_compared(&plain->tests[i], d, n);
		struct json_object *t;

		if (!why)
			continue;
		t = json_object_new_object();
		json_object_object_add(t, "id", json_object_new_string(plain->tests[i].id));
		json_object_object_add(t, "title", json_object_new_string(plain->tests[i].title));
		json_object_object_add(t, "why", json_object_new_string(why));
		json_object_array_add(ts, t);
	}
	json_object_object_add(o, "not_compared", ts);
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}
