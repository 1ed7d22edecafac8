/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Cipher benchmark (kernel crypto via libcryptsetup, else OpenSSL) and the cipher advice. */
#include "config.h"

#include <errno.h>
#include <libcryptsetup.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_cipher.h"
#include "base/clock.h"
#include "base/cpuinfo.h"
#include "base/i18n.h"
#include "base/log.h"

#define CIPHER_BUFFER (1024 * 1024)	/* as `cryptsetup benchmark` */
#define CIPHER_SECTOR 4096		/* LUKS2's usual sector size */
#define USERSPACE_NOTE "userspace OpenSSL, not the kernel's dm-crypt path"

struct cipher_case {
	const char *id;
	const char *title;
	const char *cipher;	/* libcryptsetup's names */
	const char *mode;
	size_t key_bytes;
	size_t iv_bytes;
	const EVP_CIPHER *(*evp)(void);	/* the same in OpenSSL, or NULL */
};

static const struct cipher_case cipher_cases[] = {
	{ "cipher.aes-xts-256", "AES-XTS, 256-bit key", "aes", "xts", 32, 16, EVP_aes_128_xts },
	{ "cipher.aes-xts-512", "AES-XTS, 512-bit key", "aes", "xts", 64, 16, EVP_aes_256_xts },
	{ "cipher.serpent-xts-512", "Serpent-XTS, 512-bit key", "serpent", "xts", 64, 16, NULL },
	{ "cipher.adiantum", "Adiantum (XChaCha12, AES), 256-bit key", "xchacha12,aes",
	  "adiantum", 32, 32, NULL },
};

/* English sentences: the msgid goes into the saved result, its translation to the person. */
static const char *const why_aes =
	N_("This CPU has AES instructions, so AES-XTS is fast and the standard choice.");
static const char *const why_adiantum =
	N_("This CPU has no AES instructions, so Adiantum is much faster than AES-XTS here "
	   "and just as safe.");
static const char *const why_unknown =
	N_("The CPU's features could not be read; AES-XTS is the standard choice, but check "
	   "the cipher benchmark before relying on it.");
static const char *const why_measured_adiantum =
	N_("Measured on this machine, Adiantum is clearly faster than AES-XTS, so it is the "
	   "better choice here.");
static const char *const why_measured_aes =
	N_("Measured on this machine, AES-XTS is clearly faster than Adiantum, so it is the "
	   "better choice here.");

static void advice_set(struct fdw_cipher_advice *a, bool aes, const char *why)
{
	bool has_aes = a->cpu_has_aes;

	memset(a, 0, sizeof(*a));
	a->cpu_has_aes = has_aes;
	snprintf(a->cipher, sizeof(a->cipher), "%s", aes ? "aes" : "xchacha12,aes");
	snprintf(a->mode, sizeof(a->mode), "%s", aes ? "xts-plain64" : "adiantum-plain64");
	a->key_bits = aes ? 512 : 256;
	snprintf(a->why, sizeof(a->why), "%s", _(why));
}

/* Fill @a from the CPU flags in @cpuinfo (NULL: unknown); returns the English sentence. */
static const char *advise_flags(const char *cpuinfo, struct fdw_cipher_advice *a)
{
	const char *why = !cpuinfo ? why_unknown :
			  fdw_cpuinfo_text_has_aes(cpuinfo) ? why_aes : why_adiantum;

	a->cpu_has_aes = cpuinfo && fdw_cpuinfo_text_has_aes(cpuinfo);
	advice_set(a, why != why_adiantum, why);
	return why;
}

void fdw_cipher_recommend_text(const char *cpuinfo, struct fdw_cipher_advice *a)
{
	advise_flags(cpuinfo, a);
}

/* Encryption MiB/s of a kernel-path (not userspace) test of @r, or -1. */
static double measured_enc(const struct fdw_bench_run *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->n_tests; i++) {
		const struct fdw_bench_test *t = &r->tests[i];

		if (strcmp(t->id, id) != 0 || t->n_metrics == 0 ||
		    strstr(t->note, USERSPACE_NOTE))
			continue;
		if (t->metrics[0].median > 0)
			return t->metrics[0].median;
	}
	return -1;
}

