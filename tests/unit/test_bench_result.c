/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for benchmark results: statistics, JSON round trip, pairing, suspicious flags. */
#include "unit.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/bench/bench.h"

static void set_samples(struct fdw_bench_metric *m, const double *v, size_t n)
{
	memcpy(m->samples, v, n * sizeof(*v));
	m->n = n;
}

static void test_median_spread(void **state)
{
	struct fdw_bench_metric m = { .key = "mbps" };
	const double odd[] = { 300, 100, 200 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	(void)state;
	set_samples(&m, odd, 3);
	fdw_bench_metric_finish(&m);
	assert_true(m.median == 200 && m.min == 100 && m.max == 300);
	assert_true(m.spread_pct == 100.0);
	/* the samples keep their order: they are the record of each run */
	assert_true(m.samples[0] == 300);

	set_samples(&m, even, 4);
	fdw_bench_metric_finish(&m);
	assert_true(m.median == 2.5 && m.min == 1 && m.max == 4);
	assert_true(m.spread_pct == 120.0);

	set_samples(&m, one, 1);
	fdw_bench_metric_finish(&m);
	assert_true(m.median == 7 && m.spread_pct == 0);

	m.n = 0;
	fdw_bench_metric_finish(&m);
	assert_true(m.median == 0 && m.spread_pct == 0);
}

static void make_test(struct fdw_bench_test *t, const char *id, const char *key, bool higher,
		      const double *v, size_t n, double cpu)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->kind, sizeof(t->kind), "io");
	snprintf(t->title, sizeof(t->title), "title of %s", id);
	snprintf(t->metrics[0].key, sizeof(t->metrics[0].key), "%s", key);
	snprintf(t->metrics[0].unit, sizeof(t->metrics[0].unit), "%s", higher ? "MB/s" : "s");
	t->metrics[0].higher_is_better = higher;
	set_samples(&t->metrics[0], v, n);
	t->n_metrics = 1;
	if (cpu >= 0) {
		snprintf(t->metrics[1].key, sizeof(t->metrics[1].key), "cpu_pct");
		snprintf(t->metrics[1].unit, sizeof(t->metrics[1].unit), "%%");
		t->metrics[1].samples[0] = cpu;
		t->metrics[1].n = 1;
		t->n_metrics = 2;
	}
	t->primary = 0;
	fdw_bench_test_finish(t);
}

static void test_unstable(void **state)
{
	const double steady[] = { 100, 105, 110 }, shaky[] = { 100, 130, 90 };
	struct fdw_bench_test t;

	(void)state;
	make_test(&t, "io.a", "mbps", true, steady, 3, -1);
	assert_false(t.unstable);
	assert_string_equal(t.note, "");
	make_test(&t, "io.b", "mbps", true, shaky, 3, -1);
	assert_true(t.unstable);
	assert_non_null(strstr(t.note, "40%"));
}

