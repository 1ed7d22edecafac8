/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Named points at which a test can have fdewiz killed or a step fail, to prove what is left. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

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
