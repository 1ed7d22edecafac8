/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the progress read from LUKS2 segments and the speed from two readings. */
#include "unit.h"

#include <string.h>
#include <unistd.h>
#include <errno.h>

#include "core/state/job.h"
#include "core/luks2/luks2_progress.h"
#include "core/state/progress.h"

/* The 900 MiB partition the two cryptsetup captures come from (header and shift 16 MiB). */
#define CS_DEVICE (900 * MIB)

static int progress_of(const char *name, uint64_t device, uint64_t *done, uint64_t *total)
{
	char *json = unit_data(name);
	int rc = fdw_luks2_progress(json, device, done, total);

	free(json);
	return rc;
}

/*
 * `cryptsetup reencrypt --encrypt --reduce-device-size 32M` stopped with SIGINT: it works
 * backwards from the end, so the encrypted part is the crypt segment at the end (240 MiB)
 * of the 884 MiB the volume will have ("backup-final": from 16 MiB to the end).
 */
static void test_cryptsetup_stopped(void **state)
{
	uint64_t done, total;

	(void)state;
	assert_int_equal(progress_of("cryptsetup-stopped.json", CS_DEVICE, &done, &total), 0);
	assert_int_equal(total, 884 * MIB);
	assert_int_equal(done, 240 * MIB);
}

/* Killed with SIGKILL mid-hotzone: the segment flagged in-reencryption is not done yet. */
static void test_cryptsetup_killed(void **state)
{
	uint64_t done, total;

	(void)state;
	assert_int_equal(progress_of("cryptsetup-killed.json", CS_DEVICE, &done, &total), 0);
	assert_int_equal(total, 884 * MIB);
	assert_int_equal(done, 224 * MIB);
}

/* fdewiz's own end window (every hotzone written) and a detached header's: all done. */
static void test_end_windows(void **state)
{
	uint64_t done, total;

	(void)state;
	assert_int_equal(progress_of("datashift-window.json", 160 * MIB, &done, &total), 0);
	assert_int_equal(total, 144 * MIB);
	assert_int_equal(done, total);
	assert_int_equal(progress_of("detached-window.json", 100 * MIB, &done, &total), 0);
	assert_int_equal(total, 100 * MIB);
	assert_int_equal(done, total);
}

/* A finished header records no reencryption: nothing to measure. */
static void test_finished(void **state)
{
	uint64_t done = 1, total = 1;

	(void)state;
	assert_int_equal(progress_of("datashift-final.json", 160 * MIB, &done, &total), -ENOENT);
	assert_int_equal(done, 0);
	assert_int_equal(total, 0);
}

/* A re-encryption: old and new segments are both crypt; only the new key's count. */
static void test_reencrypt_digest(void **state)
{
	static const char json[] =
		"{\"segments\":{"
		"\"0\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"1048576\"},"
		"\"1\":{\"type\":\"crypt\",\"offset\":\"17825792\",\"size\":\"dynamic\"},"
		"\"2\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"dynamic\","
		"\"flags\":[\"backup-previous\"]},"
		"\"3\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"dynamic\","
		"\"flags\":[\"backup-final\"]}},"
		"\"digests\":{\"0\":{\"segments\":[\"1\",\"2\"]},"
		"\"1\":{\"segments\":[\"0\",\"3\"]}}}";
	uint64_t done, total;

	(void)state;
	assert_int_equal(fdw_luks2_progress(json, 32 * MIB, &done, &total), 0);
	assert_int_equal(total, 16 * MIB);
	assert_int_equal(done, 1 * MIB);
}

/* Metadata that does not add up is refused, never read as some percentage. */
static void test_malformed(void **state)
{
	static const char *bad[] = {
		NULL, "", "[]", "{}", "{\"segments\":[]}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"x\",\"size\":\"dynamic\","
		"\"flags\":[\"backup-final\"]}}}",
		/* a dynamic final segment starting past the end of the device */
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"99999999999\","
		"\"size\":\"dynamic\",\"flags\":[\"backup-final\"]}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"0\",\"size\":\"-5\","
		"\"flags\":[\"backup-final\"]}}}",
		"{\"segments\":{\"0\":{\"offset\":\"0\",\"size\":\"5\","
		"\"flags\":[\"backup-final\"]}}}",
	};
	uint64_t done, total;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fdw_luks2_progress(bad[i], 32 * MIB, &done, &total), -EINVAL);
}