/* Advice from the flags, refined by the figures in @r; returns the English sentence. */
static const char *advise(const struct fdw_bench_run *r, struct fdw_cipher_advice *a,
			  bool *measured)
{
	char *text = fdw_cpuinfo_read();
	const char *why;
	double aes, adiantum;

	if (!text)
		fdw_log(FDW_LOG_WARN, "cannot read /proc/cpuinfo: %s", strerror(errno));
	why = advise_flags(text, a);
	free(text);
	*measured = false;
	if (!r)
		return why;
	aes = measured_enc(r, "cipher.aes-xts-512");
	adiantum = measured_enc(r, "cipher.adiantum");
	if (aes <= 0 || adiantum <= 0)
		return why;
	*measured = true;
	if (adiantum >= 1.5 * aes)
		why = why_measured_adiantum;
	else if (aes >= 1.5 * adiantum)
		why = why_measured_aes;
	else
		return why;
	advice_set(a, why == why_measured_aes, why);
	return why;
}

int fdw_cipher_recommend(struct fdw_cipher_advice *a)
{
	bool measured;

	return advise(NULL, a, &measured) == why_unknown ? -EIO : 0;
}

int fdw_cipher_recommend_measured(const struct fdw_bench_run *r, struct fdw_cipher_advice *a)
{
	bool measured;

	advise(r, a, &measured);
	return measured;
}

int fdw_cipher_xts_userspace(const unsigned char *key, size_t key_len, uint64_t sector,
			     size_t sector_size, const unsigned char *in, unsigned char *out,
			     size_t len, bool encrypt)
{
	const EVP_CIPHER *c = key_len == 32 ? EVP_aes_128_xts() :
			      key_len == 64 ? EVP_aes_256_xts() : NULL;
	unsigned char iv[16];
	EVP_CIPHER_CTX *ctx;
	size_t off;
	int n, rc = 0;

	if (!c || sector_size < 16 || len % sector_size)
		return -EINVAL;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx)
		return -ENOMEM;
	if (EVP_CipherInit_ex(ctx, c, NULL, key, NULL, encrypt) != 1) {
		rc = -EINVAL;
		goto out;
	}
	for (off = 0; off < len; off += sector_size, sector++) {
		uint64_t s = sector;
		size_t i;

		/* plain64: the sector number, little-endian, zero-padded. */
		memset(iv, 0, sizeof(iv));
		for (i = 0; i < 8; i++, s >>= 8)
			iv[i] = (unsigned char)(s & 0xff);
		if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, -1) != 1 ||
		    EVP_CipherUpdate(ctx, out + off, &n, in + off, (int)sector_size) != 1 ||
		    (size_t)n != sector_size) {
			rc = -EIO;
			goto out;
		}
	}
out:
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

/* One userspace measurement of @c: encryption and decryption MiB/s over at least @min_s. */
static int userspace_measure(const struct cipher_case *c, double min_s, double *enc,
			     double *dec)
{
	unsigned char key[64];
	unsigned char *a, *b;
	int rc = 0, pass;

	a = malloc(CIPHER_BUFFER);
	b = malloc(CIPHER_BUFFER);
	if (!a || !b) {
		rc = -ENOMEM;
		goto out;
	}
	/* XTS refuses equal key halves; a random key never has them in practice. */
	do {
		if (RAND_bytes(key, (int)c->key_bytes) != 1) {
			rc = -EIO;
			goto out;
		}
	} while (!memcmp(key, key + c->key_bytes / 2, c->key_bytes / 2));
	memset(a, 0x5a, CIPHER_BUFFER);
	for (pass = 0; pass < 2 && !rc; pass++) {
		double start = fdw_now_s(), took;
		size_t bytes = 0;

		do {
			rc = fdw_cipher_xts_userspace(key, c->key_bytes, 0, CIPHER_SECTOR,
						      pass ? b : a, pass ? a : b, CIPHER_BUFFER,
						      pass == 0);
			bytes += CIPHER_BUFFER;
			took = fdw_now_s() - start;
		} while (!rc && took < min_s);
		if (!rc)
			*(pass ? dec : enc) = (double)bytes / (1024.0 * 1024.0) / took;
	}
out:
	OPENSSL_cleanse(key, sizeof(key));
	free(a);
	free(b);
	return rc;
}

static bool stopped(const struct fdw_bench_options *o, const char *what, double frac)
{
	if (o->stop && *o->stop)
		return true;
	return o->progress && o->progress(what, frac, o->progress_ctx) != 0;
}

