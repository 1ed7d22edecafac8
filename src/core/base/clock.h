/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The monotonic clock every timing in the engine and the front-ends reads. */
#ifndef FDW_CLOCK_H
#define FDW_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: only differences mean anything. */
uint64_t fdw_now_ns(void);
/* The same in seconds. */
double fdw_now_s(void);
/* Seconds this machine has spent suspended (asleep) since it started: CLOCK_BOOTTIME counts
 * them, CLOCK_MONOTONIC does not. Only differences mean anything. */
double fdw_asleep_s(void);

#endif
