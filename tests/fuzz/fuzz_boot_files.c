/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz what reads a boot partition's contents (src/core/disk/boot_files.c,
 * debugfs_reader.c): its names, its boot loader's configuration, and debugfs's output,
 * whose file names may hold newlines and forge its echo lines. */
#include "fuzz_common.h"

#include "core/disk/boot_files.h"
#include "core/disk/debugfs_reader.h"

static void check_terminated(const struct fdw_boot_files *bf)
{
	if (bf->n_luks_uuids > FDW_BOOTF_MAX_UUIDS ||
	    strnlen(bf->root_mapper, sizeof(bf->root_mapper)) == sizeof(bf->root_mapper))
		abort();
	for (unsigned i = 0; i < bf->n_luks_uuids; i++)
		if (strlen(bf->luks_uuids[i]) != 32 ||
		    strspn(bf->luks_uuids[i], "0123456789abcdef") != 32 ||
		    !fdw_boot_files_names_uuid(bf, bf->luks_uuids[i]))
			abort();	/* only whole UUIDs, each found again */
	if (fdw_boot_files_mapper_number(bf) < 0 || fdw_boot_files_mapper_number(bf) > 999)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cmds[] = { "stat /grub/grub.cfg", "ls -p /", "ls -p /boot",
					    "ls -p /EFI" };
	struct fdw_boot_files bf = { 0 };
	char *text = fuzz_cstr(data, size), *names, *out[4], buf[256];
	unsigned kinds;

	fdw_boot_files_parse_config(text, &bf);
	check_terminated(&bf);
	kinds = fdw_boot_files_classify_names(text);
	if (kinds & ~(FDW_BOOTF_KERNELS | FDW_BOOTF_INITRAMFS | FDW_BOOTF_KERNEL_FILES))
		abort();	/* names alone tell only of kernels */
	fdw_boot_files_describe(kinds | FDW_BOOTF_GRUB, buf, sizeof(buf));
	if (strlen(buf) >= sizeof(buf))
		abort();
	names = fdw_debugfs_parse_ls(text);
	if (!names || strlen(names) > size)
		abort();	/* the names come from the text: never more of them */
	free(names);
	if (fdw_debugfs_split(text, cmds, 4, out) == 0) {
		size_t total = 0;

		for (int i = 0; i < 4; i++) {
			total += strlen(out[i]);
			free(out[i]);
		}
		if (total > size)
			abort();	/* each output is a part of the text, none twice */
	}
	free(text);
	return 0;
}
