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

double fdw_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
