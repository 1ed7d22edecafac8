/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz decrypt`: a LUKS2 volume turned back into plain data in place, in this process. */
#ifndef FDW_DECRYPT_FLOW_H
#define FDW_DECRYPT_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "foreground.h"
#include "base/secret.h"
#include "disk/target.h"

/*
 * Can the volume on @t be decrypted here, before any passphrase is asked? 0 with
 * *@continuing set when a decryption of it is under way (the next run goes on with it),
 * or -errno with @why saying why not and what to do (nothing was changed).
 */
int fdw_decrypt_check(const struct fdw_target *t, bool *continuing, char *why, size_t len);

/*
 * Decrypt the volume on @t (the caller holds its lock; a loop device is attached when
 * needed) or go on with its decryption: the header is copied to the state folder and to
 * @backup (NULL: a file named after @address in the state folder) before anything
 * changes, the data is moved back to the start of the partition by libcryptsetup's
 * crash-safe reencryption, then the filesystem is grown to fill the partition again and
 * the copy in the state folder is removed. SIGINT and SIGTERM stop it at the next safe
 * point (-EINTR); running it again goes on from there, after a kill or a power cut too.
 * Returns 0 when the volume is plain, else -errno (what was said tells the person what is
 * intact and how to continue).
 */
int fdw_decrypt_foreground(struct fdw_target *t, const char *backup, struct fdw_secret *pass,
			   const struct fdw_foreground_ops *ops);

#endif
