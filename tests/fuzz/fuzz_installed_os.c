/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the readers of an installed system's fstab, crypttab, resume and os-release
 * (src/core/disk/installed_os.c), and the one table reader under them (base/tabfile.c). */
#include "fuzz_common.h"

#include "core/base/tabfile.h"
#include "core/disk/installed_os.h"

/* Every field of every line lies inside its line and holds no blank. */
static void check_tab_reader(const char *text)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line l;
	char field[64];

	fdw_tab_begin(&r, text);
	while (fdw_tab_next(&r, &l)) {
		if (l.n < 0 || l.n > FDW_TAB_MAX_FIELDS || memchr(l.text, '\n', l.len))
			abort();
		for (int i = 0; i < l.n; i++) {
			if (l.at[i] < l.text || l.at[i] + l.flen[i] > l.text + l.len || !l.flen[i] ||
			    memchr(l.at[i], ' ', l.flen[i]) || memchr(l.at[i], '\t', l.flen[i]))
				abort();
			if (fdw_tab_field(&l, i, field, sizeof(field)) &&
			    strlen(field) > l.flen[i])
				abort();	/* decoding escapes only ever shortens */
			fdw_tab_has_option(&l, i, "luks");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdw_installed_os os = { 0 };
	char *text = fuzz_cstr(data, size), buf[512];

	check_tab_reader(text);
	fdw_installed_os_parse_fstab(text, "5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d", "root", &os);
	fdw_installed_os_parse_os_release(text, &os);
	fdw_installed_os_parse_crypttab(text, &os);
	fdw_installed_os_parse_resume(text, &os);
	fdw_installed_os_parse_default_grub(text, &os);
	if (os.n_entries > FDW_OS_MAX_ENTRIES)
		abort();
	for (unsigned i = 0; i < os.n_entries; i++)
		if (strnlen(os.entries[i].spec, sizeof(os.entries[i].spec)) ==
			    sizeof(os.entries[i].spec) ||
		    !fdw_os_spec_is_partition(os.entries[i].spec))
			abort();	/* terminated, and only what can name a partition */
	if (strnlen(os.name, sizeof(os.name)) == sizeof(os.name))
		abort();	/* the name must stay terminated */
	if (os.n_swap_files > os.n_swaps ||
	    strnlen(os.swap_file, sizeof(os.swap_file)) == sizeof(os.swap_file) ||
	    (os.n_swap_files && os.swap_file[0] != '/'))
		abort();	/* a swap file is one of its swaps, a path, terminated */
	fdw_installed_os_describe(&os, buf, sizeof(buf));
	free(text);
	return 0;
}
