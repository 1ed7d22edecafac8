/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The prediction of the encrypted volume's speed: the model, its sentence, its record. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "predict.h"

#define MB_PER_MIB 1.048576
#define SMALL_IO 4096.0
/* Below this many percent a slowdown is called "barely changes". */
#define BARELY_PCT 10.0

/*
 * One benchmark line and the test whose figure stands for the disk under it: a read line
 * its own read test; a write line (and the mix) its own measured test too, never a read
 * one: the plan measures reading only (nothing may be written before the conversion), so
 * its prediction has no write lines ("not measured"), while a measurement with writes (a
 * plain benchmark) predicts them from the disk's write speed.
 */
struct line {
	const char *id;
	const char *title;	/* as bench_io.c names it, so the translation is shared */
	const char *from;
	bool write, random;
	unsigned qd;
	unsigned read_pct;	/* a mix: the share of reads; 0 otherwise */
};

static const struct line lines[] = {
	{ "io.seqread.qd8", N_("SEQ1M Q8T1 read"), "io.seqread.qd8", false, false, 8, 0 },
	{ "io.seqwrite.qd8", N_("SEQ1M Q8T1 write"), "io.seqwrite.qd8", true, false, 8, 0 },
	{ "io.seqread.qd1", N_("SEQ1M Q1T1 read"), "io.seqread.qd1", false, false, 1, 0 },
	{ "io.seqwrite.qd1", N_("SEQ1M Q1T1 write"), "io.seqwrite.qd1", true, false, 1, 0 },
	{ "io.randread.qd32", N_("RND4K Q32T1 read"), "io.randread.qd32", false, true, 32, 0 },
	{ "io.randwrite.qd32", N_("RND4K Q32T1 write"), "io.randwrite.qd32", true, true, 32, 0 },
	{ "io.randread.qd1", N_("RND4K Q1T1 read"), "io.randread.qd1", false, true, 1, 0 },
	{ "io.randwrite.qd1", N_("RND4K Q1T1 write"), "io.randwrite.qd1", true, true, 1, 0 },
	{ "io.randrw70.qd32", N_("RND4K Q32T1 mix 70/30"), "io.randrw70.qd32", true, true, 32,
	  70 },
};
#define N_LINES (sizeof(lines) / sizeof(lines[0]))

double fdw_predict_stream(double disk, double cipher, double bytes, double overhead_us,
			  unsigned qd, unsigned cores)
{
	double cpu_us, k;

	if (disk <= 0 || cipher <= 0 || bytes <= 0)
		return 0;
	/* MB/s is bytes per microsecond: bytes / rate is a time in microseconds. */
	cpu_us = bytes / cipher + (overhead_us > 0 ? overhead_us : 0);
	if (qd <= 1)
		return bytes / (bytes / disk + cpu_us);
	k = qd < cores ? qd : cores > 0 ? cores : 1;
	return bytes * k / cpu_us < disk ? bytes * k / cpu_us : disk;
}

const char *fdw_predict_cipher_test(const char *cipher, const char *mode, unsigned key_bits)
{
	if (!cipher || !mode)
		return NULL;
	if (!strcmp(cipher, "aes") && !strncmp(mode, "xts", 3))
		return key_bits == 256 ? "cipher.aes-xts-256" : "cipher.aes-xts-512";
	if (!strcmp(cipher, "serpent") && !strncmp(mode, "xts", 3))
		return "cipher.serpent-xts-512";
	if (strstr(mode, "adiantum"))
		return "cipher.adiantum";
	return NULL;
}

static const struct fdw_bench_test *find(const struct fdw_bench_run *r, const char *id)
{
	for (size_t i = 0; r && i < r->n_tests; i++)
		if (!strcmp(r->tests[i].id, id))
			return &r->tests[i];
	return NULL;
}

