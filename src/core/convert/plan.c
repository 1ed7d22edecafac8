/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Decides how a partition is converted: strategy, sizes, sector size and cipher. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "luks2/convert.h"
#include "base/i18n.h"
#include "plan.h"

static int split_cipher(const char *spec, struct fdw_plan *out)
{
	const char *dash = strchr(spec, '-');

	if (!dash || dash == spec || !dash[1] || (size_t)(dash - spec) >= sizeof(out->cipher) ||
	    strlen(dash + 1) >= sizeof(out->cipher_mode))
		return -EINVAL;
	snprintf(out->cipher, sizeof(out->cipher), "%.*s", (int)(dash - spec), spec);
	snprintf(out->cipher_mode, sizeof(out->cipher_mode), "%s", dash + 1);
	return 0;
}

/*
 * libcryptsetup does not check that the encryption sector fits the filesystem block:
 * a larger sector would make the filesystem's own writes fail or tear. We do.
 */
static int choose_sector_size(const struct fdw_partition *p, unsigned requested,
			      unsigned *out, const char **why)
{
	/* The filesystem's own I/O unit, which for XFS and FAT is less than a block. */
	int64_t block = p->fs_sector_size > 0 ? p->fs_sector_size : p->fs_block_size;

	if (requested) {
		if (requested != 512 && requested != 1024 && requested != 2048 &&
		    requested != 4096) {
			*why = _("The sector size must be 512, 1024, 2048 or 4096.");
			return -EINVAL;
		}
		if (block > 0 && requested > (uint64_t)block) {
			*why = _("The sector size is larger than the filesystem block size (for XFS "
				 "and FAT: its sector size); the filesystem would be damaged. Choose a "
				 "smaller one.");
			return -EINVAL;
		}
		if (p->size % requested) {
			*why = _("The partition size is not a multiple of that sector size.");
			return -EINVAL;
		}
		*out = requested;
		return 0;
	}
	*out = 512;
	if (block >= 4096 && p->size % 4096 == 0)
		*out = 4096;
	return 0;
}

int fdw_plan_make(const struct fdw_partition *p, const struct fdw_plan_request *rq,
		  struct fdw_plan *out, const char **why)
{
	const struct fdw_verdict *v = &p->verdict;
	int rc;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (!v->eligible && !(rq->strategy && (v->strategies & rq->strategy))) {
		*why = fdw_reason_message(v->reason);
		return -EPERM;
	}
	out->strategy = rq->strategy ? rq->strategy : v->strategy;
	/* The verdict's own computation, asked again: one answer for both. */
	if (out->strategy == FDW_STRATEGY_SHRINK && fdw_shrink_shortfall(p) != 0)
		out->strategy = FDW_STRATEGY_NONE;
	/* An installed system's PV gets its room at the end made first (disk/lvm_room.h). */
	if (out->strategy == FDW_STRATEGY_FREE_TAIL && !fdw_has_free_tail(p) && !v->lvm_system)
		out->strategy = FDW_STRATEGY_NONE;
	if (!out->strategy || !(v->strategies & out->strategy)) {
		*why = _("That strategy is not possible for this partition; 'fdewiz list' shows "
			 "which are.");
		return -ENOTSUP;
	}
	if (out->strategy == FDW_STRATEGY_DETACHED && !rq->detached_header) {
		*why = _("A detached header needs a file name: --strategy detached-header=FILE, "
			 "on another disk.");
		return -EINVAL;
	}
	rc = split_cipher(rq->cipher_spec ? rq->cipher_spec : "aes-xts-plain64", out);
	if (rc) {
		*why = _("The cipher must look like aes-xts-plain64.");
		return rc;
	}
	out->key_bits = rq->key_bits ? rq->key_bits : 512;
	rc = choose_sector_size(p, rq->sector_size, &out->sector_size, why);
	if (rc)
		return rc;
	out->fs_size_before = p->fs_size;
	switch (out->strategy) {
	case FDW_STRATEGY_DETACHED:
		/* Nothing moves: the whole partition becomes the volume. */
		out->partition_size = p->size;
		out->fs_size_max = p->size;
		out->volume_size = p->size;
		out->detached_header = rq->detached_header;
		return 0;
	case FDW_STRATEGY_GROW:
		out->grow_bytes = FDW_DATA_SHIFT_BYTES;
		break;
	default:
		break;
	}
	out->partition_size = p->size + out->grow_bytes;
	out->shift_bytes = FDW_DATA_SHIFT_BYTES;
	out->header_bytes = FDW_DATA_SHIFT_BYTES / 2;
	out->fs_size_max = out->partition_size - out->shift_bytes;
	/* A /boot of its own is carved from the end first: the root keeps what is left. */
	if (v->carve_boot) {
		out->partition_size = v->carve_root_size;
		out->fs_size_max = v->carve_fs_max;
	}
	/* Once reopened the volume is all but the header; while it converts online the
	 * mapping is the shift smaller. */
	out->volume_size = out->partition_size - out->header_bytes;
	return 0;
}
