/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The recovery key handed to whoever keeps the keys of many machines (an IT department's
 * store) before a byte of the disk changes: to a command, or into a folder (a mounted
 * share). Either must succeed, or the conversion does not begin.
 */
#ifndef FDW_ESCROW_H
#define FDW_ESCROW_H

#include <stddef.h>

#include "base/secret.h"

struct fdw_escrow {
	const char *command;	/* run by /bin/sh -c, the document on its standard input; or NULL */
	const char *dir;	/* the document written as DIR/LUKS-UUID.json (0600); or NULL */
};

/* What the document says of the volume besides the key. */
struct fdw_escrow_volume {
	const char *device;		/* "/dev/sda2", or an image's address */
	const char *filesystem_uuid;	/* "" when it has none */
	const char *luks_uuid;		/* the UUID its LUKS2 header is made with */
};

/* Is anything to be escrowed? */
static inline int fdw_escrow_wanted(const struct fdw_escrow *es)
{
	return es && ((es->command && es->command[0]) || (es->dir && es->dir[0]));
}

/*
 * The escrow document (one JSON object: fdewiz_escrow 1, host, machine_id, device,
 * filesystem_uuid, luks_uuid, recovery_key, time), made in locked memory (@out; the
 * caller frees it). 0 or -errno.
 */
int fdw_escrow_document(const struct fdw_escrow_volume *v, const struct fdw_secret *key,
			struct fdw_secret **out);

/*
 * Hand @key over as @es says: the command first (it must exit 0), then the folder (the
 * file written atomically and durably, mode 0600, never over another volume's). 0, or
 * -errno with @why saying what failed (what the command printed, cut short) and that
 * nothing was changed. The key is in no argument, environment or log.
 */
int fdw_escrow_key(const struct fdw_escrow *es, const struct fdw_escrow_volume *v,
		   const struct fdw_secret *key, char *why, size_t len);

#endif
