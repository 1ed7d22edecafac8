/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Benchmark results: statistics over repetitions, description, JSON files, comparison. */
#include "config.h"

#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "state/job.h"
#include "base/jsonfile.h"

#define BENCH_FORMAT "fdewiz-bench"
#define BENCH_FORMAT_VERSION 1
/* Below this an "encrypted is faster" difference is noise, whatever the spread says. */
#define BENCH_SUSPICIOUS_FLOOR_PCT 5.0

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double fdw_median_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void fdw_bench_metric_finish(struct fdw_bench_metric *m)
{
	double s[FDW_BENCH_MAX_REPEATS];
	size_t n = m->n;

	if (n > FDW_BENCH_MAX_REPEATS)
		n = m->n = FDW_BENCH_MAX_REPEATS;
	if (!n) {
		m->median = m->min = m->max = m->spread_pct = 0;
		return;
	}
	memcpy(s, m->samples, n * sizeof(s[0]));
	m->median = fdw_median_sort(s, n);
	m->min = s[0];
	m->max = s[n - 1];
	m->spread_pct = m->median > 0 ? (m->max - m->min) / m->median * 100.0 : 0;
}

const struct fdw_bench_metric *fdw_bench_metric_get(const struct fdw_bench_test *t,
						    const char *key)
{
	size_t i;

	for (i = 0; i < t->n_metrics && i < FDW_BENCH_MAX_METRICS; i++)
		if (!strcmp(t->metrics[i].key, key))
			return &t->metrics[i];
	return NULL;
}

void fdw_bench_test_finish(struct fdw_bench_test *t)
{
	const struct fdw_bench_metric *h;
	size_t i, used;

	for (i = 0; i < t->n_metrics && i < FDW_BENCH_MAX_METRICS; i++)
		fdw_bench_metric_finish(&t->metrics[i]);
	if (t->primary >= t->n_metrics)
		return;
	h = &t->metrics[t->primary];
	if (h->n < 2 || h->spread_pct <= FDW_BENCH_UNSTABLE_PCT)
		return;
	t->unstable = true;
	used = strlen(t->note);
	snprintf(t->note + used, sizeof(t->note) - used,
		 "%sRuns differed by %.0f%% (over %.0f%%): other load or caching; repeat it.",
		 used ? " " : "", h->spread_pct, FDW_BENCH_UNSTABLE_PCT);
}

static void read_cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || (strncmp(line, "model name", 10) && strncmp(line, "Model", 5)))
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* The cipher of @dev when it is an active dm-crypt mapping, else "". */
static void volume_cipher(const char *dev, char *buf, size_t len)
{
	char path[96], line[160], name[128];
	struct crypt_device *cd = NULL;
	struct stat st;
	FILE *f;

	buf[0] = '\0';
	if (!dev[0] || stat(dev, &st) != 0 || !S_ISBLK(st.st_mode))
		return;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/uuid", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "CRYPT-", 6)) {
		fclose(f);
		return;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/name", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "\n")] = '\0';
	if (name[0] && crypt_init_by_name(&cd, name) == 0 && crypt_get_cipher(cd))
		snprintf(buf, len, "%s-%s %d", crypt_get_cipher(cd),
			 crypt_get_cipher_mode(cd) ? crypt_get_cipher_mode(cd) : "",
			 crypt_get_volume_key_size(cd) * 8);
	else
		snprintf(buf, len, "dm-crypt");
	crypt_free(cd);
}

void fdw_bench_run_describe(struct fdw_bench_run *r)
{
	struct utsname u;

	r->date = time(NULL);
	if (uname(&u) == 0)
		snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
	read_cpu_model(r->cpu_model, sizeof(r->cpu_model));
	snprintf(r->fdewiz_version, sizeof(r->fdewiz_version), "%s", PACKAGE_VERSION);
	/* Every kind of run says what it ran on, not only the I/O test that checked it. */
	if (!r->device[0] && r->target[0])
		fdw_bench_device_of(r->target, r->device, sizeof(r->device));
	if (!r->cipher[0])
		volume_cipher(r->device, r->cipher, sizeof(r->cipher));
}

const char *fdw_bench_dir(void)
{
	static char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/bench", fdw_state_dir());
	return dir;
}

