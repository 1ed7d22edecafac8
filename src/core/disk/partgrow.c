/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Grows a partition into the free space after it through libparted. */
#include "config.h"

#include <errno.h>
#include <parted/parted.h>

#include "base/log.h"
#include "partgrow.h"
#include "parted_quiet.h"

int fdw_partition_grow(const char *disk_path, int number, uint64_t extra)
{
	PedDevice *dev = ped_device_get(disk_path);
	PedDisk *disk = NULL;
	PedPartition *part;
	PedConstraint *exact = NULL;
	PedGeometry *wanted = NULL;
	PedSector new_end;
	int rc = 0;

	if (!dev)
		return -EIO;
	disk = ped_disk_new(dev);
	if (!disk) {
		rc = -EIO;
		goto out;
	}
	part = ped_disk_get_partition(disk, number);
	if (!part) {
		rc = -ENOENT;
		goto out;
	}
	new_end = part->geom.end + (PedSector)(extra / (uint64_t)dev->sector_size);
	/* Exactly this range: the start stays, so the data stays where it is. */
	wanted = ped_geometry_new(dev, part->geom.start, new_end - part->geom.start + 1);
	exact = wanted ? ped_constraint_exact(wanted) : NULL;
	if (!exact || !ped_disk_set_partition_geom(disk, part, exact, part->geom.start, new_end) ||
	    part->geom.end != new_end) {
		fdw_log(FDW_LOG_ERROR, "%s: partition %d cannot grow by %llu bytes", disk_path,
			number, (unsigned long long)extra);
		rc = -ENOSPC;
		goto out;
	}
	if (!fdw_parted_commit_quietly(disk))
		rc = -EIO;
	if (rc)
		fdw_log(FDW_LOG_ERROR, "%s: the new partition table could not be written",
			disk_path);
out:
	if (exact)
		ped_constraint_destroy(exact);
	if (wanted)
		ped_geometry_destroy(wanted);
	if (disk)
		ped_disk_destroy(disk);
	ped_device_destroy(dev);
	return rc;
}
