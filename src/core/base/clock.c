/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The monotonic clock: one reading function for every duration fdewiz measures. */
#include "config.h"

#include <time.h>

#include "clock.h"

uint64_t fdw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static double seconds_of(clockid_t which)
{
	struct timespec ts;

	clock_gettime(which, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double fdw_now_s(void)
{
	return seconds_of(CLOCK_MONOTONIC);
}

double fdw_asleep_s(void)
{
	double boot = seconds_of(CLOCK_BOOTTIME), mono = seconds_of(CLOCK_MONOTONIC);

	return boot > mono ? boot - mono : 0;
}
