/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the prediction: the model, the lines it fills, its sentence and its record. */
#include "unit.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/state/job.h"
#include "core/convert/predict.h"
#include "core/convert/results.h"

static void test_stream_model(void **state)
{
	(void)state;
	/* Queue depth 1: the disk and the cipher take turns. */
	assert_float_equal(fdw_predict_stream(500, 500, 4096, 0, 1, 4), 250, 1e-9);
	assert_float_equal(fdw_predict_stream(100, 900, 4096, 0, 1, 4), 90, 1e-9);
	assert_float_equal(fdw_predict_stream(500, 300, 4096, 0, 1, 8), 187.5, 1e-9);
	/* Deeper queues overlap them: on one core the slower one sets the pace... */
	assert_float_equal(fdw_predict_stream(500, 300, 4096, 0, 8, 1), 300, 1e-9);
	/* ...several cores share the cipher's work, up to one per request in flight... */
	assert_float_equal(fdw_predict_stream(500, 300, 4096, 0, 2, 4), 500, 1e-9);
	assert_float_equal(fdw_predict_stream(2000, 300, 4096, 0, 4, 8), 1200, 1e-9);
	assert_float_equal(fdw_predict_stream(2000, 300, 4096, 0, 32, 2), 600, 1e-9);
	/* ...and a fast cipher leaves the disk's figure as it is. */
	assert_float_equal(fdw_predict_stream(500, 3000, 4096, 0, 8, 1), 500, 1e-9);
	/* Never faster than either, never zero when both are known. */
	for (double d = 10; d < 5000; d *= 3)
		for (double c = 10; c < 5000; c *= 3)
			for (unsigned q = 1; q <= 32; q *= 2)
				for (double o = 0; o < 100; o = o * 4 + 2) {
					double s = fdw_predict_stream(d, c, 4096, o, q, 4);

					assert_true(s > 0 && s <= d + 1e-9 && s <= c * 4 + 1e-9);
					/* Never slower than one request at a time... */
					assert_true(s >= fdw_predict_stream(d, c, 4096, o, 1, 4) -
							 1e-9);
					/* ...and a cost per request never makes it faster. */
					assert_true(s <= fdw_predict_stream(d, c, 4096, 0, q, 4) +
							 1e-9);
				}
	/* Unknown figures give no prediction. */
	assert_float_equal(fdw_predict_stream(0, 300, 4096, 0, 1, 1), 0, 0);
	assert_float_equal(fdw_predict_stream(300, -1, 4096, 0, 8, 2), 0, 0);
	assert_float_equal(fdw_predict_stream(300, 300, 0, 5, 8, 2), 0, 0);
}

/*
 * The per-request cost: a fast disk (an NVMe drive) and a slow cipher (a netbook without
 * AES instructions), on two cores. MB/s is bytes per microsecond, so bytes / MB/s gives
 * microseconds. Figures by hand:
 *   cipher 100 MiB/s = 104.8576 MB/s: 4096 B take 4096 / 104.8576 = 39.0625 us,
 *                                      1 MiB takes 1048576 / 104.8576 = 10000 us;
 *   fixed cost measured: a crypto call 20 us, a hop between threads 25 us:
 *                        a read 20 + 25 = 45 us, a write 20 + 2 * 25 = 70 us.
 */
#define NVME_4K_QD1 81.92	/* MB/s: 20000 IOPS, 4096 / 81.92 = 50 us per request */
#define NVME_4K_QD32 1638.4	/* MB/s: 400000 IOPS */
#define SLOW_CIPHER 104.8576	/* MB/s: 100 MiB/s */

