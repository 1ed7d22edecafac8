/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase and encrypt: a new, empty LUKS2 volume over a whole partition, with a new filesystem. */
#ifndef FDW_ERASE_H
#define FDW_ERASE_H

#include <stdbool.h>
#include <stddef.h>

#include "disk.h"
#include "secret.h"

struct fdw_erase_params {
	const char *device;		/* block device covering exactly the partition */
	const char *cipher;		/* NULL: as fdw_cipher_recommend() advises */
	const char *cipher_mode;	/* with @cipher: "xts-plain64" */
	unsigned key_bits;		/* 0: 512, or the advice's */
	unsigned sector_size;		/* 0: libcryptsetup's choice for the device */
	const char *fs;			/* "ext4", "xfs", "btrfs", "vfat" or "none" */
	const char *label;		/* filesystem label, or NULL */
	bool fast_pbkdf;		/* tests only */
};

/* Is @fs a filesystem erase can make ("none" included)? */
bool fdw_erase_fs_known(const char *fs);

/*
 * May this partition be erased? Refuses (-EBUSY with @why) what is mounted, active
 * swap, held by another device or loop device, read-only, or the EFI system / BIOS boot
 * partition or an extended container. Pure: uses the scan's facts only.
 */
int fdw_erase_check(const struct fdw_partition *part, char *why, size_t why_len);

/*
 * Can the filesystem be made here? A filesystem other than "none" is made inside the
 * opened volume, which needs device-mapper: -ENOTSUP with @why where there is none.
 * -EINVAL with @why when @fs is unknown or @label too long for it.
 */
int fdw_erase_check_fs(const char *fs, const char *label, char *why, size_t why_len);

/*
 * Format @p->device as LUKS2 with @pass in keyslot 0 (destroying what was there), then,
 * unless the filesystem is "none", open it under a private name, make the filesystem in
 * it and close it again. The UUID of the new volume goes to @uuid. Returns 0, or -errno
 * with @why saying how far it got.
 */
int fdw_erase_encrypt(const struct fdw_erase_params *p, const struct fdw_secret *pass,
		      char *uuid, size_t uuid_len, char *why, size_t why_len);

#endif
