/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where fdewiz keeps its records: one small file of its own, so that users of the state
 * directory (benchmark results) do not pull in the disk scanner. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "statedir.h"
#include "log.h"

const char *fdw_state_dir(void)
{
	const char *dir = getenv("FDEWIZ_STATE_DIR");

	/* Only an absolute path: the worker runs in "/". */
	return dir && dir[0] == '/' ? dir : FDW_DEFAULT_STATE_DIR;
}

int fdw_private_dir_check(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return -errno;
	if (S_ISLNK(st.st_mode)) {
		fdw_log(FDW_LOG_ERROR, _("%s is a symbolic link; header backups and job records "
					 "are not kept through a link. Make it a real directory owned "
					 "by root (mode 0700), or set FDEWIZ_STATE_DIR to one."), path);
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		fdw_log(FDW_LOG_ERROR, _("%s is not a directory."), path);
		return -ENOTDIR;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		fdw_log(FDW_LOG_ERROR, _("%s is owned by uid %ld with mode %04o: another user "
					 "could change header backups and job records there, so it "
					 "is not used. Make it owned by root and writable by no one "
					 "else (chown root: %s; chmod 700 %s), or set "
					 "FDEWIZ_STATE_DIR to such a directory."), path,
			(long)st.st_uid, (unsigned)(st.st_mode & 07777), path, path);
		return -EPERM;
	}
	return 0;
}

int fdw_private_dir_ensure(const char *path)
{
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return -errno;
	return fdw_private_dir_check(path);
}

int fdw_state_dir_ensure(void)
{
	char path[PATH_MAX];
	int rc = fdw_private_dir_ensure(fdw_state_dir());

	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/jobs", fdw_state_dir());
	return fdw_private_dir_ensure(path);
}
