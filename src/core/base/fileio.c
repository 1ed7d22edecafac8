/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading files and devices whole, through short reads and interruptions. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

ssize_t fdw_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

int fdw_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

/* Read @fd to its end, at most @max bytes (one more tells a longer file), into @buf. */
static int read_to_end(int fd, size_t max, unsigned flags, char **buf, size_t *len)
{
	size_t cap = 0;

	*len = 0;
	for (;;) {
		ssize_t r;

		/* Room for one byte past @max and the NUL: a longer file shows itself. */
		if (cap - *len < 2) {
			size_t want = cap ? cap * 2 : 8192;
			char *nb;

			if (want > max + 2)
				want = max + 2;
			nb = realloc(*buf, want);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			cap = want;
		}
		r = read(fd, *buf + *len, cap - 1 - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		if ((flags & FDW_READ_TEXT) && memchr(*buf + *len, '\0', (size_t)r))
			return -EILSEQ;
		*len += (size_t)r;
		if (*len > max) {
			if (!(flags & FDW_READ_PREFIX))
				return -EFBIG;
			*len = max;
			return 0;
		}
	}
}

int fdw_read_file(const char *path, size_t max, unsigned flags, char **out, size_t *len,
		  mode_t *mode)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | (flags & FDW_READ_NOFOLLOW ? O_NOFOLLOW : 0));
	char *buf = NULL;
	struct stat st;
	size_t n = 0;
	int rc = 0;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EISDIR;
	if (!rc)
		rc = read_to_end(fd, max, flags, &buf, &n);
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	if (mode)
		*mode = st.st_mode & 07777;
	return 0;
}
