/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What lives inside a byte range of a disk: filesystem type, label, UUID, usage, LUKS state. */
#ifndef FDW_FSPROBE_H
#define FDW_FSPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "disk.h"
#include "base/fileio.h"

/*
 * Probe @size bytes at @offset of the open disk @fd and fill the filesystem and
 * LUKS fields of @part. Returns 0 (also when nothing is recognised) or -errno.
 */
int fdw_fsprobe(int fd, uint64_t offset, uint64_t size, struct fdw_partition *part);

/* Is @fstype (blkid's TYPE; may be NULL) ext2, ext3 or ext4? */
bool fdw_fstype_is_ext(const char *fstype);

/* Superblock parsers; each returns 0 and fills what it knows, or -EINVAL. */
struct fdw_fs_usage {
	int64_t size, used, free, block_size, sector_size;
	/* Filled by the btrfs parser only (others leave them): the devices it spans, and the
	 * bytes of this device its chunks take (what a shrink must keep, at the least). */
	int64_t devices, allocated;
};
int fdw_ext_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u);
/*
 * Has the ext2/3/4 filesystem whose superblock is @sb been checked in full since it was
 * last mounted, and found clean: checked no earlier than mounted, valid, no error
 * recorded, no journal to replay? What resize2fs asks before it shrinks one.
 */
bool fdw_ext_checked_clean(const unsigned char *sb, size_t len);
int fdw_xfs_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u);
int fdw_btrfs_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u);
int fdw_vfat_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u);

/*
 * Parse a LUKS header (binary header plus JSON area for LUKS2): its version and
 * whether a reencryption is recorded as unfinished.
 */
int fdw_luks_header_parse(const unsigned char *buf, size_t len, int *version,
			  bool *reencrypt_unfinished);


#endif
