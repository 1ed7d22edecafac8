/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the readers of an installed system's fstab, crypttab, resume and os-release
 * (src/core/disk/installed_os.c). */
#include "fuzz_common.h"

#include "core/disk/installed_os.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdw_installed_os os = { 0 };
	char *text = fuzz_cstr(data, size), buf[512];

	fdw_installed_os_parse_fstab(text, "5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d", "root", &os);
	fdw_installed_os_parse_os_release(text, &os);
	fdw_installed_os_parse_crypttab(text, &os);
	fdw_installed_os_parse_resume(text, &os);
	if (os.n_entries > FDW_OS_MAX_ENTRIES)
		abort();
	for (unsigned i = 0; i < os.n_entries; i++)
		if (strnlen(os.entries[i].spec, sizeof(os.entries[i].spec)) ==
			    sizeof(os.entries[i].spec) ||
		    !fdw_os_spec_is_partition(os.entries[i].spec))
			abort();	/* terminated, and only what can name a partition */
	if (strnlen(os.name, sizeof(os.name)) == sizeof(os.name))
		abort();	/* the name must stay terminated */
	fdw_installed_os_describe(&os, buf, sizeof(buf));
	free(text);
	return 0;
}
