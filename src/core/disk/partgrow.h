/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Growing a partition into the free space right after it, with libparted. */
#ifndef FDW_PARTGROW_H
#define FDW_PARTGROW_H

#include <stdint.h>

/*
 * Move the end of partition @number of @disk_path (block device or image file) by
 * @extra bytes, into unallocated space; the start and the content stay. Tells the
 * kernel about the new size for block devices. Returns 0, -ENOSPC when the free space
 * is not there, or -errno.
 */
int fdw_partition_grow(const char *disk_path, int number, uint64_t extra);

#endif
