/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz decrypt`: a LUKS2 volume turned back into plain data in place, in this process. */
#ifndef FDW_DECRYPT_FLOW_H
#define FDW_DECRYPT_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "foreground.h"
#include "base/secret.h"
#include "disk/target.h"

/* A decryption prepared: the partition found, locked and checked. The engine's. */
struct fdw_decrypt;

/*
 * Open @address (a loop device attached when needed), take its lock and check that it can
 * be decrypted here, before any passphrase is asked. 0 with *@out to run and close, or
 * -errno with @why saying why not and what to do (nothing was changed).
 */
int fdw_decrypt_prepare(const char *address, struct fdw_decrypt **out, char *why, size_t len);
/* A decryption of it is under way already: this run goes on with it (no confirmation). */
bool fdw_decrypt_continuing(const struct fdw_decrypt *d);
/* The partition's address as the scan names it. */
const char *fdw_decrypt_address(const struct fdw_decrypt *d);

/*
 * Decrypt the volume (or go on with its decryption) in this process: the header is copied
 * to the state folder and to @backup (NULL: a file named after the partition in the state
 * folder) before anything changes, the data is moved back to the start of the partition
 * by libcryptsetup's crash-safe reencryption, then the filesystem is grown to fill the
 * partition again and the copy in the state folder is removed. SIGINT, SIGTERM and
 * fdw_decrypt_request_stop() stop it at the next safe point (-EINTR); running it again
 * goes on from there, after a kill or a power cut too. Returns 0 when the volume is plain,
 * else -errno (what @ops was told says what is intact and how to continue).
 */
int fdw_decrypt_run(struct fdw_decrypt *d, const char *backup, struct fdw_secret *pass,
		    const struct fdw_foreground_ops *ops);
/* Stop a running decryption at its next safe point (from another thread: the wizard's). */
void fdw_decrypt_request_stop(void);
/* Release the lock and the partition. */
void fdw_decrypt_close(struct fdw_decrypt *d);

#endif