static void test_round_trip(void **state)
{
	char dir[] = "/tmp/fdw-bench-unit.XXXXXX", path[256], bad[256];
	static struct fdw_bench_run r, back;
	const double v[] = { 512.5, 498.25, 530 }, w[] = { 12.5, 13 };
	FILE *f;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(&r, 0, sizeof(r));
	snprintf(r.label, sizeof(r.label), "before");
	snprintf(r.target, sizeof(r.target), "/mnt/data dir");
	snprintf(r.device, sizeof(r.device), "/dev/loop7");
	snprintf(r.cipher, sizeof(r.cipher), "aes-xts-plain64 512");
	snprintf(r.io_engine, sizeof(r.io_engine), "io_uring");
	snprintf(r.scale, sizeof(r.scale), "quick");
	snprintf(r.note, sizeof(r.note), "a \"quoted\" note");
	r.io_size = 5ULL << 30;
	r.io_runtime = 2.5;
	fdw_bench_run_describe(&r);
	assert_true(r.date > 0);
	assert_string_not_equal(r.kernel, "");
	assert_string_equal(r.fdewiz_version, PACKAGE_VERSION);
	make_test(&r.tests[0], "io.seqread.qd1", "mbps", true, v, 3, 14.5);
	make_test(&r.tests[1], "build.compile", "wall_s", false, w, 2, -1);
	r.n_tests = 2;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	assert_int_equal(fdw_bench_run_save(&r, path), 0);
	assert_int_equal(fdw_bench_run_load(path, &back), 0);
	assert_string_equal(back.label, "before");
	assert_string_equal(back.target, "/mnt/data dir");
	assert_string_equal(back.device, "/dev/loop7");
	assert_string_equal(back.cipher, "aes-xts-plain64 512");
	assert_string_equal(back.io_engine, "io_uring");
	assert_string_equal(back.scale, "quick");
	assert_string_equal(back.note, "a \"quoted\" note");
	assert_string_equal(back.kernel, r.kernel);
	assert_string_equal(back.cpu_model, r.cpu_model);
	assert_true(back.date == r.date);
	assert_true(back.io_size == 5ULL << 30 && back.io_runtime == 2.5);
	assert_int_equal(back.n_tests, 2);
	for (i = 0; i < 2; i++) {
		const struct fdw_bench_test *a = &r.tests[i], *b = &back.tests[i];

		assert_string_equal(a->id, b->id);
		assert_string_equal(a->title, b->title);
		assert_int_equal(a->n_metrics, b->n_metrics);
		assert_int_equal(a->primary, b->primary);
		assert_int_equal(a->metrics[0].n, b->metrics[0].n);
		assert_memory_equal(a->metrics[0].samples, b->metrics[0].samples,
				    a->metrics[0].n * sizeof(double));
		assert_true(a->metrics[0].median == b->metrics[0].median);
		assert_true(a->metrics[0].higher_is_better == b->metrics[0].higher_is_better);
	}
	assert_true(back.tests[0].metrics[0].median == 512.5);

	/* missing, truncated, and valid JSON that is not ours */
	snprintf(bad, sizeof(bad), "%s/missing.json", dir);
	assert_int_equal(fdw_bench_run_load(bad, &back), -ENOENT);
	snprintf(bad, sizeof(bad), "%s/cut.json", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("{\"format\": \"fdewiz-bench\", \"tests\": [", f);
	fclose(f);
	assert_int_equal(fdw_bench_run_load(bad, &back), -EINVAL);
	assert_int_equal(back.n_tests, 0);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("{\"jobs\": []}", f);
	fclose(f);
	assert_int_equal(fdw_bench_run_load(bad, &back), -EINVAL);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("{\"format\": \"fdewiz-bench\", \"tests\": [{\"id\": \"x\", \"metrics\": "
	      "[{\"key\": \"mbps\", \"samples\": [\"fast\"]}]}]}", f);
	fclose(f);
	assert_int_equal(fdw_bench_run_load(bad, &back), -EINVAL);

	unlink(bad);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

static void test_compare(void **state)
{
	static struct fdw_bench_run plain, enc;
	const double p_seq[] = { 500, 510, 490 }, e_seq[] = { 400, 405, 395 };
	const double p_wall[] = { 10, 10, 10 }, e_wall[] = { 12, 12, 12 };
	const double p_rnd[] = { 1000, 1000, 1000 }, e_rnd[] = { 1300, 1310, 1290 };
	const double p_near[] = { 1000, 1000, 1000 }, e_near[] = { 1030, 1030, 1030 };
	const double p_wide[] = { 1000, 800, 1200 }, e_wide[] = { 1150, 1150, 1150 };
	const double only[] = { 1 };
	struct fdw_bench_delta d[8];
	size_t n;

	(void)state;
	memset(&plain, 0, sizeof(plain));
	memset(&enc, 0, sizeof(enc));
	make_test(&plain.tests[0], "io.seqread.qd1", "mbps", true, p_seq, 3, 5);
	make_test(&plain.tests[1], "build.compile", "wall_s", false, p_wall, 3, -1);
	make_test(&plain.tests[2], "io.randread.qd1", "iops", true, p_rnd, 3, 10);
	make_test(&plain.tests[3], "io.only.plain", "mbps", true, only, 1, -1);
	make_test(&plain.tests[4], "io.near", "iops", true, p_near, 3, -1);
	make_test(&plain.tests[5], "io.wide", "iops", true, p_wide, 3, -1);
	plain.n_tests = 6;
	/* another order, and a test the plain run does not have */
	make_test(&enc.tests[0], "io.wide", "iops", true, e_wide, 3, -1);
	make_test(&enc.tests[1], "io.randread.qd1", "iops", true, e_rnd, 3, 25);
	make_test(&enc.tests[2], "io.near", "iops", true, e_near, 3, -1);
	make_test(&enc.tests[3], "io.only.enc", "mbps", true, only, 1, -1);
	make_test(&enc.tests[4], "build.compile", "wall_s", false, e_wall, 3, -1);
	make_test(&enc.tests[5], "io.seqread.qd1", "mbps", true, e_seq, 3, 30);
	enc.n_tests = 6;

	n = fdw_bench_compare(&plain, &enc, d, 8);
	assert_int_equal(n, 5);
	/* in the order of the plain run, each with its partner */
	assert_string_equal(d[0].plain->id, "io.seqread.qd1");
	assert_ptr_equal(d[0].encrypted, &enc.tests[5]);
	assert_true(d[0].ratio_pct > 79.99 && d[0].ratio_pct < 80.01);
	assert_true(d[0].slowdown_pct > 19.99 && d[0].slowdown_pct < 20.01);
	assert_true(d[0].cpu_plain == 5 && d[0].cpu_encrypted == 30);
	assert_false(d[0].suspicious);
	assert_true(d[0].spread_pct > 3.99 && d[0].spread_pct < 4.01);

	/* lower is better: 12 s instead of 10 s is 83.3% of the speed, 16.7% slower */
	assert_string_equal(d[1].plain->id, "build.compile");
	assert_true(d[1].ratio_pct > 119.99 && d[1].ratio_pct < 120.01);
	assert_true(d[1].slowdown_pct > 16.66 && d[1].slowdown_pct < 16.67);
	assert_true(d[1].cpu_plain == -1 && d[1].cpu_encrypted == -1);
	assert_false(d[1].suspicious);

	/* encrypted 30% faster with a 1.5% spread: flagged */
	assert_string_equal(d[2].plain->id, "io.randread.qd1");
	assert_true(d[2].slowdown_pct < -29.9);
	assert_true(d[2].suspicious);

	/* 3% faster is within the noise floor */
	assert_string_equal(d[3].plain->id, "io.near");
	assert_false(d[3].suspicious);

	/* 15% faster, but the plain runs spread by 40%: not beyond the spread */
	assert_string_equal(d[4].plain->id, "io.wide");
	assert_false(d[4].suspicious);
	assert_true(d[4].unstable);

	/* the output is bounded */
	assert_int_equal(fdw_bench_compare(&plain, &enc, d, 2), 2);
}

static void test_default_path(void **state)
{
	static struct fdw_bench_run r;
	char path[PATH_MAX], expect[PATH_MAX];

	(void)state;
	setenv("FDEWIZ_STATE_DIR", "/tmp/fdw-state", 1);
	memset(&r, 0, sizeof(r));
	r.date = 0;
	snprintf(r.target, sizeof(r.target), "/mnt/my data/");
	setenv("TZ", "UTC", 1);
	tzset();
	fdw_bench_default_path(&r, path, sizeof(path));
	assert_string_equal(path, "/tmp/fdw-state/bench/bench-my_data-19700101-000000.json");
	snprintf(r.label, sizeof(r.label), "after");
	snprintf(r.device, sizeof(r.device), "/dev/mapper/crypt-root");
	fdw_bench_default_path(&r, path, sizeof(path));
	snprintf(expect, sizeof(expect), "%s/after-crypt-root-19700101-000000.json",
		 fdw_bench_dir());
	assert_string_equal(path, expect);
	assert_string_equal(fdw_bench_dir(), "/tmp/fdw-state/bench");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_spread),
		cmocka_unit_test(test_unstable),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
