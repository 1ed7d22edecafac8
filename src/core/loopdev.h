/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Loop devices over a byte range of an image file, so a partition inside it can be reached. */
#ifndef FDW_LOOPDEV_H
#define FDW_LOOPDEV_H

#include <stddef.h>
#include <stdint.h>

/*
 * Attach a loop device covering @size bytes at @offset of @file (read-write). Writes its
 * path to @dev. It stays until fdw_loop_detach(): a conversion outlives its opener.
 */
int fdw_loop_attach(const char *file, uint64_t offset, uint64_t size, char *dev, size_t len);
int fdw_loop_detach(const char *dev);

#endif
