/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which disks the machine has to scan. */
#ifndef FDW_DISK_PATHS_H
#define FDW_DISK_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Is @path a block device node? Its device number in @rdev when it is. */
bool fdw_is_block_node(const char *path, dev_t *rdev);
/*
 * The paths of the machine's disks, newly allocated (each and the array): those
 * libparted probes (its exception handler set by the caller), then those of /sys/block it
 * left out. 0 or -ENOMEM (what was found so far stays in @paths for the caller to free).
 */
int fdw_disk_paths(char ***paths, size_t *n);

#endif
