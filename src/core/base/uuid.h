/* SPDX-License-Identifier: GPL-3.0-or-later */
/* UUIDs in their canonical text form: job ids, LUKS2 and filesystem UUIDs. */
#ifndef FDW_UUID_H
#define FDW_UUID_H

#include <stdbool.h>
#include <stddef.h>

/* Is @uuid a UUID in its canonical text form (36 characters of hex digits and dashes)? */
bool fdw_uuid_valid(const char *uuid);
/* A fresh random UUID from the kernel, used as the job id and the LUKS2 UUID. */
int fdw_new_uuid(char *buf, size_t len);

#endif
