/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who else uses a partition's bytes: loop devices and device-mapper tables found by identity. */
#ifndef FDW_HOLDERS_H
#define FDW_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>

#include "disk.h"
#include "base/sysstate.h"
#include "target.h"

/* What holds a byte range, each list without duplicates. */
struct fdw_holders {
	char **names;		/* kernel names: "loop7", "dm-0", "md127" */
	size_t n_names;
	char **mountpoints;	/* of the range itself or of any holder, in this namespace */
	size_t n_mountpoints;
	bool swap;		/* the range or a holder is an active swap */
};

/*
 * Find everything that overlaps partition @p of the disk or image at @disk_path: loop
 * devices by their backing inode or block device and their offset and size limit (never
 * by the name they were attached through), device-mapper tables by the devices and sectors
 * they map, other sysfs holders, and, for each of them and for the partition itself,
 * mounts and swaps; a holder of a holder counts. Loop devices the partition's own device
 * is built on (a loop device named as the disk) are not holders, but other users of their
 * backing bytes are. @skip_dm names a device-mapper device that is ours (the volume of a
 * conversion being resumed): it, what sits on it and the loop devices it sits on
 * are left out. Appends to @out (zero it first); returns 0 or -ENOMEM.
 */
int fdw_holders_find(const struct fdw_sysstate *st, const char *disk_path,
		     const struct fdw_partition *p, const char *skip_dm, struct fdw_holders *out);
void fdw_holders_free(struct fdw_holders *h);

/*
 * Look again, now, at who holds the partition of @t (which must not be attached yet):
 * 0 when nobody does; -EBUSY with @why naming the holder, its mountpoint, or where else
 * to look; another -errno with @why when the system could not be read.
 */
int fdw_holders_check(const struct fdw_target *t, const char *skip_dm, char *why, size_t len);

#endif