static void metric_init(struct fdw_bench_metric *m, const char *key, const char *unit,
			bool higher)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->key, sizeof(m->key), "%s", key);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->higher_is_better = higher;
}

static struct fdw_bench_test *test_new(struct fdw_bench_run *r, const char *id,
				       const char *title)
{
	struct fdw_bench_test *t;

	if (r->n_tests >= FDW_BENCH_MAX_TESTS)
		return NULL;
	t = &r->tests[r->n_tests];
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->kind, sizeof(t->kind), "cipher");
	snprintf(t->title, sizeof(t->title), "%s", title);
	return t;
}

static void test_done(struct fdw_bench_run *r, struct fdw_bench_test *t)
{
	size_t i;

	for (i = 0; i < t->n_metrics; i++)
		fdw_bench_metric_finish(&t->metrics[i]);
	if (t->n_metrics)
		fdw_bench_test_finish(t);
	r->n_tests++;
}

static int run_full(char *why, size_t len)
{
	snprintf(why, len, "%s", _("The benchmark result holds no more tests; the cipher "
				   "benchmark was not run. Run it on its own."));
	return -ENOSPC;
}

static int run_stopped(char *why, size_t len)
{
	snprintf(why, len, "%s", _("The cipher benchmark was stopped; nothing was changed."));
	return -EINTR;
}

static int bench_one_cipher(const struct fdw_bench_options *o, const struct cipher_case *c,
			    int repeats, double frac, struct fdw_bench_run *r)
{
	struct fdw_bench_test *t = test_new(r, c->id, c->title);
	double min_s = o->scale == FDW_BENCH_TINY ? 0.05 : o->scale == FDW_BENCH_QUICK ? 0.2 :
		       o->scale == FDW_BENCH_NORMAL ? 0.5 : 1.0;
	double enc = 0, dec = 0;
	bool userspace = false;
	int k, rc;

	if (!t)
		return -ENOSPC;
	metric_init(&t->metrics[0], "enc_mibps", "MiB/s", true);
	metric_init(&t->metrics[1], "dec_mibps", "MiB/s", true);
	rc = crypt_benchmark(NULL, c->cipher, c->mode, c->key_bytes, c->iv_bytes, CIPHER_BUFFER,
			     &enc, &dec);
	if (rc < 0) {
		fdw_log(FDW_LOG_INFO, "crypt_benchmark %s-%s: %s", c->cipher, c->mode,
			strerror(-rc));
		if (!c->evp) {
			snprintf(t->note, sizeof(t->note),
				 "not measurable here: the kernel crypto API gave \"%s\" and "
				 "OpenSSL has no %s.", strerror(-rc), c->cipher);
			test_done(r, t);
			return 0;
		}
		userspace = true;
		snprintf(t->title, sizeof(t->title), "%s (userspace)", c->title);
		snprintf(t->note, sizeof(t->note), "%s (kernel: %s).", USERSPACE_NOTE,
			 strerror(-rc));
	} else {
		snprintf(t->note, sizeof(t->note),
			 "kernel crypto API, in memory, as cryptsetup benchmark.");
	}
	t->n_metrics = 2;
	/* The kernel's first answer only tells whether it can: the first use of a cipher may
	 * load its module and run the kernel's self-tests, which once made Adiantum and
	 * Serpent read 0 MiB/s on an emulated CPU (11 and 14 MiB/s a minute later). */
	for (k = 0; k < repeats; k++) {
		if (stopped(o, N_("measuring ciphers"), frac))
			return -EINTR;
		rc = userspace ? userspace_measure(c, min_s, &enc, &dec) :
			crypt_benchmark(NULL, c->cipher, c->mode, c->key_bytes, c->iv_bytes,
					CIPHER_BUFFER, &enc, &dec);
		if (rc < 0) {
			fdw_log(FDW_LOG_WARN, "cipher benchmark %s failed: %s", c->id,
				strerror(-rc));
			snprintf(t->note, sizeof(t->note), "measurement failed: %s",
				 strerror(-rc));
			t->n_metrics = 0;
			break;
		}
		t->metrics[0].samples[t->metrics[0].n++] = enc;
		t->metrics[1].samples[t->metrics[1].n++] = dec;
	}
	test_done(r, t);
	return 0;
}

static int pbkdf_progress(uint32_t time_ms, void *usrptr)
{
	*(uint32_t *)usrptr = time_ms;
	return 0;
}

