/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Splits the end off a partition into a new one through libparted. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <parted/parted.h>

#include "base/log.h"
#include "partsplit.h"
#include "parted_quiet.h"
#include "udev_settle.h"

/* The partition that starts exactly at @start, or NULL. */
static PedPartition *starting_at(PedDisk *disk, PedSector start)
{
	for (PedPartition *p = ped_disk_next_partition(disk, NULL); p;
	     p = ped_disk_next_partition(disk, p))
		if (p->num > 0 && p->geom.start == start)
			return p;
	return NULL;
}

/* Set @part to exactly [@start, @end]: 0, or -ENOSPC when the table refuses. */
static int set_exact(PedDisk *disk, PedPartition *part, PedSector start, PedSector end)
{
	PedGeometry *want = ped_geometry_new(disk->dev, start, end - start + 1);
	PedConstraint *exact = want ? ped_constraint_exact(want) : NULL;
	int ok = exact && ped_disk_set_partition_geom(disk, part, exact, start, end) &&
		 part->geom.start == start && part->geom.end == end;

	if (exact)
		ped_constraint_destroy(exact);
	if (want)
		ped_geometry_destroy(want);
	return ok ? 0 : -ENOSPC;
}

/* Add a partition of exactly [@start, @end]: its number, or -ENOSPC. */
static int add_exact(PedDisk *disk, PedSector start, PedSector end, bool logical)
{
	const PedFileSystemType *ext4 = ped_file_system_type_get("ext4");
	PedPartition *part = ped_partition_new(disk, logical ? PED_PARTITION_LOGICAL :
					       PED_PARTITION_NORMAL, ext4, start, end);
	PedGeometry *want = ped_geometry_new(disk->dev, start, end - start + 1);
	PedConstraint *exact = want ? ped_constraint_exact(want) : NULL;
	int rc = -ENOSPC;

	if (part && exact && ped_disk_add_partition(disk, part, exact) &&
	    part->geom.start == start && part->geom.end == end)
		rc = part->num;
	else if (part)
		ped_partition_destroy(part);
	if (exact)
		ped_constraint_destroy(exact);
	if (want)
		ped_geometry_destroy(want);
	return rc;
}

int fdw_partition_split_end(const char *disk_path, int number, uint64_t new_size,
			    uint64_t new_start, bool logical, int *new_number)
{
	PedDevice *dev = ped_device_get(disk_path);
	PedDisk *disk = NULL;
	PedPartition *part, *done;
	PedSector ss, end, root_end, boot_start;
	int rc = 0;

	if (!dev)
		return -EIO;
	ss = dev->sector_size;
	disk = ped_disk_new(dev);
	part = disk ? ped_disk_get_partition(disk, number) : NULL;
	if (!part) {
		rc = disk ? -ENOENT : -EIO;
		goto out;
	}
	root_end = part->geom.start + (PedSector)(new_size / (uint64_t)ss) - 1;
	boot_start = (PedSector)(new_start / (uint64_t)ss);
	/* Done already (a crash after the commit): the root ends there, /boot starts there. */
	done = starting_at(disk, boot_start);
	if (part->geom.end == root_end && done) {
		*new_number = done->num;
		goto out;
	}
	end = part->geom.end;
	if (root_end >= boot_start || boot_start > end || done) {
		rc = -EINVAL;
		goto out;
	}
	rc = set_exact(disk, part, part->geom.start, root_end);
	if (!rc)
		rc = add_exact(disk, boot_start, end, logical);
	if (rc < 0) {
		fdw_log(FDW_LOG_ERROR, "%s: partition %d cannot be split at %llu", disk_path,
			number, (unsigned long long)new_size);
		goto out;
	}
	*new_number = rc;
	rc = fdw_parted_commit_quietly(disk) ? 0 : -EIO;
	if (rc)
		fdw_log(FDW_LOG_ERROR, "%s: the new partition table could not be written",
			disk_path);
out:
	if (disk)
		ped_disk_destroy(disk);
	ped_device_destroy(dev);
	return rc;
}

int fdw_partition_node_settle(const char *disk_path, int number)
{
	char node[PATH_MAX + 16];
	size_t n = strlen(disk_path);
	struct stat st;

	fdw_udev_settle(10);
	/* /dev/sda3, but /dev/nvme0n1p3 and /dev/mmcblk0p3. */
	snprintf(node, sizeof(node), "%s%s%d", disk_path,
		 n && isdigit((unsigned char)disk_path[n - 1]) ? "p" : "", number);
	for (int i = 0; i < 100; i++) {
		if (stat(node, &st) == 0 && S_ISBLK(st.st_mode))
			return 0;
		usleep(100 * 1000);
	}
	fdw_log(FDW_LOG_ERROR, "%s did not appear after the partition table changed", node);
	return -ENOENT;
}
