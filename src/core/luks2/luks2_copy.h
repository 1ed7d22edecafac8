/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A private copy of a LUKS2 header in memory: to ask libcryptsetup without it writing. */
#ifndef FDW_LUKS2_COPY_H
#define FDW_LUKS2_COPY_H

#include <stddef.h>

/*
 * Copy the whole LUKS2 header area (both metadata copies and the keyslot area) of
 * @header, or of @device when @header is NULL, into an anonymous memory file. Its name
 * for libcryptsetup (a detached header of @device) goes to @path.
 * libcryptsetup's load repairs a header whose two copies disagree, in place, and a
 * SIGKILLed or power-cut run can leave exactly that: a question asked of the copy (is
 * this passphrase right?) leaves the device as it was.
 * Returns the memory file's descriptor (close it when done) or a negative errno: -EINVAL
 * when there is no LUKS2 header to copy, -EAGAIN when neither copy reads whole.
 */
int fdw_luks2_copy_open(const char *device, const char *header, char *path, size_t path_len);

#endif