static void test_request_cost(void **state)
{
	double v;

	(void)state;
	/*
	 * RND4K Q1T1 read: 50 + 39.0625 + 45 = 134.0625 us a request, 1e6 / 134.0625 =
	 * 7459.2 IOPS (4096 / 134.0625 = 30.5529 MB/s). Without the term: 50 + 39.0625 =
	 * 89.0625 us, 11228.1 IOPS: half as fast again as the model now says.
	 */
	v = fdw_predict_stream(NVME_4K_QD1, SLOW_CIPHER, 4096, 45, 1, 2);
	assert_float_equal(v, 4096 / 134.0625, 1e-9);
	assert_float_equal(v * 1e6 / 4096, 7459.207, 1e-3);
	assert_float_equal(fdw_predict_stream(NVME_4K_QD1, SLOW_CIPHER, 4096, 0, 1, 2) * 1e6 /
			   4096, 11228.070, 1e-3);
	/*
	 * RND4K Q32T1 read: one core works 39.0625 + 45 = 84.0625 us on each request; two
	 * cores: 2 / 84.0625 us = 23791.8 IOPS (97.452 MB/s), far below the disk's 400000.
	 * Without the term 2 / 39.0625 us = 51200 IOPS.
	 */
	v = fdw_predict_stream(NVME_4K_QD32, SLOW_CIPHER, 4096, 45, 32, 2);
	assert_float_equal(v * 1e6 / 4096, 23791.822, 1e-3);
	assert_float_equal(fdw_predict_stream(NVME_4K_QD32, SLOW_CIPHER, 4096, 0, 32, 2) *
			   1e6 / 4096, 51200, 1e-6);
	/*
	 * Bounded by the per-request cost: however fast the cipher, two cores doing 45 us
	 * each per request give at most 2 / 45 us = 44444.4 IOPS; one at a time at most
	 * 1 / (50 + 45) us = 10526.3 IOPS.
	 */
	v = fdw_predict_stream(NVME_4K_QD32, 1e12, 4096, 45, 32, 2);
	assert_float_equal(v * 1e6 / 4096, 44444.444, 1e-2);
	v = fdw_predict_stream(NVME_4K_QD1, 1e12, 4096, 45, 1, 2);
	assert_float_equal(v * 1e6 / 4096, 10526.316, 1e-2);
	/*
	 * SEQ1M Q8T1 read (disk 2000 MB/s): 10000 + 45 = 10045 us a request on each of two
	 * cores: 2 * 1048576 / 10045 = 208.776 MB/s; without the term 2 * 1048576 / 10000 =
	 * 209.715 MB/s: 0.45 % less.
	 */
	v = fdw_predict_stream(2000, SLOW_CIPHER, 1048576, 45, 8, 2);
	assert_float_equal(v, 2 * 1048576 / 10045.0, 1e-9);
	assert_float_equal(v, 208.776, 1e-3);
	assert_float_equal(fdw_predict_stream(2000, SLOW_CIPHER, 1048576, 0, 8, 2), 209.7152,
			   1e-9);
	assert_true(1 - v / 209.7152 < 0.005);
	/*
	 * SEQ1M Q1T1 read (disk 1000 MB/s: 1048.576 us a request): 1048.576 + 10045 =
	 * 11093.576 us, 94.521 MB/s; without the term 11048.576 us, 94.906 MB/s: 0.41 % less.
	 */
	v = fdw_predict_stream(1000, SLOW_CIPHER, 1048576, 45, 1, 2);
	assert_float_equal(v, 1048576 / 11093.576, 1e-9);
	assert_true(1 - v / fdw_predict_stream(1000, SLOW_CIPHER, 1048576, 0, 1, 2) < 0.005);
}

static void test_cipher_test_names(void **state)
{
	(void)state;
	assert_string_equal(fdw_predict_cipher_test("aes", "xts-plain64", 512),
			    "cipher.aes-xts-512");
	assert_string_equal(fdw_predict_cipher_test("aes", "xts-plain64", 256),
			    "cipher.aes-xts-256");
	assert_string_equal(fdw_predict_cipher_test("serpent", "xts-plain64", 512),
			    "cipher.serpent-xts-512");
	assert_string_equal(fdw_predict_cipher_test("xchacha12,aes", "adiantum-plain64", 256),
			    "cipher.adiantum");
	assert_null(fdw_predict_cipher_test("twofish", "cbc-essiv:sha256", 256));
	assert_null(fdw_predict_cipher_test(NULL, "xts-plain64", 512));
}

/* One more metric @key of one sample @v on test @t. */
static void add_metric(struct fdw_bench_test *t, const char *key, double v)
{
	struct fdw_bench_metric *m = &t->metrics[t->n_metrics++];

	snprintf(m->key, sizeof(m->key), "%s", key);
	m->samples[m->n++] = v;
	fdw_bench_metric_finish(m);
}

static void add_test(struct fdw_bench_run *r, const char *id, const char *key, double v1,
		     const char *key2, double v2)
{
	struct fdw_bench_test *t = &r->tests[r->n_tests++];

	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	add_metric(t, key, v1);
	if (key2)
		add_metric(t, key2, v2);
}

