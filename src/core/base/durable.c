/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fsync of a file and of the directory that holds its name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable.h"
#include "fileio.h"

static int sync_one(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

int fdw_sync_path(const char *path)
{
	char *copy = strdup(path);
	int rc;

	if (!copy)
		return -ENOMEM;
	rc = sync_one(path, O_RDONLY);
	/* A new or renamed file is only durable once its directory entry is. */
	if (!rc)
		rc = sync_one(dirname(copy), O_RDONLY | O_DIRECTORY);
	free(copy);
	return rc;
}

/* fsync the directory that holds @path (its name, not whatever a link there points to). */
static int sync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int rc;

	if (!copy)
		return -ENOMEM;
	rc = sync_one(dirname(copy), O_RDONLY | O_DIRECTORY);
	free(copy);
	return rc;
}

int fdw_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	char tmp[PATH_MAX];
	int fd, rc = 0;

	/*
	 * mkostemp creates a new name with O_EXCL: a link planted beside @path is never
	 * followed, and rename() replaces a link at @path itself instead of writing through it.
	 */
	if (snprintf(tmp, sizeof(tmp), "%s.fdewiz-XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode & 07777) != 0)
		rc = -errno;
	if (!rc)
		rc = fdw_pwrite_full(fd, data, len, 0);
	if (!rc && fsync(fd) != 0)
		rc = -errno;
	if (close(fd) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	else
		rc = sync_dir_of(path);
	return rc;
}

int fdw_sync_fs_of(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (syncfs(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}
