/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An installed system's tree mounted for a chroot: its root, its /boot, the live system's
 * /dev, /proc, /sys and /run; undone in reverse. Used in a child with mounts of its own. */
#ifndef FDW_CHROOT_TREE_H
#define FDW_CHROOT_TREE_H

#include <limits.h>

struct fdw_tree {
	char root[PATH_MAX];		/* where the system's root is mounted */
	char mounts[8][PATH_MAX];
	int n;
};

/* Mount @src at @sub ("" for the root itself, "/boot", ...) under t->root. 0 or -errno,
 * logged. */
int fdw_tree_mount(struct fdw_tree *t, const char *src, const char *sub, const char *type,
		   unsigned long flags);
/* The same with the filesystem's own options (@data: "subvol=@rootfs"), or NULL. */
int fdw_tree_mount_data(struct fdw_tree *t, const char *src, const char *sub,
			const char *type, unsigned long flags, const char *data);
/* The live system's /dev, /proc, /sys and /run, bound inside: what the tools of the
 * system (update-initramfs, grub-install) need to find its disks. */
int fdw_tree_bind_system(struct fdw_tree *t);
/* Everything mounted, in reverse; what cannot be unmounted is detached. */
void fdw_tree_unmount_all(struct fdw_tree *t);

#endif
