/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finishes a conversion interrupted after its last hotzone, which libcryptsetup cannot resume. */
#ifndef FDW_FINAL_WINDOW_H
#define FDW_FINAL_WINDOW_H

#include <libcryptsetup.h>

#include "convert.h"
#include "base/secret.h"

/*
 * @cd holds @v's header, in a clean (not crashed) reencryption. When that header is in
 * the end window, finish the conversion: keep the header as found in the state folder,
 * build and prove the final header, wipe the stale plaintext copy, write it, prove it
 * again. Returns 1 when the header is not in the end window (nothing done), 0 when the
 * conversion is now complete, -EPERM for a wrong passphrase, or -errno.
 */
int fdw_final_window_resume(struct crypt_device *cd, const struct fdw_volume *v,
			    const struct fdw_secret *pass);

/*
 * The passphrase opened nothing: if that is because the final header's write was torn,
 * write again the final header proven and kept in the state folder. Returns 0 when it
 * did, -EPERM when this does not apply, or -errno.
 */
int fdw_final_window_salvage(const struct fdw_volume *v, const struct fdw_secret *pass);

/*
 * Remove what the end-window repair of volume @uuid kept in the state folder (the header
 * as found, the final header, and their unfinished ".new" files). Only once the final
 * header is in place and proven (the conversion complete): each holds a whole header, and
 * on a small state folder they leave no room to refresh the header backup, which then
 * holds that same final header. Returns how many files were removed.
 */
int fdw_final_window_forget(const char *uuid);

#endif