static int bench_pbkdf(const struct fdw_bench_options *o, int repeats, struct fdw_bench_run *r)
{
	static const char salt[32] = "fdewiz pbkdf benchmark salt....";
	struct fdw_bench_test *t = test_new(r, "cipher.pbkdf-argon2id",
					    "argon2id at the LUKS2 default cost");
	const struct crypt_pbkdf_type *def = crypt_get_pbkdf_default(CRYPT_LUKS2);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int k, rc;

	if (!t)
		return -ENOSPC;
	metric_init(&t->metrics[0], "ms", "ms", false);
	metric_init(&t->metrics[1], "iterations", "", true);
	metric_init(&t->metrics[2], "memory_kib", "KiB", true);
	metric_init(&t->metrics[3], "threads", "", true);
	t->n_metrics = 4;
	for (k = 0; k < repeats; k++) {
		struct crypt_pbkdf_type p;
		uint32_t last_ms = 0;

		if (stopped(o, N_("timing the key derivation"), 0.8 + 0.2 * k / repeats))
			return -EINTR;
		p = *def;
		p.type = CRYPT_KDF_ARGON2ID;
		p.iterations = 0;
		p.flags = 0;
		/* luksFormat uses no more threads than there are online CPUs. */
		if (cpus > 0 && p.parallel_threads > (uint32_t)cpus)
			p.parallel_threads = (uint32_t)cpus;
		rc = crypt_benchmark_pbkdf(NULL, &p, "fdewizbm", 8, salt, sizeof(salt), 64,
					   pbkdf_progress, &last_ms);
		if (rc < 0) {
			fdw_log(FDW_LOG_WARN, "crypt_benchmark_pbkdf failed: %s", strerror(-rc));
			snprintf(t->note, sizeof(t->note), "not measurable here: %s",
				 strerror(-rc));
			t->n_metrics = 0;
			break;
		}
		t->metrics[0].samples[t->metrics[0].n++] = last_ms;
		t->metrics[1].samples[t->metrics[1].n++] = p.iterations;
		t->metrics[2].samples[t->metrics[2].n++] = p.max_memory_kb;
		t->metrics[3].samples[t->metrics[3].n++] = p.parallel_threads;
		if (!t->note[0])
			snprintf(t->note, sizeof(t->note),
				 "target %u ms, at most %u KiB: one unlock of a new LUKS2 keyslot.",
				 def->time_ms, def->max_memory_kb);
	}
	test_done(r, t);
	return 0;
}

static int bench_advice(struct fdw_bench_run *r)
{
	struct fdw_cipher_advice a;
	struct fdw_bench_test *t;
	bool measured;
	const char *why = advise(r, &a, &measured);

	t = test_new(r, "cipher.recommended", "");
	if (!t)
		return -ENOSPC;
	snprintf(t->title, sizeof(t->title), "recommended: %s %s, %u-bit key", a.cipher, a.mode,
		 a.key_bits);
	/* The saved result speaks English: the sentence before translation. */
	snprintf(t->note, sizeof(t->note), "%s", why);
	test_done(r, t);
	return 0;
}

int fdw_bench_cipher(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		     size_t len)
{
	size_t n = sizeof(cipher_cases) / sizeof(cipher_cases[0]), i;
	int repeats = o->repeats > 0 ? o->repeats : 3;
	int rc;

	if (repeats > FDW_BENCH_MAX_REPEATS)
		repeats = FDW_BENCH_MAX_REPEATS;
	/* All cipher tests, the PBKDF and the advice, or none. */
	if (r->n_tests + n + 2 > FDW_BENCH_MAX_TESTS)
		return run_full(why, len);
	for (i = 0; i < n; i++) {
		rc = bench_one_cipher(o, &cipher_cases[i], repeats, 0.8 * i / n, r);
		if (rc == -EINTR)
			return run_stopped(why, len);
		if (rc < 0)
			return run_full(why, len);
	}
	/* Each derivation takes seconds by design: once is enough at the tiny scale. */
	rc = o->skip_pbkdf ? 0 : bench_pbkdf(o, o->scale == FDW_BENCH_TINY ? 1 : repeats, r);
	if (rc == -EINTR)
		return run_stopped(why, len);
	if (rc == 0)
		rc = bench_advice(r);
	if (rc < 0)
		return run_full(why, len);
	if (o->progress)
		o->progress(N_("measuring ciphers"), 1.0, o->progress_ctx);
	return 0;
}
