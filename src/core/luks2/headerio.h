/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LUKS2 header backup to a file and restore from it, with checks that it is this volume's. */
#ifndef FDW_HEADERIO_H
#define FDW_HEADERIO_H

#include <stddef.h>

/*
 * Write the LUKS2 header of @device to the new file @file: never over an existing file
 * (-EEXIST), through a temporary file beside it that is fsynced and then linked into
 * place, so @file is either absent or complete. Returns 0 or -errno with @why.
 */
int fdw_header_backup(const char *device, const char *file, char *why, size_t why_len);

/*
 * Check that @file is a LUKS2 header backup that belongs to the volume on @device,
 * changing nothing. Same volume means: the device's header (either copy) has the
 * backup's UUID, or, when both copies of the device's binary header are damaged, the
 * JSON metadata left on the device has the backup's volume-key digests. Returns 0;
 * -EINVAL (not a LUKS2 header backup), -EXDEV (another volume's), -ENOENT (nothing on
 * the device says which volume it was), -EBUSY (the backup is from an unfinished
 * conversion: restoring it would corrupt data), each with @why.
 */
int fdw_header_check_restore(const char *device, const char *file, char *why, size_t why_len);

/* fdw_header_check_restore(), then write the backup's header onto @device. */
int fdw_header_restore(const char *device, const char *file, char *why, size_t why_len);

#endif
