/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who a volume is now: its UUIDs, label, place on its disk and the image file under it. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "disk.h"
#include "state/job.h"
#include "base/loopdev.h"
#include "base/sysstate.h"
#include "volume_id.h"

int fdw_partuuid_probe(const char *disk, int number, char *partuuid, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(disk);
	blkid_partlist ls;
	blkid_partition part;
	const char *uuid;
	int rc = -ENOENT;

	if (len)
		partuuid[0] = '\0';
	if (!pr)
		return -errno ? -errno : -EIO;
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_enable_superblocks(pr, 0);
	ls = blkid_probe_get_partitions(pr);
	part = ls ? blkid_partlist_get_partition_by_partno(ls, number) : NULL;
	uuid = part ? blkid_partition_get_uuid(part) : NULL;
	if (uuid && *uuid) {
		snprintf(partuuid, len, "%s", uuid);
		rc = 0;
	}
	blkid_free_probe(pr);
	return rc;
}

/* The image file under @disk (an image itself, or a loop device over one). */
static void image_of(const struct fdw_disk *disk, const struct fdw_partition *part,
		     struct fdw_volume_id *id)
{
	char real[PATH_MAX], file[PATH_MAX];
	const char *base;
	uint64_t offset = 0;
	struct stat st;

	if (disk->kind == FDW_DISK_IMAGE) {
		if (!realpath(disk->path, file))
			snprintf(file, sizeof(file), "%s", disk->path);
	} else {
		if (!realpath(disk->path, real))
			snprintf(real, sizeof(real), "%s", disk->path);
		base = strrchr(real, '/');
		base = base ? base + 1 : real;
		if (strncmp(base, "loop", 4) || fdw_loop_backing(base, file, sizeof(file), &offset))
			return;
	}
	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	snprintf(id->image, sizeof(id->image), "%s", file);
	id->image_dev = (uint64_t)st.st_dev;
	id->image_ino = (uint64_t)st.st_ino;
	id->image_offset = offset + part->start;
}

void fdw_volume_id_of(const struct fdw_disk *disk, const struct fdw_partition *part,
		      struct fdw_volume_id *id)
{
	bool luks = part->luks_version == 2 && part->uuid;

	memset(id, 0, sizeof(*id));
	snprintf(id->luks_uuid, sizeof(id->luks_uuid), "%s", luks ? part->uuid : "");
	snprintf(id->fs_uuid, sizeof(id->fs_uuid), "%s",
		 !part->luks_version && part->uuid ? part->uuid : "");
	snprintf(id->label, sizeof(id->label), "%s", part->label ? part->label : "");
	snprintf(id->fstype, sizeof(id->fstype), "%s", part->fstype ? part->fstype : "");
	snprintf(id->disk, sizeof(id->disk), "%s", disk->path);
	id->number = part->number;
	id->start = part->start;
	id->size = part->size;
	if (part->number > 0)
		fdw_partuuid_probe(disk->path, part->number, id->partuuid, sizeof(id->partuuid));
	image_of(disk, part, id);
}
