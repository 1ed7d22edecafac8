/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An fstab line for a filesystem fdewiz made (the /boot carved from the root). */
#ifndef FDW_FSTAB_MOUNT_H
#define FDW_FSTAB_MOUNT_H

#include <stddef.h>

/*
 * fstab @old (NULL or "" when there is none) with a line "SPEC DIR TYPE OPTS 0 PASS",
 * placed right after the line that mounts "/" (mounts go in order: / before /boot), or at
 * the end; every other byte stays. 1 when a line already mounts @spec at @dir (*@out
 * NULL); 0 with the new text in *@out (malloc'ed); -EEXIST with @why when another
 * filesystem is mounted at @dir; -EINVAL with @why for a field fstab cannot carry
 * (empty, or with a blank or a '#'); -ENOMEM.
 */
int fdw_fstab_add_mount(const char *old, const char *spec, const char *dir, const char *type,
			const char *opts, int pass, char **out, char *why, size_t why_len);

#endif