/* Median of metric @key of test @id in @r, or 0. */
static double figure(const struct fdw_bench_run *r, const char *id, const char *key)
{
	const struct fdw_bench_test *t = find(r, id);
	const struct fdw_bench_metric *m = t ? fdw_bench_metric_get(t, key) : NULL;

	return m && m->n && m->median > 0 ? m->median : 0;
}

bool fdw_predict_cipher_speed(const struct fdw_bench_run *measured, const char *id,
			      double *mibps)
{
	*mibps = figure(measured, id, "enc_mibps");
	return *mibps > 0;
}

static void metric_set(struct fdw_bench_metric *m, const char *key, const char *unit,
		       bool higher, double v)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->key, sizeof(m->key), "%s", key);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->higher_is_better = higher;
	m->samples[0] = v;
	m->n = 1;
	fdw_bench_metric_finish(m);
}

/* The cipher's rate (MB/s, one core) that line @l goes through. */
static double line_cipher(const struct line *l, double enc, double dec)
{
	if (l->read_pct)
		return 1.0 / (l->read_pct / 100.0 / dec + (100 - l->read_pct) / 100.0 / enc);
	return l->write ? enc : dec;
}

/* What the measurement says of one request's fixed cost, in microseconds (0: unknown). */
struct request_cost {
	double call;	/* the crypto call */
	double hop;	/* a hop to another thread while the CPUs are busy */
	double wake;	/* the same to a thread whose CPU had gone idle */
};

/*
 * The fixed cost of one request of line @l: one crypto call, and the hops between
 * threads dm-crypt makes it take: a read is decrypted in its work queue (one hop), a
 * write is encrypted there and then handed to its write thread (two). A request alone
 * in flight (QD1) finds the worker asleep on an idle CPU; queued ones find it busy.
 */
static double line_overhead(const struct line *l, const struct request_cost *c)
{
	double hops = l->read_pct ? (l->read_pct + 2.0 * (100 - l->read_pct)) / 100.0 :
		      l->write ? 2.0 : 1.0;

	return c->call + hops * (l->qd <= 1 && c->wake > 0 ? c->wake : c->hop);
}

/* The spread (percent) of metric @key of test @id in @r, or 0. */
static double spread(const struct fdw_bench_run *r, const char *id, const char *key)
{
	const struct fdw_bench_test *t = find(r, id);
	const struct fdw_bench_metric *m = t ? fdw_bench_metric_get(t, key) : NULL;

	return m && m->n > 1 ? m->spread_pct : 0;
}

/* The disk's figure as the probe saw it, its spread kept (three samples around it): the
 * results tell a baseline that disagrees with the probe from one within its noise. */
static void metric_set_spread(struct fdw_bench_metric *m, const char *key, const char *unit,
			      double v, double spread_pct)
{
	metric_set(m, key, unit, true, v);
	if (spread_pct <= 0)
		return;
	m->samples[0] = v * (1.0 - spread_pct / 200.0);
	m->samples[1] = v;
	m->samples[2] = v * (1.0 + spread_pct / 200.0);
	m->n = 3;
	fdw_bench_metric_finish(m);
}

static void line_fill(struct fdw_bench_test *t, const struct line *l, double disk,
		      double disk_spread, double cipher, double overhead_us, unsigned cpus)
{
	double bs = l->random ? SMALL_IO : 1024.0 * 1024.0;
	double enc = fdw_predict_stream(disk, cipher, bs, overhead_us, l->qd, cpus);
	/* One core's busy time per request, times the requests per microsecond. */
	double cpu_pct = (bs / cipher + overhead_us) * enc / bs * 100.0;

	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", l->id);
	snprintf(t->kind, sizeof(t->kind), "io");
	snprintf(t->title, sizeof(t->title), "%s", l->title);
	metric_set(&t->metrics[0], "mbps", "MB/s", true, enc);
	metric_set(&t->metrics[1], "iops", "IOPS", true, enc * 1e6 / bs);
	metric_set_spread(&t->metrics[2], "plain_mbps", "MB/s", disk, disk_spread);
	metric_set_spread(&t->metrics[3], "plain_iops", "IOPS", disk * 1e6 / bs, disk_spread);
	metric_set(&t->metrics[4], "crypto_cpu_pct", "%", false, cpu_pct);
	metric_set(&t->metrics[5], "request_us", "us", false, overhead_us);
	t->n_metrics = 6;
	t->primary = l->random ? 1 : 0;
	snprintf(t->note, sizeof(t->note), "%s", l->write || l->read_pct ?
		 "predicted from the disk's measured write speed" :
		 "predicted from a read-only measurement");
}

