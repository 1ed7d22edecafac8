/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Cold caches before a measurement: the one way the benchmarks empty them. */
#ifndef FDW_DROPCACHE_H
#define FDW_DROPCACHE_H

#include <stdbool.h>

/*
 * Write back the filesystem that holds @fd (syncfs; -1: none), drop @fd's own cached pages
 * (posix_fadvise; -1: none), then ask the kernel to drop clean page cache, dentries and
 * inodes ("3" into /proc/sys/vm/drop_caches) when @global. True when the global drop was
 * done; false when it was not asked for or not allowed (not root, a container).
 */
bool fdw_drop_caches(int fd, bool global);

#endif
