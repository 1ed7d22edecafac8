/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading files and devices whole, through short reads and interruptions. */
#ifndef FDW_FILEIO_H
#define FDW_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Read @len bytes at @off of @fd into @buf, going on after short reads and EINTR: the bytes
 * read (fewer only at the end of the device or file), or -errno.
 */
ssize_t fdw_pread_full(int fd, void *buf, size_t len, uint64_t off);

#endif
