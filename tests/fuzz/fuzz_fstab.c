/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the fstab editor: only lines that name the partition change. */
#include "fuzz_common.h"

#include "core/boot/crypttab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *old = fuzz_cstr(data, size), *out = NULL;
	struct fdw_part_ids ids = {
		.node = "/dev/sda3",
		.partuuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
		.partlabel = "Linux filesystem",
		.resolve_links = false,
	};
	int rc = fdw_fstab_edit(old, "data", &ids, &out);

	if (rc > 0 && !out)
		abort();
	free(out);
	free(old);
	return 0;
}
