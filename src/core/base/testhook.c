/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Named points at which a test can have fdewiz killed or a step fail, to prove what is left. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "testhook.h"

void fdw_test_point(const char *point)
{
	const char *want = getenv(FDW_TEST_KILL_AT_ENV);

	if (!want || strcmp(want, point))
		return;
	fdw_log(FDW_LOG_WARN, "test hook: killed at '%s' (%s)", point, FDW_TEST_KILL_AT_ENV);
	raise(SIGKILL);
}

static void *kill_later(void *arg)
{
	unsigned long usec = (unsigned long)(uintptr_t)arg;
	struct timespec ts = { usec / 1000000, (long)(usec % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
	raise(SIGKILL);
	return NULL;
}

void fdw_test_point_progress(uint64_t done, uint64_t size)
{
	static bool armed;
	const char *want = getenv(FDW_TEST_KILL_AT_ENV);
	unsigned long percent, usec = 0;
	pthread_t thread;
	char *end;

	if (armed || !want || strncmp(want, "progress=", 9) || !size || done >= size)
		return;
	percent = strtoul(want + 9, &end, 10);
	if (*end == '+')
		usec = strtoul(end + 1, &end, 10);
	if (*end || done * 100 < (uint64_t)percent * size)
		return;
	armed = true;
	fdw_log(FDW_LOG_WARN, "test hook: killed at %llu %% (+%lu us) (%s)",
		(unsigned long long)(done * 100 / size), usec, FDW_TEST_KILL_AT_ENV);
	if (!usec || pthread_create(&thread, NULL, kill_later, (void *)(uintptr_t)usec))
		raise(SIGKILL);
}

bool fdw_test_hold(uint64_t done, uint64_t size)
{
	const char *want = getenv(FDW_TEST_HOLD_AT_ENV);
	unsigned long percent;
	char *end;

	static bool below, held;

	if (!want || strncmp(want, "progress=", 9) || !size || done >= size)
		return false;
	percent = strtoul(want + 9, &end, 10);
	if (*end)
		return false;
	if (done * 100 < (uint64_t)percent * size) {
		below = true;
		return false;
	}
	if (!below || held)
		return false;
	held = true;
	fdw_log(FDW_LOG_WARN, "test hook: held at %llu %% until stopped (%s)",
		(unsigned long long)(done * 100 / size), FDW_TEST_HOLD_AT_ENV);
	return true;
}

bool fdw_test_fail(const char *point)
{
	const char *want = getenv(FDW_TEST_FAIL_AT_ENV);

	if (!want || strcmp(want, point))
		return false;
	fdw_log(FDW_LOG_WARN, "test hook: '%s' fails on purpose (%s)", point,
		FDW_TEST_FAIL_AT_ENV);
	return true;
}

const char *fdw_power_supply_root(void)
{
	const char *root = getenv(FDW_TEST_POWER_ROOT_ENV);

	return root && root[0] ? root : "/sys/class/power_supply";
}

const char *fdw_tpm_sysfs_root(void)
{
	const char *root = getenv(FDW_TEST_TPM_SYSFS_ENV);

	return root && root[0] ? root : "/sys/class/tpm";
}

const char *fdw_tpm_tcti_env(void)
{
	static char env[512];
	const char *tcti = getenv(FDW_TEST_TPM_TCTI_ENV);

	if (!tcti || !tcti[0] || strlen(tcti) > 400)
		return NULL;
	snprintf(env, sizeof(env), "TPM2TOOLS_TCTI=%s", tcti);
	return env;
}

int fdw_test_bench_repeats(void)
{
	const char *v = getenv(FDW_TEST_BENCH_REPEATS_ENV);

	return v && v[0] >= '1' && v[0] <= '9' && !v[1] ? v[0] - '0' : 0;
}
