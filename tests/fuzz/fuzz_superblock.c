/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the superblock and LUKS header parsers: bytes straight from a stranger's disk. */
#include "fuzz_common.h"

#include <stdbool.h>

#include "core/disk/fsprobe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);
	struct fdw_fs_usage u;
	bool unfinished;
	int version;

	if (!copy)
		abort();
	/* A copy of exactly @size bytes: ASan sees any read past what the disk gave. */
	memcpy(copy, data, size);
	fdw_ext_usage(copy, size, &u);
	fdw_xfs_usage(copy, size, &u);
	fdw_btrfs_usage(copy, size, &u);
	fdw_vfat_usage(copy, size, &u);
	fdw_luks_header_parse(copy, size, &version, &unfinished);
	free(copy);
	return 0;
}