/* A disk of 500 MB/s sequential and 40 MB/s random (QD32), 8 MB/s at QD1. */
static void measured_disk(struct fdw_bench_run *r)
{
	memset(r, 0, sizeof(*r));
	add_test(r, "io.seqread.qd8", "mbps", 500, NULL, 0);
	add_test(r, "io.seqread.qd1", "mbps", 300, NULL, 0);
	add_test(r, "io.randread.qd32", "mbps", 40, NULL, 0);
	add_test(r, "io.randread.qd1", "mbps", 8, NULL, 0);
}

static const struct fdw_bench_test *line(const struct fdw_bench_run *r, const char *id)
{
	for (size_t i = 0; i < r->n_tests; i++)
		if (!strcmp(r->tests[i].id, id))
			return &r->tests[i];
	fail_msg("no line %s", id);
	return NULL;
}

static double metric(const struct fdw_bench_test *t, const char *key)
{
	const struct fdw_bench_metric *m = fdw_bench_metric_get(t, key);

	assert_non_null(m);
	return m->median;
}

static void test_lines_slow_cipher(void **state)
{
	static struct fdw_bench_run m, p;
	double mb = 1.048576;
	char s[512];

	(void)state;
	measured_disk(&m);
	/* A netbook without AES instructions: AES-XTS at 200 MiB/s each way. */
	add_test(&m, "cipher.aes-xts-512", "enc_mibps", 200, "dec_mibps", 200);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 1, &p), 4);
	assert_string_equal(p.label, "predicted");
	/* One core: the cipher caps large reads. */
	assert_float_equal(metric(line(&p, "io.seqread.qd8"), "mbps"), 200 * mb, 1e-6);
	assert_float_equal(metric(line(&p, "io.seqread.qd8"), "plain_mbps"), 500, 1e-6);
	/* Queue depth 1 adds the two times. */
	assert_float_equal(metric(line(&p, "io.seqread.qd1"), "mbps"),
			   1 / (1 / 300.0 + 1 / (200 * mb)), 1e-6);
	/* Small random reads: the disk is the limit, the cipher adds little. */
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "mbps"),
			   1 / (1 / 8.0 + 1 / (200 * mb)), 1e-6);
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "iops"),
			   1e6 / 4096 / (1 / 8.0 + 1 / (200 * mb)), 1e-3);
	assert_int_equal(line(&p, "io.randread.qd1")->primary, 1);
	/* CPU: at 200 MiB/s through a 200 MiB/s cipher, one whole core. */
	assert_float_equal(metric(line(&p, "io.seqread.qd8"), "crypto_cpu_pct"), 100, 1e-6);
	assert_float_equal(fdw_predict_slowdown(&p, "io.seqread.qd8"),
			   (1 - 200 * mb / 500) * 100, 1e-6);
	fdw_predict_sentence(&p, s, sizeof(s));
	assert_non_null(strstr(s, "Reading large files: about 58 % slower here; small-file "
			    "work barely changes."));
	/* Two cores share the work of eight requests in flight. */
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 2, &p), 4);
	assert_float_equal(metric(line(&p, "io.seqread.qd8"), "mbps"), 400 * mb, 1e-6);
}

/*
 * The same through fdw_predict_make(), from a measurement with the per-request figures:
 * the disk of test_request_cost(), AES-XTS at 100 MiB/s both ways with a 20 us call, and
 * a 25 us hop; two cores.
 */
