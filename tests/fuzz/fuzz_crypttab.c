/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz the crypttab editors on any old file: the entry editor keeps every other byte and
 * adds one line; the key-file editor changes one line; the reader of asking lines stays in
 * its bounds.
 */
#include "fuzz_common.h"

#include "core/boot/crypttab.h"

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
	out = NULL;
	{
		struct fdw_crypttab_asking asking[4];
		size_t n = fdw_crypttab_asking(old, asking, 4);

		for (size_t i = 0; i < n && i < 4; i++)
			if (strlen(asking[i].name) >= sizeof(asking[i].name))
				abort();
		if (n && fdw_crypttab_name_valid(asking[0].name)) {
			rc = fdw_crypttab_edit_keyfile(old, asking[0].name, "/etc/k.key", &out);
			if (rc < 0 || (rc == 0 && !out))
				abort();
		}
	}
	free(out);
	free(old);
	return 0;
}
