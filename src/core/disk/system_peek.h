/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Is there an installed system inside a filesystem fdewiz cannot read without mounting it
 * (btrfs, XFS)? Looked at read-only, where no one else sees it, before anything changes. */
#ifndef FDW_SYSTEM_PEEK_H
#define FDW_SYSTEM_PEEK_H

#include <stdbool.h>
#include <stddef.h>

#include "target.h"

/* Does fdewiz have to mount @fstype to look inside (no reader of its own for it)? */
bool fdw_system_peek_needed(const char *fstype);

/*
 * Mount the filesystem of @t read-only and without replaying its log, in a child's own
 * mount namespace, and look for an installed system: etc/fstab at its top or one folder
 * down (a btrfs subvolume such as @ or root). 0 with *@found (and, when found, @name: its
 * PRETTY_NAME or "", and @where: "/" or the folder it is in), or -errno when it could not
 * look (then nobody can say it holds none).
 */
int fdw_system_peek(const struct fdw_target *t, bool *found, char *name, size_t name_len,
		    char *where, size_t where_len);

/*
 * For a conversion: 0 when @t's filesystem needs no look (fdewiz reads it) or holds no
 * system; -EPERM with @why when it holds one (its boot is not one fdewiz sets up), or
 * -errno with @why when nobody could look.
 */
int fdw_system_peek_refusal(const struct fdw_target *t, char *why, size_t len);

#endif
