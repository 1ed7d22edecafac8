/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Loop devices over a byte range of an image file, so a partition inside it can be reached. */
#ifndef FDW_LOOPDEV_H
#define FDW_LOOPDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Attach a loop device covering @size bytes at @offset of @file (read-write), with direct
 * I/O where the kernel allows it, and autoclear: it lives exactly as long as the returned descriptor (and copies of it that
 * a forked worker inherits) or anything built on it stays open, so a killed process
 * leaves none behind. Writes its path to @dev; returns the descriptor or -errno.
 */
int fdw_loop_attach(const char *file, uint64_t offset, uint64_t size, char *dev, size_t len);

/*
 * Does the loop device open at @loop_fd use direct I/O on its image? fdw_loop_attach asks
 * for it; the kernel refuses where the image's filesystem (tmpfs, say) or the alignment
 * does not allow it, and then the host's page cache holds the image's pages.
 */
bool fdw_loop_direct_io(int loop_fd);

/*
 * If @dev still maps exactly @size bytes at @offset of @backing (by its inode or block
 * device number, never its name), mark it to detach when its last user goes; -ESTALE
 * when it is some other loop device now.
 */
int fdw_loop_autoclear_if(const char *dev, const char *backing, uint64_t offset,
			  uint64_t size);

/*
 * The kernel may finish an autoclear detach a moment after the last user is gone: wait
 * (up to 2 s) until @dev is detached, so the next look does not find it as a holder.
 */
void fdw_loop_wait_detached(const char *dev);

/* The backing file and offset of loop device @name ("loop3", from sysfs); 0, or -ENOENT
 * when it is not a loop device over a file. */
int fdw_loop_backing(const char *name, char *file, size_t len, uint64_t *offset);

#endif
