/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the sliding-window speed and the status record round trip. */
#include "unit.h"

#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "core/state/progress.h"

static void test_speed_needs_two_samples(void **state)
{
	struct fdw_speed_window w = { 0 };

	(void)state;
	assert_true(fdw_speed_rate(&w) == 0);
	fdw_speed_add(&w, 0, 0);
	assert_true(fdw_speed_rate(&w) == 0);
	fdw_speed_add(&w, 2, 200);
	assert_true(fdw_speed_rate(&w) == 100);
}

/* A stall at the start must not drag the current speed down forever. */
static void test_speed_forgets_old_samples(void **state)
{
	struct fdw_speed_window w = { 0 };

	(void)state;
	fdw_speed_add(&w, 0, 0);
	fdw_speed_add(&w, 30, 0);	/* 30 s of nothing */
	for (int t = 31; t <= 50; t++)
		fdw_speed_add(&w, t, (uint64_t)(t - 30) * 1000);
	/* Only the last 10 s count: 1000 bytes per second, not 20000/50. */
	assert_true(fdw_speed_rate(&w) > 999 && fdw_speed_rate(&w) < 1001);
}

/* A very slow disk: steps further apart than the window give a falling rate, not 0. */
static void test_speed_slow_steps(void **state)
{
	struct fdw_speed_window w = { 0 };

	(void)state;
	fdw_speed_add(&w, 0, 0);
	fdw_speed_add(&w, 1, 16000);		/* healthy: 16000 B/s */
	assert_true(fdw_speed_rate(&w) == 16000);
	fdw_speed_add(&w, 31, 32000);		/* then one step in 30 s */
	assert_true(fdw_speed_rate(&w) > 533 && fdw_speed_rate(&w) < 534);
	fdw_speed_add(&w, 91, 48000);		/* and one in 60 s: slower still */
	assert_true(fdw_speed_rate(&w) > 266 && fdw_speed_rate(&w) < 267);
}

static void test_speed_ring_wraps(void **state)
{
	struct fdw_speed_window w = { 0 };

	(void)state;
	for (int i = 0; i < 3 * FDW_SPEED_SAMPLES; i++)
		fdw_speed_add(&w, i * 0.1, (uint64_t)i * 50);
	assert_int_equal(w.count, FDW_SPEED_SAMPLES);
	assert_true(fdw_speed_rate(&w) > 499 && fdw_speed_rate(&w) < 501);
}

static bool near(double a, double b)
{
	return a > b - 1e-6 && a < b + 1e-6;
}

/* Steady steps: the time left counts down between samples instead of standing still. */
static void test_eta_counts_down(void **state)
{
	struct fdw_speed_window w = { 0 };
	double r;

	(void)state;
	assert_true(fdw_speed_eta(&w, 0, 100000, &r) == -1);
	for (int t = 0; t <= 5; t++)
		fdw_speed_add(&w, t, (uint64_t)t * 1000);
	assert_true(near(fdw_speed_eta(&w, 5, 100000, &r), 95));
	assert_true(near(r, 1000));
	assert_true(near(fdw_speed_eta(&w, 5.5, 100000, &r), 94.5));
	assert_true(near(r, 1000));
	/* Done: nothing left. */
	fdw_speed_add(&w, 6, 100000);
	assert_true(fdw_speed_eta(&w, 7, 100000, NULL) == 0);
}

/* A step that is overdue: the rate falls to what it has shown, and the time left grows. */
static void test_eta_grows_while_stalled(void **state)
{
	struct fdw_speed_window w = { 0 };
	double e2, e5, e10, r;

	(void)state;
	for (int t = 0; t <= 5; t++)
		fdw_speed_add(&w, t, (uint64_t)t * 1000);
	/* 1 s after the last sample the next step is due; 2, 5, 10 s: overdue. */
	e2 = fdw_speed_eta(&w, 7, 100000, &r);
	assert_true(near(r, 500));
	assert_true(near(e2, 94000.0 / 500));
	e5 = fdw_speed_eta(&w, 10, 100000, &r);
	assert_true(near(r, 200));
	e10 = fdw_speed_eta(&w, 15, 100000, &r);
	assert_true(near(r, 100));
	assert_true(e2 < e5 && e5 < e10);
}

