/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A /boot of its own for a system whose /boot is inside its root: carved from the end of
 * the root partition before the root is encrypted. The plan only: pure, nothing is read
 * or written here. */
#ifndef FDW_BOOT_CARVE_H
#define FDW_BOOT_CARVE_H

#include <stdint.h>

#include "disk.h"

/* Where the new /boot partition goes in the table. */
enum fdw_carve_slot {
	FDW_CARVE_SLOT_NONE,
	FDW_CARVE_SLOT_GPT,		/* a new GPT entry */
	FDW_CARVE_SLOT_PRIMARY,		/* an msdos primary partition */
	FDW_CARVE_SLOT_LOGICAL,		/* an msdos logical partition (the root is one too) */
};

/* Why there is no such plan. */
enum fdw_carve_refusal {
	FDW_CARVE_OK,
	FDW_CARVE_NO_TABLE,		/* a filesystem on a whole disk: no partition to add */
	FDW_CARVE_NO_SLOT,		/* msdos with four primaries, or a full GPT */
	FDW_CARVE_MIN_UNKNOWN,		/* how far the root can shrink was not measured */
	FDW_CARVE_TOO_FULL,		/* the root cannot give up the new /boot and the header */
	FDW_CARVE_TOO_SMALL,		/* the partition itself is smaller than what it needs */
	FDW_CARVE_NO_BIOS_BOOT,		/* GRUB for BIOS on a GPT disk without a BIOS boot
					 * partition: grub-install would have nowhere to go */
	FDW_CARVE_NOT_A_DISK,		/* an image file: no disk to reinstall GRUB on (set by
					 * the verdict, not by the plan) */
};

struct fdw_boot_carve {
	enum fdw_carve_refusal refusal;
	enum fdw_carve_slot slot;
	uint64_t boot_start;		/* the new /boot's first byte on the disk (1 MiB aligned) */
	uint64_t boot_size;		/* to the root partition's old end */
	uint64_t root_size;		/* the root partition's size afterwards */
	uint64_t root_fs_max;		/* what the root's filesystem may keep: the partition
					 * less the LUKS2 header's room, in whole blocks */
	uint64_t short_by;		/* FDW_CARVE_TOO_FULL: bytes to free in the root */
};

/* No new /boot is smaller than this: Debian's installer advises 512 MiB for /boot. */
#define FDW_CARVE_BOOT_MIN (512 * FDW_MIB)

/*
 * The size of a new /boot for a /boot folder that holds @boot_used bytes now: three times
 * that (the next kernels and their initramfs come beside the current ones), at least
 * FDW_CARVE_BOOT_MIN, in whole MiB.
 */
uint64_t fdw_boot_carve_size(uint64_t boot_used);

/*
 * Plan a new /boot at the end of partition @root of disk @d, for a /boot folder of
 * @boot_used bytes. Always fills @out; returns 0 when the plan can be carried out, or
 * -ENOSPC (too full or too small: out->short_by), -ENOENT (no table or no slot) or -EAGAIN
 * (the root's minimum unknown), out->refusal saying which.
 */
int fdw_boot_carve_plan(const struct fdw_disk *d, const struct fdw_partition *root,
			uint64_t boot_used, struct fdw_boot_carve *out);

#endif