size_t fdw_predict_make(const struct fdw_bench_run *measured, const char *cipher_test,
			unsigned cpus, struct fdw_bench_run *out)
{
	double enc = cipher_test ? figure(measured, cipher_test, "enc_mibps") * MB_PER_MIB : 0;
	double dec = cipher_test ? figure(measured, cipher_test, "dec_mibps") * MB_PER_MIB : 0;
	/* 0 when not measured (a measurement from before it was made): no per-request term. */
	struct request_cost rc = {
		.call = cipher_test ? figure(measured, cipher_test, FDW_PREDICT_CALL_KEY) : 0,
		.hop = figure(measured, FDW_PREDICT_HOP_TEST, FDW_PREDICT_HOP_KEY),
		.wake = figure(measured, FDW_PREDICT_HOP_TEST, FDW_PREDICT_WAKE_KEY),
	};

	memset(out, 0, sizeof(*out));
	snprintf(out->label, sizeof(out->label), "predicted");
	if (measured) {
		snprintf(out->target, sizeof(out->target), "%s", measured->target);
		snprintf(out->device, sizeof(out->device), "%s", measured->device);
		snprintf(out->scale, sizeof(out->scale), "%s", measured->scale);
		out->date = measured->date;
	}
	if (cipher_test)
		snprintf(out->cipher, sizeof(out->cipher), "%s", cipher_test + strlen("cipher."));
	if (enc <= 0 || dec <= 0)
		return 0;
	for (size_t i = 0; i < N_LINES; i++) {
		double disk = figure(measured, lines[i].from, "mbps");

		if (disk <= 0)
			continue;
		line_fill(&out->tests[out->n_tests++], &lines[i], disk,
			  spread(measured, lines[i].from, "mbps"), line_cipher(&lines[i], enc, dec),
			  line_overhead(&lines[i], &rc), cpus ? cpus : 1);
	}
	return out->n_tests;
}

double fdw_predict_ratio(const struct fdw_bench_run *pred, const char *id, const char *key)
{
	char plain_key[32];
	double plain, enc;

	if ((size_t)snprintf(plain_key, sizeof(plain_key), "plain_%s", key) >= sizeof(plain_key))
		return -1;
	plain = figure(pred, id, plain_key);
	enc = figure(pred, id, key);
	return plain > 0 && enc > 0 ? enc / plain : -1;
}

double fdw_predict_slowdown_of(const struct fdw_bench_run *pred, const char *id,
			       const char *key)
{
	double r = fdw_predict_ratio(pred, id, key);

	if (r <= 0)
		return -1;
	return r >= 1 ? 0 : (1.0 - r) * 100.0;
}

double fdw_predict_slowdown(const struct fdw_bench_run *pred, const char *id)
{
	return fdw_predict_slowdown_of(pred, id, "mbps");
}

