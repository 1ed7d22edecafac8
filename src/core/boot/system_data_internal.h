/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/core/boot only (and its unit test): the record of a data volume's boot entries
 * in the system it belongs to (system_data.c), kept in the job's .owner file. */
#ifndef FDW_SYSTEM_DATA_INTERNAL_H
#define FDW_SYSTEM_DATA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "state/job.h"

struct fdw_sysdata_record {
	char name[64];			/* its crypttab name */
	char dir[64];			/* where that system mounts it */
	char spec[128];			/* how its fstab names it */
	char root_disk[512];		/* the disk or image holding that system's root */
	int root_number;
	uint64_t root_start, root_size;
	char root_uuid[40];
	char root_address[512];
	bool done;
	char changed[2048];		/* "path (backup)" lines */
};

/* Written atomically and durably: 0, or -errno. */
int fdw_system_data_save(const struct fdw_job *job, const struct fdw_sysdata_record *r);
/* 0; -ENOENT when there is none; -EINVAL when it cannot be trusted (its crypttab name, its
 * root's UUID). The previous version's "key=value" lines load too. */
int fdw_system_data_load(const struct fdw_job *job, struct fdw_sysdata_record *r);

#endif