static void test_lines_request_cost(void **state)
{
	static struct fdw_bench_run m, p;

	(void)state;
	memset(&m, 0, sizeof(m));
	add_test(&m, "io.seqread.qd8", "mbps", 2000, NULL, 0);
	add_test(&m, "io.seqread.qd1", "mbps", 1000, NULL, 0);
	add_test(&m, "io.randread.qd32", "mbps", NVME_4K_QD32, NULL, 0);
	add_test(&m, "io.randread.qd1", "mbps", NVME_4K_QD1, NULL, 0);
	/* The writes measured too (a plain benchmark), as fast as the reads. */
	add_test(&m, "io.seqwrite.qd8", "mbps", 2000, NULL, 0);
	add_test(&m, "io.seqwrite.qd1", "mbps", 1000, NULL, 0);
	add_test(&m, "io.randwrite.qd32", "mbps", NVME_4K_QD32, NULL, 0);
	add_test(&m, "io.randwrite.qd1", "mbps", NVME_4K_QD1, NULL, 0);
	add_test(&m, "io.randrw70.qd32", "mbps", NVME_4K_QD32, NULL, 0);
	add_test(&m, "cipher.aes-xts-512", "enc_mibps", 100, "dec_mibps", 100);
	add_test(&m, FDW_PREDICT_HOP_TEST, FDW_PREDICT_HOP_KEY, 25, NULL, 0);
	/* The call's cost is a third metric of the cipher's test. */
	add_metric(&m.tests[m.n_tests - 2], FDW_PREDICT_CALL_KEY, 20);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 2, &p), 9);
	/* Reads: one call and one hop, 45 us; writes one call and two hops, 70 us. */
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "request_us"), 45, 1e-9);
	assert_float_equal(metric(line(&p, "io.randwrite.qd1"), "request_us"), 70, 1e-9);
	assert_float_equal(metric(line(&p, "io.seqwrite.qd8"), "request_us"), 70, 1e-9);
	/* The 70/30 mix: 20 + 25 * (0.7 * 1 + 0.3 * 2) = 52.5 us. */
	assert_float_equal(metric(line(&p, "io.randrw70.qd32"), "request_us"), 52.5, 1e-9);
	/* RND4K Q1T1 read, as by hand above: 7459.2 IOPS of the disk's 20000. */
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "iops"), 7459.207, 1e-3);
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "plain_iops"), 20000, 1e-6);
	/* RND4K Q1T1 write: 50 + 39.0625 + 70 = 159.0625 us, 6286.8 IOPS. */
	assert_float_equal(metric(line(&p, "io.randwrite.qd1"), "iops"), 1e6 / 159.0625, 1e-6);
	/* RND4K Q32T1 read: 23791.8 IOPS, and both cores busy: 23791.8 * 84.0625 us = 200 %. */
	assert_float_equal(metric(line(&p, "io.randread.qd32"), "iops"), 23791.822, 1e-3);
	assert_float_equal(metric(line(&p, "io.randread.qd32"), "crypto_cpu_pct"), 200, 1e-6);
	/* The mix: (39.0625 + 52.5) us a request on two cores, 2e6 / 91.5625 = 21843.3 IOPS. */
	assert_float_equal(metric(line(&p, "io.randrw70.qd32"), "iops"), 2e6 / 91.5625, 1e-6);
	/* SEQ1M Q8T1 read: 208.776 MB/s; 209.715 without the term. */
	assert_float_equal(metric(line(&p, "io.seqread.qd8"), "mbps"), 208.776, 1e-3);
	assert_float_equal(fdw_predict_slowdown(&p, "io.seqread.qd8"),
			   (1 - 2 * 1048576 / 10045.0 / 2000) * 100, 1e-6);
	/* Small random reads now slow down too: 1 - 7459.2 / 20000 = 62.7 %. */
	assert_float_equal(fdw_predict_slowdown(&p, "io.randread.qd1"),
			   (1 - 7459.2074592 / 20000) * 100, 1e-6);
	/*
	 * With the wakeup on an idle CPU measured (60 us), a request alone in flight counts
	 * that instead: RND4K Q1T1 read 20 + 60 = 80 us, 50 + 39.0625 + 80 = 169.0625 us a
	 * request, 5914.9 IOPS; queued ones keep the busy hop (45 us, 23791.8 IOPS).
	 */
	add_metric(&m.tests[m.n_tests - 1], FDW_PREDICT_WAKE_KEY, 60);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 2, &p), 9);
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "request_us"), 80, 1e-9);
	assert_float_equal(metric(line(&p, "io.randread.qd1"), "iops"), 1e6 / 169.0625, 1e-6);
	assert_float_equal(metric(line(&p, "io.randwrite.qd1"), "request_us"), 140, 1e-9);
	assert_float_equal(metric(line(&p, "io.randread.qd32"), "request_us"), 45, 1e-9);
	assert_float_equal(metric(line(&p, "io.randread.qd32"), "iops"), 23791.822, 1e-3);
	/* Without the hop's figures only the call is counted. */
	m.n_tests--;
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 2, &p), 9);
	assert_float_equal(metric(line(&p, "io.randwrite.qd1"), "request_us"), 20, 1e-9);
}

