/* fsync of a file and of the directory that holds its name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "durable.h"

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
