/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Making a written file survive a power cut: the file and the directory entry naming it. */
#ifndef FDW_DURABLE_H
#define FDW_DURABLE_H

#include <stddef.h>

/* fsync @path and then its directory. Returns 0 or -errno. */
int fdw_sync_path(const char *path);
/* Write back the whole filesystem that holds directory @dir (syncfs); 0 or -errno. */
int fdw_sync_fs_of(const char *dir);

/*
 * Replace @path with @len bytes of @data, created with @mode: written to a temporary file
 * beside it, fsynced, renamed over @path, and the directory fsynced, so a reader (or a
 * power cut) sees the old file or the new one, never half of one. The temporary name is
 * made with mkostemp (O_EXCL, never through a planted link) and a link at @path is
 * replaced, not followed. Every file fdewiz writes as root goes through here.
 * Returns 0 or -errno; on failure @path is untouched.
 */
int fdw_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);

#endif
