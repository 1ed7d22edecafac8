/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A passphrase handed from the initramfs to the booted system through the kernel's keyring
 * (root's user keyring, which outlives the switch to the real root): never in a file, the
 * environment or argv, and never swapped out.
 */
#ifndef FDW_KEYRING_H
#define FDW_KEYRING_H

#include <stdbool.h>

#include "secret.h"

/* Put @s in root's user keyring as a "user" key named @desc (replacing one so named),
 * readable by root's processes only. Returns 0 or -errno. */
int fdw_keyring_put(const char *desc, const struct fdw_secret *s);
/* The key named @desc into a new locked secret in @out: 0, -ENOKEY when there is none,
 * or -errno. */
int fdw_keyring_get(const char *desc, struct fdw_secret **out);
/* Is a key named @desc in root's user keyring (a search: nothing read)? */
bool fdw_keyring_has(const char *desc);
/* Revoke and unlink the key named @desc; none is fine. */
void fdw_keyring_drop(const char *desc);

#endif
