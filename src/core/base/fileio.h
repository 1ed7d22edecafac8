/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading files and devices whole, and writing at an offset, through short reads and writes
 * and interruptions. */
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

/* Write all @len bytes of @buf at @off of @fd, going on after short writes and EINTR: 0,
 * -errno, or -EIO when a write takes nothing. */
int fdw_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* How fdw_read_file() reads. */
enum {
	FDW_READ_NOFOLLOW = 1,	/* a symbolic link is refused (-ELOOP), not followed */
	FDW_READ_TEXT = 2,	/* a NUL byte is refused (-EILSEQ): not a text file */
	FDW_READ_PREFIX = 4,	/* the first @max bytes of a longer file, not -EFBIG */
};

/*
 * All of @path, a regular file (also one in /proc, whose size only reading tells), into a
 * new NUL-terminated buffer *@out (free() it) of *@len bytes (@len may be NULL); its
 * permission bits in *@mode when @mode is not NULL. Returns 0, -errno, -EISDIR when it is
 * not a regular file, or -EFBIG when it holds more than @max bytes; *@out is NULL on error.
 */
int fdw_read_file(const char *path, size_t max, unsigned flags, char **out, size_t *len,
		  mode_t *mode);

#endif
