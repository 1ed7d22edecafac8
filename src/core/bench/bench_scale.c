/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Names of the benchmark scales, as options and saved results spell them. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "bench.h"

static const char *const scale_names[] = {
	[FDW_BENCH_TINY] = "tiny", [FDW_BENCH_QUICK] = "quick",
	[FDW_BENCH_NORMAL] = "normal", [FDW_BENCH_FULL] = "full",
};

int fdw_bench_scale_parse(const char *name, enum fdw_bench_scale *out)
{
	for (size_t i = 0; name && i < sizeof(scale_names) / sizeof(scale_names[0]); i++)
		if (!strcmp(name, scale_names[i])) {
			*out = (enum fdw_bench_scale)i;
			return 0;
		}
	return -EINVAL;
}

const char *fdw_bench_scale_name(enum fdw_bench_scale s)
{
	return (size_t)s < sizeof(scale_names) / sizeof(scale_names[0]) ? scale_names[s] : "";
}