/*
 * The device turns 4 times slower: within one window plus one slow step the time left
 * stands on the slow rate (within a factor 1.5 of the truth), it never drops below what
 * the fast rate promised, and it never jumps between two looks a second apart by more
 * than the slowdown itself.
 */
static void test_eta_follows_a_slowdown(void **state)
{
	const uint64_t total = 100000;
	struct fdw_speed_window w = { 0 };
	double t = 0, next = 1, last = -1, truth, eta;
	uint64_t done = 0;

	(void)state;
	fdw_speed_add(&w, 0, 0);
	for (double now = 0.5; done < total && now < 1000; now += 0.5) {
		/* Steps of 1000 bytes: every 1 s up to 20 s, then every 4 s. */
		if (now >= next) {
			t = next;
			done += 1000;
			fdw_speed_add(&w, t, done);
			next = t + (t < 20 ? 1 : 4);
		}
		eta = fdw_speed_eta(&w, now, total, NULL);
		assert_true(eta >= 0 || done == 0);
		if (now >= 20 + FDW_SPEED_WINDOW_S + 4) {
			/* At the slow rate: what is left, less the part of the step under way. */
			truth = (double)(total - done) / 250 - (now - t);
			assert_true(eta >= truth / 1.5 && eta <= truth * 1.5);
		}
		if (now > 20) {
			assert_true(eta >= ((double)total - (double)done - 1000) / 1000);
			assert_true(last < 0 || (eta < last * 4 + 1 && eta > last / 4 - 1));
		}
		last = eta;
	}
	assert_true(done == total);
}

static void test_record_round_trip(void **state)
{
	char path[] = "/tmp/fdewiz-progress-XXXXXX";
	struct fdw_progress in = { .state = FDW_JOB_PAUSED, .done = 1ULL << 33,
				   .total = 1ULL << 34, .speed = 1.5e8, .elapsed = 12.5,
				   .eta = -1, .pid = 4242, .slept = 420.5 };
	struct fdw_progress out;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	in.phase = FDW_PHASE_GROWING_FS;
	snprintf(in.message, sizeof(in.message), "quote \" and newline \n survive");
	assert_int_equal(fdw_progress_write(path, &in), 0);
	assert_int_equal(fdw_progress_read(path, &out), 0);
	assert_int_equal(out.state, FDW_JOB_PAUSED);
	assert_true(out.done == in.done && out.total == in.total);
	assert_int_equal(out.pid, 4242);
	assert_true(out.slept == 420.5);
	assert_int_equal(out.phase, FDW_PHASE_GROWING_FS);
	assert_string_equal(out.message, in.message);
	unlink(path);
	assert_int_equal(fdw_progress_read(path, &out), -ENOENT);
}

