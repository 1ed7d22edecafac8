/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Turning a LUKS2 volume back into plain data in place, the data moved back to the start. */
#ifndef FDW_DECRYPT_H
#define FDW_DECRYPT_H

#include <stdbool.h>

#include "base/secret.h"

/* Where a decryption is, as its working header (or the device) says. */
enum fdw_decrypt_state {
	FDW_DECRYPT_NOT_BEGUN,	/* the header is on the device, whole: nothing changed yet */
	FDW_DECRYPT_COPIED,	/* the working header holds a plain copy; the device's may be
				 * wiped already: begin again from the copy */
	FDW_DECRYPT_RUNNING,	/* the working header records the decryption: go on with it */
	FDW_DECRYPT_DONE,	/* neither holds a LUKS2 volume of it any more */
};

/*
 * Where the decryption of the volume on @device, whose header is kept in @work_header
 * while it is decrypted, has got to. @source is its header before that: a detached header
 * file, or NULL for the header at the start of @device. Read only: nothing is repaired.
 */
enum fdw_decrypt_state fdw_decrypt_state(const char *device, const char *source,
					 const char *work_header);

/*
 * Begin the decryption of the LUKS2 volume on @device. Its header, at the start of
 * @device with the data after it (an in-place encryption with a data shift), or in the
 * detached header file @source with the data from the start of @device, is copied to
 * @work_header (a new file, written durably before anything else changes) and to @backup.
 * With the header on @device, the LUKS signatures there are wiped, so nothing takes the
 * device for the volume any more. The decryption is then recorded in @work_header, which
 * from then on is the volume's header until the data is plain (and back at the start):
 * fdw_convert_run runs it, crash-safe and resumable. No data moves here; @source is never
 * written. In state FDW_DECRYPT_COPIED it begins again from the copy (from @source when
 * there is one).
 * Returns 0, -EPERM when @pass opens no keyslot (nothing changed), -ENOTSUP for a volume
 * this cannot decrypt (@why says why; nothing changed), or -errno; when the recording
 * fails, the header is put back on @device (with @source, the copy is removed).
 */
int fdw_decrypt_begin(const char *device, const char *source, const char *work_header,
		      const char *backup, const struct fdw_secret *pass, char *why, size_t len);

#endif
