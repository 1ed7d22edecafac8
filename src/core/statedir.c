/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where fdewiz keeps its records: one small file of its own, so that users of the state
 * directory (benchmark results) do not pull in the disk scanner. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "job.h"

const char *fdw_state_dir(void)
{
	const char *dir = getenv("FDEWIZ_STATE_DIR");

	/* Only an absolute path: the worker runs in "/". */
	return dir && dir[0] == '/' ? dir : FDW_DEFAULT_STATE_DIR;
}

int fdw_state_dir_ensure(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/jobs", fdw_state_dir());
	if (mkdir(fdw_state_dir(), 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}