/* Whether this kernel's crypto API is reachable from user space for xts(aes). */
static bool kernel_xts_aes(void)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "skcipher",
				   .salg_name = "xts(aes)" };
	int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* The measurement itself, for real on this machine (no figure asserted: only its shape). */
static void test_measure_request(void **state)
{
	static struct fdw_bench_run r, p;
	volatile sig_atomic_t stop = 0;
	const struct fdw_bench_metric *c;
	const struct fdw_bench_test *hop;

	(void)state;
	measured_disk(&r);
	add_test(&r, "io.randwrite.qd32", "mbps", 40, NULL, 0);
	add_test(&r, "io.randwrite.qd1", "mbps", 8, NULL, 0);
	/* AES-XTS 512 measured in user space, AES-XTS 256 by the kernel, Serpent not at all. */
	add_test(&r, "cipher.aes-xts-512", "enc_mibps", 1000, "dec_mibps", 1000);
	snprintf(r.tests[r.n_tests - 1].note, sizeof(r.tests[0].note),
		 "userspace OpenSSL, not the kernel's dm-crypt path (kernel: none).");
	add_test(&r, "cipher.aes-xts-256", "enc_mibps", 1000, "dec_mibps", 1000);
	snprintf(r.tests[r.n_tests - 1].note, sizeof(r.tests[0].note),
		 "kernel crypto API, in memory, as cryptsetup benchmark.");
	add_test(&r, "cipher.serpent-xts-512", "enc_mibps", 0, "dec_mibps", 0);
	r.tests[r.n_tests - 1].n_metrics = 0;
	assert_int_equal(fdw_predict_measure_request(&r, &stop), 0);
	/* OpenSSL's calls can always be timed. */
	c = fdw_bench_metric_get(line(&r, "cipher.aes-xts-512"), FDW_PREDICT_CALL_KEY);
	assert_non_null(c);
	assert_true(c->n == 1 && c->median >= 0 && c->median < 1e9);
	/* The kernel's where it lets us: with AF_ALG, a figure; without, none (and a log line). */
	c = fdw_bench_metric_get(line(&r, "cipher.aes-xts-256"), FDW_PREDICT_CALL_KEY);
	assert_true(kernel_xts_aes() ? c != NULL && c->median >= 0 : c == NULL);
	/* A cipher without figures gets none. */
	assert_int_equal(line(&r, "cipher.serpent-xts-512")->n_metrics, 0);
	/* The hop: always measurable, and more than nothing. */
	hop = line(&r, FDW_PREDICT_HOP_TEST);
	assert_string_equal(hop->kind, "cpu");
	assert_true(metric(hop, FDW_PREDICT_HOP_KEY) > 0);
	assert_true(metric(hop, FDW_PREDICT_WAKE_KEY) > 0);
	/*
	 * The prediction counts them: a write's cost is the call and two hops, to an idle
	 * CPU's thread alone in flight, to a busy one queued.
	 */
	assert_int_equal(fdw_predict_make(&r, "cipher.aes-xts-512", 2, &p), 6);
	assert_float_equal(metric(line(&p, "io.randwrite.qd1"), "request_us"),
			   metric(line(&r, "cipher.aes-xts-512"), FDW_PREDICT_CALL_KEY) +
				   2 * metric(hop, FDW_PREDICT_WAKE_KEY), 1e-9);
	assert_float_equal(metric(line(&p, "io.randwrite.qd32"), "request_us"),
			   metric(line(&r, "cipher.aes-xts-512"), FDW_PREDICT_CALL_KEY) +
				   2 * metric(hop, FDW_PREDICT_HOP_KEY), 1e-9);
	/* Stopped: -EINTR, and nothing added. */
	measured_disk(&r);
	add_test(&r, "cipher.aes-xts-512", "enc_mibps", 1000, "dec_mibps", 1000);
	snprintf(r.tests[r.n_tests - 1].note, sizeof(r.tests[0].note), "userspace OpenSSL");
	stop = 1;
	assert_int_equal(fdw_predict_measure_request(&r, &stop), -EINTR);
	assert_int_equal(r.n_tests, 5);
	assert_int_equal(line(&r, "cipher.aes-xts-512")->n_metrics, 2);
	/* A run with no room left for the hop's test says so. */
	stop = 0;
	memset(&r, 0, sizeof(r));
	r.n_tests = FDW_BENCH_MAX_TESTS;
	assert_int_equal(fdw_predict_measure_request(&r, &stop), -ENOSPC);
}

