/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A partition chosen for conversion: its facts from the scan and the block device to work on. */
#ifndef FDW_TARGET_H
#define FDW_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "disk.h"

/* Where conversion locks live (one file per partition, kept; only the flock counts). */
#define FDW_LOCK_DIR "/run/fdewiz"

struct fdw_target {
	struct fdw_disk disk;		/* the scanned disk the partition belongs to */
	struct fdw_partition *part;	/* points into disk.parts */
	char device[PATH_MAX];		/* block device covering exactly the partition */
	bool loop_attached;		/* device is a loop device fdewiz attached */
	int loop_fd;			/* its descriptor: the device lives while it is open */
	bool loop_handed_over;		/* a worker holds it too: closing ours does not end it */
};

/*
 * Resolve @address: a partition node, a whole block device or filesystem image, or
 * DISK:N (partition N of an image file or of a disk without partition nodes).
 * Returns 0, -ENOENT (no such device or file), -ENXIO (no partition N on that disk),
 * -EISDIR (a whole disk with a partition table: a partition must be named),
 * -ENOTBLK, or -errno.
 */
int fdw_target_open(const char *address, struct fdw_target *t);
/* fdw_target_open() that only finds the bytes (fdw_disk_scan_locate()): for a lock, a
 * header, a job's volume; not for a plan, a verdict or an installed system. */
int fdw_target_open_locate(const char *address, struct fdw_target *t);
/*
 * fdw_target_open() for a conversion or an erase: a partition of a block device also gets
 * its owner from every disk's installed systems (a /boot on a second disk belongs to the
 * system whose root is on the first), which the scan of its own disk cannot see.
 */
int fdw_target_open_to_change(const char *address, struct fdw_target *t);
/* Attach a loop device of our own when the partition has no node of its own. */
int fdw_target_attach(struct fdw_target *t);
/*
 * Take the partition's conversion lock (flock on a file in FDW_LOCK_DIR keyed
 * by the device, or by the image file and the partition's offset), so that two fdewiz
 * runs, encrypt or resume, can never work on the same bytes at once. Returns the fd
 * to keep open while converting (a forked worker inherits it) or -EBUSY.
 */
int fdw_target_lock(const struct fdw_target *t);
/* The same lock for the target whose node is the block device @node, taken without a scan
 * of its disk; -ENOTBLK when @node is none (an image, or no such file: open it and lock
 * that). */
int fdw_target_lock_node(const char *node);
/*
 * Does some process hold the partition's conversion lock right now? Read from /proc/locks
 * without taking the lock, not even shared: a viewer that took it for an instant would make
 * an `encrypt` or `resume` starting in that instant refuse as if the partition were busy.
 */
bool fdw_target_lock_held(const struct fdw_target *t);
/*
 * Has process @pid the partition's lock file open (as the run converting it keeps it, a
 * forked worker by inheritance)? Tells that a process works on these bytes, not others.
 */
bool fdw_target_lock_open_in(const struct fdw_target *t, pid_t pid);
void fdw_target_close(struct fdw_target *t);

#endif
