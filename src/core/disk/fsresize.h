/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Make room for the LUKS2 header by shrinking a filesystem, and grow it back afterwards. */
#ifndef FDW_FSRESIZE_H
#define FDW_FSRESIZE_H

#include <stdint.h>

/*
 * e2fsck -f -p of the unmounted ext2/3/4 filesystem on @device: 0 when it is clean or
 * only safe fixes were made (a resize may follow), -EUCLEAN when it has errors -p does
 * not fix (logged), or -errno.
 */
int fdw_ext_check(const char *device);
/*
 * Check (e2fsck -f -p) and shrink the ext2/3/4 filesystem on @device to at most
 * @max_bytes (fdw_fs_shrink then proves it from the superblock).
 * Returns 0, -EUCLEAN when the check finds errors it will not fix unattended,
 * -ENOSPC when the data does not fit (then, when measured, @min_bytes gets the
 * smallest size it can shrink to; it may be NULL), or -errno.
 */
int fdw_ext_shrink(const char *device, uint64_t max_bytes, uint64_t *min_bytes);
/*
 * The smallest size in bytes the ext2/3/4 filesystem on @device can be shrunk to, as
 * `resize2fs -P` computes it (read-only). @device may end in "?offset=N".
 */
int fdw_ext_min_size(const char *device, uint64_t block_size, uint64_t *bytes);
/* Grow the ext2/3/4 filesystem on @device to fill it (after a check: unmounted only). */
int fdw_ext_grow(const char *device);
/* Grow it without a check: resize2fs grows a mounted ext4 online. */
int fdw_ext_grow_online(const char *device);
/* Size in bytes of the ext2/3/4 filesystem on @device, read from its superblock. */
int fdw_ext_size(const char *device, uint64_t *bytes, uint64_t *block_size);

/*
 * The same for a single-device btrfs, mounted only inside a child of fdewiz (btrfs resizes
 * a mounted filesystem only): checked with `btrfs check --readonly` first (-EUCLEAN),
 * -ENOSPC when btrfs finds no room to move its chunks (nothing changed then; @min_bytes
 * gets 0: btrfs gives no figure).
 */
int fdw_btrfs_shrink(const char *device, uint64_t max_bytes, uint64_t *min_bytes);
/* Grow it to fill its device. */
int fdw_btrfs_grow(const char *device);
/* The size of this device in a single-device btrfs, from its superblock. */
int fdw_btrfs_size(const char *device, uint64_t *bytes);

/* Shrink or grow whichever of those @fstype is (ext2/3/4 or btrfs); a shrink is proven by
 * the filesystem's own superblock, read back: -EIO when it still ends past @max_bytes. */
int fdw_fs_shrink(const char *device, const char *fstype, uint64_t max_bytes,
		  uint64_t *min_bytes);
int fdw_fs_grow(const char *device, const char *fstype);

#endif
