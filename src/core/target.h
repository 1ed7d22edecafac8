/* A partition chosen for conversion: its facts from the scan and the block device to work on. */
#ifndef FDW_TARGET_H
#define FDW_TARGET_H

#include <limits.h>
#include <stdbool.h>

#include "disk.h"

struct fdw_target {
	struct fdw_disk disk;		/* the scanned disk the partition belongs to */
	struct fdw_partition *part;	/* points into disk.parts */
	char device[PATH_MAX];		/* block device covering exactly the partition */
	bool loop_attached;		/* device is a loop device fdewiz attached */
};

/*
 * Resolve @address: a partition node, a whole block device or filesystem image, or
 * DISK:N (partition N of an image file or of a disk without partition nodes).
 * Returns 0, -ENOENT (no such device or file), -ENXIO (no partition N on that disk),
 * -EISDIR (a whole disk with a partition table: a partition must be named),
 * -ENOTBLK, or -errno.
 */
int fdw_target_open(const char *address, struct fdw_target *t);
/* Attach a loop device of our own when the partition has no node of its own. */
int fdw_target_attach(struct fdw_target *t);
/*
 * The same for the one process that converts: it may take over a loop device that a
 * killed run left over exactly this range. Only while holding the job's lock
 * (fdw_job_lock), or a live worker's device could be taken and detached under it.
 */
int fdw_target_attach_owned(struct fdw_target *t);
void fdw_target_close(struct fdw_target *t);

#endif
