/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Human-readable sizes and durations. */
#ifndef FDW_UNITS_H
#define FDW_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "0 B", "512 B", "1.5 KiB", "32 MiB", "2.0 GiB": three significant digits at most. */
char *fdw_format_size(uint64_t bytes, char *buf, size_t len);

/* "0:42", "12:05", "1:02:03" (rounded to the second); @unknown when @secs < 0. */
char *fdw_format_duration(double secs, const char *unknown, char *buf, size_t len);

#endif
