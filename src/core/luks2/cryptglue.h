/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The small pieces every caller of libcryptsetup needs: logging, opening, test PBKDF. */
#ifndef FDW_CRYPTGLUE_H
#define FDW_CRYPTGLUE_H

#include <libcryptsetup.h>

/* libcryptsetup counts data offsets in 512-byte sectors whatever the sector size. */
#define FDW_CRYPT_SECTOR 512ULL

/*
 * A context for @device, with its LUKS2 header in @header (a detached header file) or,
 * when @header is NULL, on @device itself; its messages go to fdewiz's log.
 * Returns 0 or a negative errno from libcryptsetup.
 */
int fdw_crypt_init(struct crypt_device **cd, const char *device, const char *header);
/*
 * A new, private file for a LUKS2 header at @path (it must not exist), one sector long:
 * libcryptsetup wants that much to take a file for a device. 0, or -errno (nothing left
 * behind).
 */
int fdw_crypt_header_file_new(const char *path);
/* As fdw_crypt_init(), then load the LUKS2 header; *cd is NULL on failure. */
int fdw_crypt_load(struct crypt_device **cd, const char *device, const char *header);
/*
 * Tests only (--fast-pbkdf, FDEWIZ_TEST_FAST_PBKDF): a cheap PBKDF2 for the keyslots
 * added next, so a test does not spend seconds per keyslot. Never for real data.
 */
int fdw_crypt_use_fast_pbkdf(struct crypt_device *cd);

#endif
