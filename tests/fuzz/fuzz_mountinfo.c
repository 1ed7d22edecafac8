/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the /proc/self/mountinfo parser (octal escapes such as \040 included). */
#include "fuzz_common.h"

#include "core/base/sysstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct fdw_mount *m = NULL;
	size_t n = 0;

	if (!f)
		return 0;
	if (fdw_mountinfo_parse(f, &m, &n) == 0) {
		/* Freed as the engine frees them, whatever fields a mount gains. */
		struct fdw_sysstate st = { .mounts = m, .n_mounts = n };

		fdw_sysstate_free(&st);
	}
	fclose(f);
	return 0;
}
