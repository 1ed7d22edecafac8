/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The plan of an in-place conversion: what will change, decided before anything does. */
#ifndef FDW_PLAN_H
#define FDW_PLAN_H

#include <stdint.h>

#include "disk/disk.h"

struct fdw_plan_request {
	enum fdw_strategy strategy;	/* FDW_STRATEGY_NONE: choose automatically */
	unsigned sector_size;		/* 0: the largest the filesystem allows */
	const char *cipher_spec;	/* "aes-xts-plain64" when NULL */
	unsigned key_bits;		/* 512 when 0 */
	const char *detached_header;	/* required with FDW_STRATEGY_DETACHED */
};

struct fdw_plan {
	enum fdw_strategy strategy;
	uint64_t partition_size;	/* after growing, for the grow strategy */
	uint64_t grow_bytes;		/* how much the partition grows; 0 otherwise */
	const char *detached_header;	/* the header file, for the detached strategy */
	uint64_t header_bytes;		/* LUKS2 header and keyslots at the start */
	uint64_t shift_bytes;		/* tail the data gives up while it moves */
	int64_t fs_size_before;		/* -1 when unknown */
	uint64_t fs_size_max;		/* the filesystem must end here before encryption */
	uint64_t volume_size;		/* the encrypted volume after conversion */
	unsigned sector_size;
	char cipher[32];
	char cipher_mode[32];
	unsigned key_bits;
};

/*
 * Decide the plan for @p. Returns 0, or: -EPERM (the verdict forbids it; see
 * p->verdict.reason), -ENOTSUP (the requested strategy is not possible or not built
 * yet), -EINVAL (sector size or cipher not valid for this partition).
 * @why gets one sentence for the error.
 */
int fdw_plan_make(const struct fdw_partition *p, const struct fdw_plan_request *rq,
		  struct fdw_plan *out, const char **why);

#endif
