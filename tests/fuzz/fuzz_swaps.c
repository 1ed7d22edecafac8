/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the /proc/swaps parser. */
#include "fuzz_common.h"

#include "core/base/sysstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	char **v = NULL;
	size_t n = 0;

	if (!f)
		return 0;
	if (fdw_swaps_parse(f, &v, &n) == 0)
		fdw_strv_free(v, n);
	fclose(f);
	return 0;
}
