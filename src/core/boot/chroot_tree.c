/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed system's tree mounted for a chroot, undone in reverse. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mount.h>

#include "base/log.h"
#include "chroot_tree.h"

int fdw_tree_mount(struct fdw_tree *t, const char *src, const char *sub, const char *type,
		   unsigned long flags)
{
	return fdw_tree_mount_data(t, src, sub, type, flags, NULL);
}

int fdw_tree_mount_data(struct fdw_tree *t, const char *src, const char *sub,
			const char *type, unsigned long flags, const char *data)
{
	char *dst;
	size_t n = strlen(t->root);

	if (t->n >= (int)(sizeof(t->mounts) / sizeof(t->mounts[0])))
		return -ENOSPC;
	dst = t->mounts[t->n];
	if (n + strlen(sub) >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(dst, t->root, n);
	strcpy(dst + n, sub);
	if (mount(src, dst, type, flags, data) != 0) {
		int err = -errno;

		fdw_log(FDW_LOG_ERROR, "system boot: cannot mount %s on %s: %s", src, dst,
			strerror(errno));
		return err;
	}
	t->n++;
	return 0;
}

int fdw_tree_bind_system(struct fdw_tree *t)
{
	static const char *const dirs[] = { "/dev", "/proc", "/sys", "/run" };
	int rc = 0;

	for (size_t i = 0; !rc && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		rc = fdw_tree_mount(t, dirs[i], dirs[i], NULL, MS_BIND | MS_REC);
	return rc;
}

void fdw_tree_unmount_all(struct fdw_tree *t)
{
	while (t->n > 0) {
		const char *m = t->mounts[--t->n];

		if (umount2(m, 0) != 0 && umount2(m, MNT_DETACH) != 0)
			fdw_log(FDW_LOG_WARN, "system boot: cannot unmount %s: %s", m,
				strerror(errno));
	}
}
