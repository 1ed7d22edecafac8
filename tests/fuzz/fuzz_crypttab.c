/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the crypttab editor on any old file: it keeps every other byte and adds one line. */
#include "fuzz_common.h"

#include "core/crypttab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *old = fuzz_cstr(data, size), *out = NULL, why[512];
	int rc;

	rc = fdw_crypttab_edit(old, "data", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
			       size & 1, &out, why, sizeof(why));
	/* A new text keeps the old one as its start. */
	if (rc == 0 && (!out || strncmp(out, old, strlen(old)) != 0))
		abort();
	free(out);
	free(old);
	return 0;
}