static void test_rate_rule(void **state)
{
	struct fdw_progress p = { .state = FDW_JOB_NEEDS_REPAIR, .done = 300, .total = 1000,
				  .eta = -1 };
	const struct fdw_progress stopped = { .state = FDW_JOB_INTERRUPTED, .done = 300,
					      .total = 1000, .eta = -1 };

	(void)state;
	/* Its lock is held and 200 bytes moved in 2 s: 100 B/s, 700 left: 7 s. */
	assert_int_equal(fdw_outside_rate_from(1, 100, 1000, 10.0, &p, 12.0), 1);
	assert_int_equal(p.state, FDW_JOB_RUNNING);
	assert_int_equal(p.pid, 0);
	assert_true(p.speed == 100.0);
	assert_true(p.eta == 7.0);

	/* Lock held, but no reading before (or too old, or no movement): running, no speed. */
	p = stopped;
	assert_int_equal(fdw_outside_rate_from(1, 0, 0, 0, &p, 12.0), 1);
	assert_int_equal(p.state, FDW_JOB_RUNNING);
	assert_true(p.speed == 0 && p.eta == -1);
	p = stopped;
	assert_int_equal(fdw_outside_rate_from(1, 100, 1000, 10.0, &p,
					       10.0 + FDW_OUTSIDE_SAMPLE_MAX_S + 1), 1);
	assert_true(p.speed == 0 && p.eta == -1);

	/* The lock is free: whatever moved, nobody runs it now (killed after the reading). */
	p = stopped;
	assert_int_equal(fdw_outside_rate_from(0, 100, 1000, 10.0, &p, 12.0), 0);
	assert_int_equal(p.state, FDW_JOB_INTERRUPTED);
	assert_true(p.speed == 0);

	/* No lock to ask: movement decides. */
	assert_int_equal(fdw_outside_rate_from(-ENOENT, 300, 1000, 10.0, &p, 12.0), 0);
	assert_int_equal(fdw_outside_rate_from(-ENOENT, 100, 2000, 10.0, &p, 12.0), 0);
	assert_int_equal(p.state, FDW_JOB_INTERRUPTED);
	assert_int_equal(fdw_outside_rate_from(-ENOENT, 100, 1000, 10.0, &p, 12.0), 1);
	assert_true(p.speed == 100.0);

	/* Finished is finished. */
	p = stopped;
	p.state = FDW_JOB_COMPLETE;
	assert_int_equal(fdw_outside_rate_from(1, 100, 1000, 10.0, &p, 12.0), 0);
}

/* A UUID nobody ever converted holds no lock. */
static void test_busy_free(void **state)
{
	(void)state;
	assert_true(fdw_outside_busy("0b3bd6f8-6a3f-4d4c-a2f2-000000000000") <= 0);
}

/* Readings go through the state folder; a finished conversion's is dropped. */
static void test_rate_kept(void **state)
{
	char dir[] = "/tmp/fdewiz-unit-XXXXXX";
	struct fdw_job job = { .id = "0b3bd6f8-6a3f-4d4c-a2f2-4c1c8d7e9a11" };
	struct fdw_progress p = { .state = FDW_JOB_INTERRUPTED, .done = 100, .total = 1000,
				  .eta = -1 };
	char path[128], cmd[128];

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/outside/%s.seen", dir, job.id);
	fdw_outside_rate(&job, &p, 50.0);
	/* Nobody holds its lock: not running, and the reading is kept for the next look. */
	assert_int_equal(p.state, FDW_JOB_INTERRUPTED);
	assert_int_equal(access(path, F_OK), 0);
	p.state = FDW_JOB_COMPLETE;
	fdw_outside_rate(&job, &p, 60.0);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cryptsetup_stopped),
		cmocka_unit_test(test_cryptsetup_killed),
		cmocka_unit_test(test_end_windows),
		cmocka_unit_test(test_finished),
		cmocka_unit_test(test_reencrypt_digest),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rate_rule),
		cmocka_unit_test(test_busy_free),
		cmocka_unit_test(test_rate_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