void fdw_predict_sentence(const struct fdw_bench_run *pred, char *buf, size_t len)
{
	double large = fdw_predict_slowdown(pred, "io.seqread.qd8");
	double s1 = fdw_predict_slowdown(pred, "io.randread.qd1");
	double s32 = fdw_predict_slowdown(pred, "io.randread.qd32");
	double small = s1 > s32 ? s1 : s32;

	if (large < 0 || small < 0)
		snprintf(buf, len, "%s", _("No prediction: the disk or the cipher could not be "
					   "measured here."));
	else if (large < BARELY_PCT && small < BARELY_PCT)
		snprintf(buf, len, "%s", _("Reading large files and small-file work barely "
					   "change here: the disk, not the cipher, sets the pace."));
	else if (small < BARELY_PCT)
		snprintf(buf, len, _("Reading large files: about %.0f %% slower here; small-file "
				     "work barely changes."), large);
	else if (large < BARELY_PCT)
		snprintf(buf, len, _("Reading large files barely changes here; small-file work: "
				     "about %.0f %% slower."), small);
	else
		snprintf(buf, len, _("Reading large files: about %.0f %% slower here; small-file "
				     "work: about %.0f %% slower."), large, small);
}

size_t fdw_predict_plan(const struct fdw_bench_run *measured, const struct fdw_plan *pl,
			struct fdw_bench_run *out)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return fdw_predict_make(measured, fdw_predict_cipher_test(pl->cipher, pl->cipher_mode,
								  pl->key_bits),
				cpus > 0 ? (unsigned)cpus : 1, out);
}

static const struct fdw_cipher_choice choices[] = {
	{ N_("AES-XTS, 256-bit key"), "aes-xts-plain64", 256, "cipher.aes-xts-256" },
	{ N_("AES-XTS, 512-bit key"), "aes-xts-plain64", 512, "cipher.aes-xts-512" },
	{ N_("Adiantum (XChaCha12, AES), 256-bit key"), "xchacha12,aes-adiantum-plain64", 256,
	  "cipher.adiantum" },
	{ N_("Serpent-XTS, 512-bit key"), "serpent-xts-plain64", 512, "cipher.serpent-xts-512" },
};

size_t fdw_cipher_choices(const struct fdw_cipher_choice **out)
{
	*out = choices;
	return sizeof(choices) / sizeof(choices[0]);
}

int fdw_cipher_choice_of(const struct fdw_plan *pl)
{
	const char *test = fdw_predict_cipher_test(pl->cipher, pl->cipher_mode, pl->key_bits);

	for (size_t i = 0; test && i < sizeof(choices) / sizeof(choices[0]); i++)
		if (!strcmp(choices[i].test, test) && choices[i].key_bits == pl->key_bits)
			return (int)i;
	return -1;
}

int fdw_cipher_choice_speed(const struct fdw_bench_run *measured,
			    const struct fdw_cipher_choice *c, double *mibps, bool *userspace,
			    char *buf, size_t len)
{
	const struct fdw_bench_test *t = find(measured, c->test);

	*mibps = 0;
	*userspace = false;
	buf[0] = '\0';
	if (!measured) {
		snprintf(buf, len, "%s", _("measuring..."));
		return 0;
	}
	if (fdw_predict_cipher_speed(measured, c->test, mibps)) {
		*userspace = t && strstr(t->note, "userspace");
		return 1;
	}
	if (!t || strstr(t->note, "not measurable"))
		snprintf(buf, len, "%s", _("not measured: not in this kernel"));
	else
		snprintf(buf, len, "%s", _("not measured: the measurement failed"));
	return 0;
}

bool fdw_cipher_choice_usable(const struct fdw_bench_run *measured,
			      const struct fdw_cipher_choice *c)
{
	const struct fdw_bench_test *t = find(measured, c->test);

	/* Until measured, every choice may be tried: the plan checks it again. */
	return !measured || !t || !strstr(t->note, "not measurable");
}

int fdw_predict_record(const struct fdw_bench_run *pred, struct fdw_job *job)
{
	char path[PATH_MAX];
	int rc;

	if (!pred || !pred->n_tests)
		return 0;
	rc = fdw_bench_dir_ensure();
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/predicted-%.8s.json", fdw_bench_dir(), job->id);
	rc = fdw_bench_run_save(pred, path);
	if (!rc)
		snprintf(job->bench_predicted, sizeof(job->bench_predicted), "%s", path);
	return rc;
}
