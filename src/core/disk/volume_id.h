/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who a volume is now, read from its disk: the identity a job record keeps. */
#ifndef FDW_VOLUME_ID_H
#define FDW_VOLUME_ID_H

#include "state/job.h"

struct fdw_disk;
struct fdw_partition;

/* What is on @part of @disk now, as an identity (reads the partition table for PARTUUID). */
void fdw_volume_id_of(const struct fdw_disk *disk, const struct fdw_partition *part,
		      struct fdw_volume_id *id);
/*
 * The partition GUID (GPT) or "xxxxxxxx-NN" id (msdos) of partition @number of @disk
 * (a block device or image file), as PARTUUID= names it. 0, or -errno ("" in @partuuid).
 */
int fdw_partuuid_probe(const char *disk, int number, char *partuuid, size_t len);

#endif