static void test_state_names(void **state)
{
	enum fdw_job_state s;

	(void)state;
	for (int i = 0; i < FDW_JOB__COUNT; i++) {
		assert_int_equal(fdw_job_state_parse(fdw_job_state_name(i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(fdw_job_state_parse("bogus", &s), -EINVAL);
	assert_string_equal(fdw_job_state_name(FDW_JOB_NEEDS_REPAIR), "needs-repair");
}

/* Every phase survives the record by its key; the keys are the ones older versions wrote. */
static void test_phase_keys(void **state)
{
	static const char *const old_keys[] = { "checking", "growing-part", "shrinking",
						"initialising", "encrypting", "growing",
						"benchmarking", "done" };

	(void)state;
	for (int p = 0; p < FDW_PHASE__COUNT; p++) {
		assert_int_equal(fdw_phase_parse(fdw_phase_key(p)), p);
		assert_non_null(fdw_phase_label(p));
	}
	for (size_t i = 0; i < sizeof(old_keys) / sizeof(old_keys[0]); i++)
		assert_int_not_equal(fdw_phase_parse(old_keys[i]), FDW_PHASE_NONE);
	assert_int_equal(fdw_phase_parse("done"), FDW_PHASE_DONE);
	assert_int_equal(fdw_phase_parse("growing"), FDW_PHASE_GROWING_FS);
	assert_string_equal(fdw_phase_key(FDW_PHASE_DONE), "done");
	assert_string_equal(fdw_phase_key(FDW_PHASE_NONE), "");
	/* A key from a newer version, or none at all: known as "not known", never an error. */
	assert_int_equal(fdw_phase_parse("sealing-the-bootloader"), FDW_PHASE_NONE);
	assert_int_equal(fdw_phase_parse(""), FDW_PHASE_NONE);
	assert_int_equal(fdw_phase_parse(NULL), FDW_PHASE_NONE);
	assert_string_equal(fdw_phase_key((enum fdw_phase)FDW_PHASE__COUNT), "");
}

/* Records as older versions wrote them ("done", no phase at all, an unknown one) still load. */
static void test_old_records_load(void **state)
{
	static const struct { const char *json; enum fdw_phase want; } recs[] = {
		{ "{\"state\":\"complete\",\"phase\":\"done\",\"done\":5,\"total\":5}",
		  FDW_PHASE_DONE },
		{ "{\"state\":\"running\",\"phase\":\"benchmarking\",\"done\":5,"
		  "\"total\":5}", FDW_PHASE_BENCHMARKING },
		{ "{\"state\":\"paused\",\"done\":1,\"total\":5}", FDW_PHASE_NONE },
		{ "{\"state\":\"running\",\"phase\":\"from-the-future\",\"done\":1,"
		  "\"total\":5}", FDW_PHASE_NONE },
	};
	char path[] = "/tmp/fdewiz-progress-XXXXXX";
	struct fdw_progress out;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		assert_int_equal(ftruncate(fd, 0), 0);
		assert_int_equal(pwrite(fd, recs[i].json, strlen(recs[i].json), 0),
				 (ssize_t)strlen(recs[i].json));
		assert_int_equal(fdw_progress_read(path, &out), 0);
		assert_int_equal(out.phase, recs[i].want);
		assert_true(out.total == 5);
		/* Written before a conversion knew of sleep: none. */
		assert_true(out.slept == 0);
	}
	close(fd);
	unlink(path);
}

/* Every byte converted while the run goes on (the header's last writes): "finishing", not
 * 0:00; the duration before that; the placeholder once the run is not running. */
static void test_eta_text(void **state)
{
	struct fdw_progress p = { .state = FDW_JOB_RUNNING, .done = 50, .total = 100, .eta = 75 };
	char buf[32];

	(void)state;
	assert_string_equal(fdw_progress_eta_text(&p, "?", buf, sizeof(buf)), "1:15");
	p.eta = -1;
	assert_string_equal(fdw_progress_eta_text(&p, "?", buf, sizeof(buf)), "?");
	p.done = 100;
	p.eta = 0;
	assert_string_equal(fdw_progress_eta_text(&p, "?", buf, sizeof(buf)), "finishing");
	p.state = FDW_JOB_COMPLETE;
	assert_string_equal(fdw_progress_eta_text(&p, "--:--", buf, sizeof(buf)), "--:--");
	p.state = FDW_JOB_PAUSED;
	p.done = 50;
	p.eta = 75;
	assert_string_equal(fdw_progress_eta_text(&p, "--:--", buf, sizeof(buf)), "--:--");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_needs_two_samples),
		cmocka_unit_test(test_speed_forgets_old_samples),
		cmocka_unit_test(test_speed_slow_steps),
		cmocka_unit_test(test_speed_ring_wraps),
		cmocka_unit_test(test_eta_counts_down),
		cmocka_unit_test(test_eta_grows_while_stalled),
		cmocka_unit_test(test_eta_follows_a_slowdown),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_phase_keys),
		cmocka_unit_test(test_old_records_load),
		cmocka_unit_test(test_eta_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