static void test_lines_fast_cipher(void **state)
{
	static struct fdw_bench_run m, p;
	char s[512];

	(void)state;
	measured_disk(&m);
	add_test(&m, "cipher.aes-xts-512", "enc_mibps", 3000, "dec_mibps", 3100);
	add_test(&m, "cipher.adiantum", "enc_mibps", 700, "dec_mibps", 690);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 4, &p), 4);
	fdw_predict_sentence(&p, s, sizeof(s));
	assert_string_equal(s, "Reading large files and small-file work barely change here: "
			    "the disk, not the cipher, sets the pace.");
	assert_true(fdw_predict_slowdown(&p, "io.seqread.qd8") == 0);
	/* The prediction follows the cipher chosen. */
	assert_int_equal(fdw_predict_make(&m, "cipher.adiantum", 1, &p), 4);
	/* 690 MiB/s still outruns the disk with requests queued, not one at a time. */
	assert_true(fdw_predict_slowdown(&p, "io.seqread.qd8") == 0);
	assert_float_equal(fdw_predict_slowdown(&p, "io.seqread.qd1"),
			   100 * (1 - 1 / (1 + 300 / (690 * 1.048576))), 1e-6);
	assert_string_equal(p.cipher, "adiantum");
}

static void test_unmeasured(void **state)
{
	static struct fdw_bench_run m, p;
	double v;
	char s[512];

	(void)state;
	measured_disk(&m);
	/* Serpent not in this kernel: a test without figures. */
	add_test(&m, "cipher.serpent-xts-512", "enc_mibps", 0, "dec_mibps", 0);
	m.tests[m.n_tests - 1].n_metrics = 0;
	assert_false(fdw_predict_cipher_speed(&m, "cipher.serpent-xts-512", &v));
	assert_float_equal(v, 0, 0);
	assert_false(fdw_predict_cipher_speed(&m, "cipher.adiantum", &v));
	assert_int_equal(fdw_predict_make(&m, "cipher.serpent-xts-512", 2, &p), 0);
	assert_int_equal(fdw_predict_make(&m, NULL, 2, &p), 0);
	assert_int_equal(fdw_predict_make(NULL, "cipher.adiantum", 2, &p), 0);
	fdw_predict_sentence(&p, s, sizeof(s));
	assert_non_null(strstr(s, "No prediction"));
	assert_true(fdw_predict_slowdown(&p, "io.seqread.qd8") < 0);
	/* Only a part of the disk measured: only those lines. */
	memset(&m, 0, sizeof(m));
	add_test(&m, "io.seqread.qd8", "mbps", 100, NULL, 0);
	add_test(&m, "cipher.adiantum", "enc_mibps", 700, "dec_mibps", 690);
	assert_true(fdw_predict_cipher_speed(&m, "cipher.adiantum", &v));
	assert_float_equal(v, 700, 1e-9);
	assert_int_equal(fdw_predict_make(&m, "cipher.adiantum", 2, &p), 1);
}

/* Nothing found in a line: NULL (line() fails the test instead). */
static const struct fdw_bench_test *line_or_null(const struct fdw_bench_run *r, const char *id)
{
	for (size_t i = 0; i < r->n_tests; i++)
		if (!strcmp(r->tests[i].id, id))
			return &r->tests[i];
	return NULL;
}

/*
 * A write line is never the read figure again: the plan's measurement reads only, so its
 * prediction has no write lines (the plan says "not measured"); a measurement with the
 * disk's writes predicts them from those.
 */
static void test_writes_not_from_reads(void **state)
{
	static const char *const writes[] = { "io.seqwrite.qd8", "io.seqwrite.qd1",
					      "io.randwrite.qd32", "io.randwrite.qd1",
					      "io.randrw70.qd32" };
	static struct fdw_bench_run m, p;

	(void)state;
	measured_disk(&m);
	add_test(&m, "cipher.aes-xts-512", "enc_mibps", 3000, "dec_mibps", 3000);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 2, &p), 4);
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		assert_null(line_or_null(&p, writes[i]));
	assert_non_null(line_or_null(&p, "io.seqread.qd8"));
	/* The disk writes at 120 MB/s, reads at 500: the write line starts from 120. */
	add_test(&m, "io.seqwrite.qd8", "mbps", 120, NULL, 0);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 2, &p), 5);
	assert_float_equal(metric(line(&p, "io.seqwrite.qd8"), "plain_mbps"), 120, 1e-6);
	assert_float_equal(metric(line(&p, "io.seqwrite.qd8"), "mbps"), 120, 1e-6);
	assert_non_null(strstr(line(&p, "io.seqwrite.qd8")->note, "measured write speed"));
	assert_null(line_or_null(&p, "io.seqwrite.qd1"));
}

