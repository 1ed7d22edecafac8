/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A folder to mount a filesystem on that only one child of fdewiz sees. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "private_mount.h"
#include "target.h"
#include "base/child.h"

int fdw_private_mount_dir(const char *name, char *dir, size_t len)
{
	int rc = fdw_child_private_mounts();

	if (rc)
		return rc;
	if (mkdir(FDW_LOCK_DIR, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount("fdewiz-private", FDW_LOCK_DIR, "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0700,size=64k") != 0)
		return -errno;
	if ((size_t)snprintf(dir, len, "%s/%s", FDW_LOCK_DIR, name) >= len)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}
