/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Human-readable sizes in binary units. */
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