static void test_record(void **state)
{
	static struct fdw_bench_run m, p, back;
	char dir[] = "/tmp/fdw-predict-XXXXXX";
	struct fdw_job job;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	memset(&job, 0, sizeof(job));
	snprintf(job.id, sizeof(job.id), "0123456789abcdef");
	snprintf(job.address, sizeof(job.address), "disk.img:2");
	measured_disk(&m);
	add_test(&m, "cipher.adiantum", "enc_mibps", 700, "dec_mibps", 690);
	/* Nothing predicted: nothing recorded. */
	memset(&p, 0, sizeof(p));
	assert_int_equal(fdw_predict_record(&p, &job), 0);
	assert_string_equal(job.bench_predicted, "");
	assert_int_equal(fdw_predict_make(&m, "cipher.adiantum", 2, &p), 4);
	assert_int_equal(fdw_predict_record(&p, &job), 0);
	assert_non_null(strstr(job.bench_predicted, "/bench/predicted-01234567.json"));
	assert_int_equal(fdw_bench_run_load(job.bench_predicted, &back), 0);
	assert_int_equal(back.n_tests, 4);
	assert_string_equal(back.label, "predicted");
	assert_float_equal(fdw_predict_slowdown(&back, "io.seqread.qd8"),
			   fdw_predict_slowdown(&p, "io.seqread.qd8"), 1e-6);
	/* The job record keeps where it is. */
	assert_int_equal(fdw_job_save(&job), 0);
	{
		struct fdw_job *jobs = NULL;
		size_t n = 0;

		assert_int_equal(fdw_job_list(&jobs, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(jobs[0].bench_predicted, job.bench_predicted);
		free(jobs);
	}
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* The results set the prediction beside the measured encrypted figures. */
static void test_results_beside(void **state)
{
	static struct fdw_bench_run m, p, plain, enc;
	struct fdw_bench_delta d[4];
	char s[256];
	size_t n;

	(void)state;
	measured_disk(&m);
	add_test(&m, "cipher.aes-xts-512", "enc_mibps", 200, "dec_mibps", 200);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 1, &p), 4);
	assert_true(fdw_results_predicted(&p, "io.seqwrite.qd8", "mbps", 500) < 0);
	/* On the baseline the probe saw (500): the probe's own figure. */
	assert_float_equal(fdw_results_predicted(&p, "io.seqread.qd8", "mbps", 500),
			   200 * 1.048576, 1e-6);
	assert_true(fdw_results_predicted(&p, "io.seqread.qd8", "lat_p50_us", 10) < 0);
	assert_true(fdw_results_predicted(&p, "build.compile", "wall_s", 3) < 0);
	assert_true(fdw_results_predicted(NULL, "io.seqread.qd8", "mbps", 500) < 0);
	assert_true(fdw_results_predicted(&p, "io.seqread.qd8", "mbps", 0) < 0);
	/* Measured: 500 plain, 190.0 encrypted; the prediction (209.7) is 10 % off. */
	memset(&plain, 0, sizeof(plain));
	memset(&enc, 0, sizeof(enc));
	add_test(&plain, "io.seqread.qd8", "mbps", 500, NULL, 0);
	add_test(&enc, "io.seqread.qd8", "mbps", 190.64, NULL, 0);
	add_test(&plain, "build.compile", "wall_s", 3, NULL, 0);
	add_test(&enc, "build.compile", "wall_s", 3.3, NULL, 0);
	plain.tests[0].metrics[0].higher_is_better = true;
	enc.tests[0].metrics[0].higher_is_better = true;
	n = fdw_bench_compare(&plain, &enc, d, 4);
	assert_int_equal(n, 2);
	fdw_results_prediction_verdict(d, n, &p, s, sizeof(s));
	assert_string_equal(s, "Predicted before the conversion: within 10% of the measured "
			    "figures on average.");
	/* Nothing predicted: nothing said. */
	fdw_results_prediction_verdict(d, n, NULL, s, sizeof(s));
	assert_string_equal(s, "");
}

/* A baseline that differs from the plan's probe: every prediction is the baseline times
 * the predicted ratio, and its percentage is that ratio's; the disagreement is said once. */
static void test_results_on_baseline(void **state)
{
	static struct fdw_bench_run m, p, base;
	static const char *const ids[] = { "io.seqread.qd8", "io.seqread.qd1",
					   "io.randread.qd32", "io.randread.qd1" };
	char s[512];

	(void)state;
	measured_disk(&m);
	add_test(&m, "cipher.aes-xts-512", "enc_mibps", 200, "dec_mibps", 200);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 1, &p), 4);
	for (size_t i = 0; i < 4; i++) {
		double r = fdw_predict_ratio(&p, ids[i], "mbps");
		double slow = fdw_results_predicted_slowdown(&p, ids[i], "iops");

		assert_true(r > 0);
		/* The ratio is the line's, whichever figure: MB/s and IOPS agree. */
		assert_float_equal(fdw_predict_ratio(&p, ids[i], "iops"), r, 1e-9);
		/* A disk half as fast that day: half the prediction, the same percentage. */
		assert_float_equal(fdw_results_predicted(&p, ids[i], "iops", 1000), 1000 * r,
				   1e-6);
		assert_float_equal(slow, r >= 1 ? 0 : (1 - r) * 100, 1e-9);
		assert_float_equal(slow, fdw_predict_slowdown(&p, ids[i]), 1e-9);
		/* Never a prediction above the figure it is based on with "0% slower" beside. */
		assert_true(fdw_results_predicted(&p, ids[i], "mbps", 123) <= 123 + 1e-9 ||
			    slow == 0);
	}
	/* The baseline saw the disk at half the probe's speed: said, with by how much. */
	memset(&base, 0, sizeof(base));
	add_test(&base, "io.seqread.qd8", "mbps", 250, NULL, 0);
	base.tests[0].metrics[0].higher_is_better = true;
	snprintf(base.tests[0].title, sizeof(base.tests[0].title), "SEQ1M Q8T1 read");
	assert_true(fdw_results_probe_note(&p, &base, s, sizeof(s)));
	assert_string_equal(s, "The plan's quick look saw this disk 100% faster than the "
			    "baseline did (SEQ1M Q8T1 read): each prediction here is the "
			    "baseline's figure times the slowdown predicted.");
	/* Within the floor (4 % off): nothing said. */
	base.tests[0].metrics[0].samples[0] = base.tests[0].metrics[0].median = 520;
	assert_false(fdw_results_probe_note(&p, &base, s, sizeof(s)));
	assert_string_equal(s, "");
	/* 30 % off, but the probe's own figures spread over 40 %: within its noise. */
	base.tests[0].metrics[0].samples[0] = base.tests[0].metrics[0].median = 385;
	assert_true(fdw_results_probe_note(&p, &base, s, sizeof(s)));
	m.tests[0].metrics[0].samples[0] = 400;
	m.tests[0].metrics[0].samples[1] = 500;
	m.tests[0].metrics[0].samples[2] = 600;
	m.tests[0].metrics[0].n = 3;
	fdw_bench_metric_finish(&m.tests[0].metrics[0]);
	assert_int_equal(fdw_predict_make(&m, "cipher.aes-xts-512", 1, &p), 4);
	assert_false(fdw_results_probe_note(&p, &base, s, sizeof(s)));
	/* The spread does not move the prediction: the probe's median is its figure. */
	assert_float_equal(fdw_results_predicted(&p, "io.seqread.qd8", "mbps", 500),
			   200 * 1.048576, 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_model),
		cmocka_unit_test(test_request_cost),
		cmocka_unit_test(test_cipher_test_names),
		cmocka_unit_test(test_lines_slow_cipher),
		cmocka_unit_test(test_lines_request_cost),
		cmocka_unit_test(test_measure_request),
		cmocka_unit_test(test_lines_fast_cipher),
		cmocka_unit_test(test_unmeasured),
		cmocka_unit_test(test_writes_not_from_reads),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_results_beside),
		cmocka_unit_test(test_results_on_baseline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
