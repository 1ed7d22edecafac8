/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Recovery keys: a random key in a second keyslot, easy to copy by hand and to type back. */
#ifndef FDW_RECOVERY_H
#define FDW_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/secret.h"

/*
 * A recovery key is 48 characters from an alphabet without look-alikes (digits 2-9 and
 * the letters A-Z without I and O: 5 bits each, 240 random bits), shown as 8 groups of 6
 * joined by '-': "K7QX2M-...". That display form is also the canonical form: exactly
 * those 55 bytes are the passphrase in the keyslot, so `cryptsetup open` accepts the key
 * as printed. fdw_recovery_key_canonicalize() turns what a person types (any case,
 * with or without separators or spaces) back into it.
 */
#define FDW_RECOVERY_GROUPS 8
#define FDW_RECOVERY_GROUP_LEN 6
#define FDW_RECOVERY_CHARS (FDW_RECOVERY_GROUPS * FDW_RECOVERY_GROUP_LEN)
#define FDW_RECOVERY_KEY_LEN (FDW_RECOVERY_CHARS + FDW_RECOVERY_GROUPS - 1)

/* Make a new recovery key in locked memory (the caller frees it). Returns 0 or -errno. */
int fdw_recovery_key_generate(struct fdw_secret **out);

/*
 * Turn typed text into the canonical key (a new locked secret in @out): letters are
 * upper-cased; '-', spaces, tabs and a trailing newline are ignored. Returns 0;
 * -EINVAL with @why when a character is not in the alphabet (saying which, and that
 * 0/O and 1/I never occur), or -EMSGSIZE when the count of characters is not 48.
 */
int fdw_recovery_key_canonicalize(const char *typed, size_t len, struct fdw_secret **out,
				  char *why, size_t why_len);

/*
 * Add @key (canonical) to a free keyslot of the LUKS2 volume on @device (header in
 * @header when detached, else NULL), after checking that @pass opens an existing
 * keyslot. @fast_pbkdf (tests only) uses a cheap PBKDF2 for the new keyslot. Returns
 * the new keyslot number, or -errno with @why: -EPERM when @pass is wrong, -ENOSPC
 * when no keyslot is free, -EBUSY when libcryptsetup refuses during an unfinished
 * conversion. On any error the header is unchanged.
 */
int fdw_recovery_key_add(const char *device, const char *header, const struct fdw_secret *pass,
			 const struct fdw_secret *key, bool fast_pbkdf, char *why, size_t why_len);

/*
 * Does @key (canonical) open a keyslot of the volume? 0 and the keyslot in @slot, -EPERM
 * when it does not, or -errno with @why. Changes nothing.
 */
int fdw_recovery_key_test(const char *device, const char *header, const struct fdw_secret *key,
			  int *slot, char *why, size_t why_len);

#endif
