/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Cold caches before a measurement. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "dropcache.h"
#include "log.h"

/*
 * Why "3" and not "1": a cold start is cold for metadata too. Reading a file the first time
 * after boot also reads its directory entry, inode and extent tree; with "1" (page cache
 * only) those stay cached, and a build of tens of thousands of small files would measure a
 * warm start. The I/O test reads one file, so for it the difference is a few blocks.
 * Only clean pages are dropped, hence the syncfs first.
 */
bool fdw_drop_caches(int fd, bool global)
{
	bool done;
	int p;

	if (fd >= 0) {
		if (syncfs(fd) != 0)
			fdw_log(FDW_LOG_DEBUG, "bench: syncfs: %s", strerror(errno));
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	if (!global)
		return false;
	p = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	done = p >= 0 && write(p, "3", 1) == 1;
	if (!done)
		fdw_log(FDW_LOG_DEBUG, "bench: drop_caches refused: %s", strerror(errno));
	if (p >= 0)
		close(p);
	return done;
}
