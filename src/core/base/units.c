/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Human-readable sizes in binary units, and durations. */
#include "config.h"

#include <stdio.h>

#include "units.h"

char *fdw_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	double v = (double)bytes;

	while (v >= 1024.0 && u < sizeof(unit) / sizeof(unit[0]) - 1) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else if (v >= 100.0 || v == (double)(unsigned long long)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

char *fdw_format_duration(double secs, const char *unknown, char *buf, size_t len)
{
	long s = secs < 0 ? -1 : (long)(secs + 0.5);

	if (s < 0)
		snprintf(buf, len, "%s", unknown);
	else if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
	return buf;
}
