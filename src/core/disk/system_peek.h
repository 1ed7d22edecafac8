/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Is there an installed system inside a filesystem fdewiz cannot read without mounting it
 * (btrfs, XFS)? Looked at read-only, where no one else sees it, before anything changes. */
#ifndef FDW_SYSTEM_PEEK_H
#define FDW_SYSTEM_PEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot_files.h"
#include "installed_os.h"
#include "target.h"

/* Does fdewiz have to mount @fstype to look inside (no reader of its own for it)? */
bool fdw_system_peek_needed(const char *fstype);

/* Where a filesystem to look into lies, and what identifies it for its fstab's / line. */
struct fdw_peek_where {
	const char *device;		/* a block device covering just the filesystem, or NULL: */
	const char *file;		/* ... then @size bytes at @offset of this image or disk */
	uint64_t offset, size;
	const char *fstype, *uuid, *label;
	bool boot_files;		/* set by fdw_system_peek() */
};

/*
 * Mount the filesystem read-only and without replaying its log, in a child's own mount
 * namespace (on a loop device of its own when there is no @device), and look for an
 * installed system: etc/fstab at its top or one folder down (a btrfs subvolume such as
 * @rootfs or root), read as that system's own root shows it. 0 with @os filled
 * (os->found; os->root_subvol the folder, "" for the top), or -errno when it could not
 * look (then nobody can say it holds none).
 */
int fdw_system_peek_os(const struct fdw_peek_where *w, struct fdw_installed_os *os);

/*
 * The same, and when no system is there, the boot files it holds (boot_files.h), for any
 * filesystem the kernel mounts (fdw_boot_files_peek_needed()). @bf may be NULL.
 */
int fdw_system_peek(const struct fdw_peek_where *w, struct fdw_installed_os *os,
		    struct fdw_boot_files *bf);
/* Is @fstype one whose boot files are looked at by mounting it (all but ext)? */
bool fdw_boot_files_peek_needed(const char *fstype);

/*
 * The running system's own root, a filesystem fdewiz does not read unmounted that is
 * mounted at "/" (a btrfs): read where it is, as the system sees itself; os->root_subvol
 * is the folder mountinfo says is mounted there (@mount_root, "/@rootfs"), "" for the top.
 * 0 with @os filled (os->found), or -errno.
 */
int fdw_system_read_running(const char *uuid, const char *label, const char *mount_root,
			    struct fdw_installed_os *os);

/*
 * For a conversion: 0 when @t's filesystem needs no look (fdewiz reads it) or holds no
 * system; -EPERM with @why when it holds one (its boot is not one fdewiz sets up), or
 * -errno with @why when nobody could look.
 */
int fdw_system_peek_refusal(const struct fdw_target *t, char *why, size_t len);

#endif
