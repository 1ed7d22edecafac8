/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the running system is doing with block devices: mounts, swaps, loop devices. */
#ifndef FDW_SYSSTATE_H
#define FDW_SYSSTATE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct fdw_mount {
	unsigned major, minor;
	char *root;		/* the folder of the filesystem mounted there ("/@rootfs") */
	char *mountpoint;
	char *source;
	char *fstype;
};

struct fdw_loop {
	char *name;		/* "loop3" */
	unsigned major, minor;
	char *backing_file;
	uint64_t offset;
	uint64_t sizelimit;	/* 0: to the end of the file */
};

struct fdw_sysstate {
	struct fdw_mount *mounts;
	size_t n_mounts;
	char **swaps;		/* resolved paths of active swap devices/files */
	size_t n_swaps;
	struct fdw_loop *loops;
	size_t n_loops;
};

/* Read /proc/self/mountinfo, /proc/swaps and /sys/block/loop*. Missing files are not errors. */
int fdw_sysstate_load(struct fdw_sysstate *st);
void fdw_sysstate_free(struct fdw_sysstate *st);

/* Parsers, separate so they can be tested on captured text. */
int fdw_mountinfo_parse(FILE *f, struct fdw_mount **out, size_t *n_out);
int fdw_swaps_parse(FILE *f, char ***out, size_t *n_out);
/* Decode the octal escapes (\040 for space, ...) the kernel puts in these files. */
void fdw_unescape_octal(char *s);

/*
 * Facts about one device number (a partition node, a disk, a loop device):
 * its mountpoints (appended to @mps) and whether it is an active swap.
 */
int fdw_sysstate_mounts_of(const struct fdw_sysstate *st, dev_t rdev, const char *node,
			   char ***mps, size_t *n_mps);
int fdw_sysstate_is_swap(const struct fdw_sysstate *st, const char *node);
/* Names of the sysfs holders of a device number (dm-0, md127, ...). */
int fdw_sysfs_holders(dev_t rdev, char ***out, size_t *n_out);
/* Is the device number marked read-only by the kernel? */
int fdw_sysfs_read_only(dev_t rdev);

/* Read the first line of a small kernel file (/proc, /sys) into @buf, without its newline. */
int fdw_read_line_file(const char *path, char *buf, size_t len);

/* Helpers for growing string arrays; shared by the scanners. */
int fdw_strv_push(char ***v, size_t *n, const char *s);
void fdw_strv_free(char **v, size_t n);

#endif