int fdw_bench_dir_ensure(void)
{
	int rc = fdw_private_dir_ensure(fdw_state_dir());

	return rc ? rc : fdw_private_dir_ensure(fdw_bench_dir());
}

/* Keep a file name to letters, digits, dot, dash and underscore. */
static void name_part(char *out, size_t len, const char *in)
{
	size_t i;

	snprintf(out, len, "%s", in && *in ? in : "bench");
	for (i = 0; out[i]; i++)
		if (!((out[i] >= 'a' && out[i] <= 'z') || (out[i] >= 'A' && out[i] <= 'Z') ||
		      (out[i] >= '0' && out[i] <= '9') || out[i] == '.' || out[i] == '-' ||
		      out[i] == '_'))
			out[i] = '_';
}

void fdw_bench_default_path(const struct fdw_bench_run *r, char *buf, size_t len)
{
	char label[40], what[64], stamp[32];
	const char *src = r->device[0] ? r->device : r->target;
	const char *base;
	char tmp[PATH_MAX];
	struct tm tm;
	size_t n;

	snprintf(tmp, sizeof(tmp), "%s", src);
	n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	base = strrchr(tmp, '/');
	base = base && base[1] ? base + 1 : (tmp[0] ? tmp : "target");
	if (!strcmp(base, "/"))
		base = "root";
	name_part(label, sizeof(label), r->label);
	name_part(what, sizeof(what), base);
	localtime_r(&r->date, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s/%s-%s-%s.json", fdw_bench_dir(), label, what, stamp);
}

static struct json_object *metric_to_json(const struct fdw_bench_metric *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *s = json_object_new_array();
	size_t i;

	json_object_object_add(o, "key", json_object_new_string(m->key));
	json_object_object_add(o, "unit", json_object_new_string(m->unit));
	json_object_object_add(o, "higher_is_better", json_object_new_boolean(m->higher_is_better));
	for (i = 0; i < m->n && i < FDW_BENCH_MAX_REPEATS; i++)
		json_object_array_add(s, json_object_new_double(m->samples[i]));
	json_object_object_add(o, "samples", s);
	json_object_object_add(o, "median", json_object_new_double(m->median));
	json_object_object_add(o, "min", json_object_new_double(m->min));
	json_object_object_add(o, "max", json_object_new_double(m->max));
	json_object_object_add(o, "spread_pct", json_object_new_double(m->spread_pct));
	return o;
}

/*
 * What a row is, in words, for readers of the JSON: a row without figures says why in its
 * note, and never shows a bare "-".
 */
static const char *test_status(const struct fdw_bench_test *t)
{
	if (!strcmp(t->id, "cipher.recommended"))
		return "advice, not a measurement";
	if (t->primary >= t->n_metrics || !t->metrics[t->primary].n)
		return "not measured here";
	return "measured";
}

static struct json_object *test_to_json(const struct fdw_bench_test *t)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ms = json_object_new_array();
	size_t i;

	json_object_object_add(o, "id", json_object_new_string(t->id));
	json_object_object_add(o, "kind", json_object_new_string(t->kind));
	json_object_object_add(o, "title", json_object_new_string(t->title));
	json_object_object_add(o, "primary", json_object_new_string(
		t->primary < t->n_metrics ? t->metrics[t->primary].key : ""));
	json_object_object_add(o, "status", json_object_new_string(test_status(t)));
	json_object_object_add(o, "unstable", json_object_new_boolean(t->unstable));
	json_object_object_add(o, "note", json_object_new_string(t->note));
	for (i = 0; i < t->n_metrics && i < FDW_BENCH_MAX_METRICS; i++)
		json_object_array_add(ms, metric_to_json(&t->metrics[i]));
	json_object_object_add(o, "metrics", ms);
	return o;
}

