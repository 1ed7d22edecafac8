/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A folder to mount a filesystem on that only one child of fdewiz sees. */
#ifndef FDW_PRIVATE_MOUNT_H
#define FDW_PRIVATE_MOUNT_H

#include <stddef.h>

/*
 * In a child: a mount namespace of its own, a small tmpfs over FDW_LOCK_DIR that only it
 * sees, and in it the folder @name, whose path goes to @dir. Whatever the child mounts
 * there goes when it ends, however it ends, and nothing is left in the real /run.
 * 0 or -errno.
 */
int fdw_private_mount_dir(const char *name, char *dir, size_t len);

#endif
