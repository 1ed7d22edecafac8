/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading files and devices whole, through short reads and interruptions. */
#include "config.h"

#include <errno.h>
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
