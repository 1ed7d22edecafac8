/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A /boot of its own for a system whose /boot is inside its root: the plan of the carve. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "boot_carve.h"

/* GPT keeps 128 entries unless made otherwise; none of the installers do. */
#define GPT_ENTRIES 128
/* An msdos logical partition starts after its extended boot record: one aligned MiB. */
#define EBR_ROOM FDW_MIB

uint64_t fdw_boot_carve_size(uint64_t boot_used)
{
	uint64_t size = boot_used > UINT64_MAX / 3 ? UINT64_MAX / 3 : boot_used * 3;

	if (size < FDW_CARVE_BOOT_MIN)
		size = FDW_CARVE_BOOT_MIN;
	return (size + FDW_MIB - 1) / FDW_MIB * FDW_MIB;
}

/* Where a new partition can go in @d's table, next to @root. */
static enum fdw_carve_slot find_slot(const struct fdw_disk *d, const struct fdw_partition *root)
{
	size_t used = 0, primaries = 0;

	for (size_t i = 0; i < d->n_parts; i++) {
		if (d->parts[i].number <= 0)
			continue;
		used++;
		if (d->parts[i].number <= 4)
			primaries++;
	}
	if (d->table && !strcmp(d->table, "gpt"))
		return used < GPT_ENTRIES ? FDW_CARVE_SLOT_GPT : FDW_CARVE_SLOT_NONE;
	if (!d->table || strcmp(d->table, "msdos"))
		return FDW_CARVE_SLOT_NONE;
	/* A logical root: the new /boot is a logical partition after it, in the same extended
	 * partition, which ends where the root ends or later. */
	if (root->number >= 5)
		return FDW_CARVE_SLOT_LOGICAL;
	return primaries < 4 ? FDW_CARVE_SLOT_PRIMARY : FDW_CARVE_SLOT_NONE;
}

/* GRUB for BIOS on a GPT disk puts its core in a BIOS boot partition: is there one? */
static bool bios_boot_missing(const struct fdw_disk *d, const struct fdw_partition *root)
{
	if (root->os.loader != FDW_LOADER_GRUB_BIOS || !d->table || strcmp(d->table, "gpt"))
		return false;
	for (size_t i = 0; i < d->n_parts; i++)
		if (d->parts[i].number > 0 && d->parts[i].flag_bios_boot)
			return false;
	return true;
}

int fdw_boot_carve_plan(const struct fdw_disk *d, const struct fdw_partition *root,
			uint64_t boot_used, struct fdw_boot_carve *out)
{
	uint64_t end = root->start + root->size, want = fdw_boot_carve_size(boot_used);
	uint64_t gap, block = root->fs_block_size > 0 ? (uint64_t)root->fs_block_size : 4096;

	memset(out, 0, sizeof(*out));
	if (root->number <= 0) {
		out->refusal = FDW_CARVE_NO_TABLE;
		return -ENOENT;
	}
	out->slot = find_slot(d, root);
	if (out->slot == FDW_CARVE_SLOT_NONE) {
		out->refusal = d->table && (!strcmp(d->table, "gpt") || !strcmp(d->table, "msdos")) ?
				       FDW_CARVE_NO_SLOT : FDW_CARVE_NO_TABLE;
		return -ENOENT;
	}
	/* Checked before anything is planned: the move ends with grub-install. */
	if (bios_boot_missing(d, root)) {
		out->refusal = FDW_CARVE_NO_BIOS_BOOT;
		return -ENOENT;
	}
	gap = out->slot == FDW_CARVE_SLOT_LOGICAL ? EBR_ROOM : 0;
	/* The new /boot ends where the root ended and starts on a MiB boundary. */
	if (root->size < want + gap + FDW_HEADER_ROOM + FDW_MIB) {
		out->refusal = FDW_CARVE_TOO_SMALL;
		out->short_by = want + gap + FDW_HEADER_ROOM + FDW_MIB - root->size;
		return -ENOSPC;
	}
	out->boot_start = (end - want) / FDW_MIB * FDW_MIB;
	out->boot_size = end - out->boot_start;
	out->root_size = out->boot_start - gap - root->start;
	out->root_fs_max = (out->root_size - FDW_HEADER_ROOM) / block * block;
	if (root->fs_min_size < 0) {
		out->refusal = FDW_CARVE_MIN_UNKNOWN;
		return -EAGAIN;
	}
	if ((uint64_t)root->fs_min_size > out->root_fs_max) {
		out->refusal = FDW_CARVE_TOO_FULL;
		out->short_by = (uint64_t)root->fs_min_size - out->root_fs_max;
		return -ENOSPC;
	}
	return 0;
}