struct json_object *fdw_bench_run_to_json(const struct fdw_bench_run *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ts = json_object_new_array();
	char date[40];
	struct tm tm;
	size_t i;

	gmtime_r(&r->date, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(o, "format", json_object_new_string(BENCH_FORMAT));
	json_object_object_add(o, "format_version", json_object_new_int(BENCH_FORMAT_VERSION));
	json_object_object_add(o, "label", json_object_new_string(r->label));
	json_object_object_add(o, "target", json_object_new_string(r->target));
	json_object_object_add(o, "device", json_object_new_string(r->device));
	json_object_object_add(o, "date", json_object_new_string(date));
	json_object_object_add(o, "date_unix", json_object_new_int64((int64_t)r->date));
	json_object_object_add(o, "fdewiz_version", json_object_new_string(r->fdewiz_version));
	json_object_object_add(o, "kernel", json_object_new_string(r->kernel));
	json_object_object_add(o, "cpu_model", json_object_new_string(r->cpu_model));
	json_object_object_add(o, "cipher", json_object_new_string(r->cipher));
	json_object_object_add(o, "io_engine", json_object_new_string(r->io_engine));
	json_object_object_add(o, "scale", json_object_new_string(r->scale));
	json_object_object_add(o, "note", json_object_new_string(r->note));
	json_object_object_add(o, "io_size", json_object_new_int64((int64_t)r->io_size));
	json_object_object_add(o, "io_runtime_s", json_object_new_double(r->io_runtime));
	for (i = 0; i < r->n_tests && i < FDW_BENCH_MAX_TESTS; i++)
		json_object_array_add(ts, test_to_json(&r->tests[i]));
	json_object_object_add(o, "tests", ts);
	return o;
}

int fdw_bench_run_save(const struct fdw_bench_run *r, const char *path)
{
	struct json_object *o = fdw_bench_run_to_json(r);
	int rc = fdw_json_write_atomic(path, o);

	json_object_put(o);
	return rc;
}

static bool get_bool(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static int metric_from_json(struct json_object *o, struct fdw_bench_metric *m)
{
	struct json_object *s;
	size_t i, n;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	fdw_json_get_str(o, "key", m->key, sizeof(m->key));
	fdw_json_get_str(o, "unit", m->unit, sizeof(m->unit));
	m->higher_is_better = get_bool(o, "higher_is_better");
	if (!m->key[0] || !json_object_object_get_ex(o, "samples", &s) ||
	    !json_object_is_type(s, json_type_array))
		return -EINVAL;
	n = json_object_array_length(s);
	if (n > FDW_BENCH_MAX_REPEATS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(s, i);

		if (!json_object_is_type(v, json_type_double) &&
		    !json_object_is_type(v, json_type_int))
			return -EINVAL;
		m->samples[i] = json_object_get_double(v);
		if (!__builtin_isfinite(m->samples[i]))
			return -EINVAL;
	}
	m->n = n;
	/* The statistics follow from the samples; recomputing them tolerates hand edits. */
	fdw_bench_metric_finish(m);
	return 0;
}

static int test_from_json(struct json_object *o, struct fdw_bench_test *t)
{
	struct json_object *ms;
	char primary[24];
	size_t i, n;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	fdw_json_get_str(o, "id", t->id, sizeof(t->id));
	fdw_json_get_str(o, "kind", t->kind, sizeof(t->kind));
	fdw_json_get_str(o, "title", t->title, sizeof(t->title));
	fdw_json_get_str(o, "note", t->note, sizeof(t->note));
	fdw_json_get_str(o, "primary", primary, sizeof(primary));
	t->unstable = get_bool(o, "unstable");
	if (!t->id[0] || !json_object_object_get_ex(o, "metrics", &ms) ||
	    !json_object_is_type(ms, json_type_array))
		return -EINVAL;
	n = json_object_array_length(ms);
	if (n > FDW_BENCH_MAX_METRICS)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		rc = metric_from_json(json_object_array_get_idx(ms, i), &t->metrics[i]);
		if (rc)
			return rc;
		if (!strcmp(t->metrics[i].key, primary))
			t->primary = i;
	}
	t->n_metrics = n;
	return 0;
}

int fdw_bench_run_load(const char *path, struct fdw_bench_run *r)
{
	struct json_object *o, *ts;
	char format[32];
	size_t i, n;
	int rc = -EINVAL;

	memset(r, 0, sizeof(*r));
	if (access(path, R_OK) != 0)
		return -errno;
	o = json_object_from_file(path);
	if (!o)
		return -EINVAL;
	if (!json_object_is_type(o, json_type_object))
		goto out;
	fdw_json_get_str(o, "format", format, sizeof(format));
	if (strcmp(format, BENCH_FORMAT) || !json_object_object_get_ex(o, "tests", &ts) ||
	    !json_object_is_type(ts, json_type_array))
		goto out;
	fdw_json_get_str(o, "label", r->label, sizeof(r->label));
	fdw_json_get_str(o, "target", r->target, sizeof(r->target));
	fdw_json_get_str(o, "device", r->device, sizeof(r->device));
	fdw_json_get_str(o, "fdewiz_version", r->fdewiz_version, sizeof(r->fdewiz_version));
	fdw_json_get_str(o, "kernel", r->kernel, sizeof(r->kernel));
	fdw_json_get_str(o, "cpu_model", r->cpu_model, sizeof(r->cpu_model));
	fdw_json_get_str(o, "cipher", r->cipher, sizeof(r->cipher));
	fdw_json_get_str(o, "io_engine", r->io_engine, sizeof(r->io_engine));
	fdw_json_get_str(o, "scale", r->scale, sizeof(r->scale));
	fdw_json_get_str(o, "note", r->note, sizeof(r->note));
	r->io_size = (uint64_t)fdw_json_get_int(o, "io_size");
	r->io_runtime = fdw_json_get_double(o, "io_runtime_s");
	r->date = (time_t)fdw_json_get_int(o, "date_unix");
	n = json_object_array_length(ts);
	if (n > FDW_BENCH_MAX_TESTS)
		goto out;
	for (i = 0; i < n; i++) {
		rc = test_from_json(json_object_array_get_idx(ts, i), &r->tests[i]);
		if (rc)
			goto out;
	}
	r->n_tests = n;
	rc = 0;
out:
	json_object_put(o);
	if (rc)
		memset(r, 0, sizeof(*r));
	return rc;
}

static double cpu_of(const struct fdw_bench_test *t)
{
	const struct fdw_bench_metric *m = fdw_bench_metric_get(t, "cpu_pct");

	return m && m->n ? m->median : -1;
}

size_t fdw_bench_compare(const struct fdw_bench_run *plain, const struct fdw_bench_run *enc,
			 struct fdw_bench_delta *out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < plain->n_tests && n < max; i++) {
		const struct fdw_bench_test *p = &plain->tests[i], *e = NULL;
		const struct fdw_bench_metric *mp, *me;
		struct fdw_bench_delta *d;
		double floor_pct;

		for (j = 0; j < enc->n_tests; j++) {
			if (!strcmp(enc->tests[j].id, p->id)) {
				e = &enc->tests[j];
				break;
			}
		}
		if (!e || p->primary >= p->n_metrics)
			continue;
		mp = &p->metrics[p->primary];
		me = fdw_bench_metric_get(e, mp->key);
		if (!me)
			continue;
		d = &out[n++];
		memset(d, 0, sizeof(*d));
		d->plain = p;
		d->encrypted = e;
		d->ratio_pct = mp->median > 0 ? me->median / mp->median * 100.0 : 0;
		if (mp->median <= 0)
			d->slowdown_pct = 0;
		else if (mp->higher_is_better)
			d->slowdown_pct = 100.0 - d->ratio_pct;
		else if (me->median > 0)
			/* Speed, not time: 12 s instead of 10 s is 83 % of the speed, 17 % slower,
			 * so that throughput and time lines mean the same and can be averaged. */
			d->slowdown_pct = 100.0 - mp->median / me->median * 100.0;
		else
			d->slowdown_pct = 0;
		d->spread_pct = mp->spread_pct > me->spread_pct ? mp->spread_pct : me->spread_pct;
		d->cpu_plain = cpu_of(p);
		d->cpu_encrypted = cpu_of(e);
		d->unstable = p->unstable || e->unstable;
		floor_pct = d->spread_pct > BENCH_SUSPICIOUS_FLOOR_PCT ? d->spread_pct :
			    BENCH_SUSPICIOUS_FLOOR_PCT;
		d->suspicious = mp->median > 0 && -d->slowdown_pct > floor_pct;
	}
	return n;
}
