/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unlocking with this computer's TPM 2.0, through the route Debian 12 supports from its
 * initramfs: clevis (clevis-luks, clevis-tpm2, clevis-initramfs). A binding is a keyslot
 * with a random key sealed to the TPM and to PCR values (7 by default: the Secure Boot
 * state), kept in a LUKS2 token; the passphrase and recovery keyslots stay. When the TPM
 * refuses (a PCR changed, the TPM cleared) the usual prompt asks for the passphrase.
 */
#ifndef FDW_TPM_H
#define FDW_TPM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/secret.h"

/* The PCRs a binding is sealed to unless told otherwise: the Secure Boot state. */
#define FDW_TPM_DEFAULT_PCRS "7"

struct fdw_tpm_info {
	bool present;		/* a TPM at all */
	int version;		/* its major version: 2 is needed; 0 unknown */
	char name[16];		/* "tpm0" */
};

/* Is there a TPM 2.0 (under fdw_tpm_sysfs_root())? Never fails. */
void fdw_tpm_detect(struct fdw_tpm_info *info);

/*
 * Can the system at @root ("/" for this one) bind a volume to the TPM (clevis-luks,
 * clevis-tpm2) and, with @at_start, unlock it from its initramfs (clevis-initramfs)? True,
 * or false with the missing Debian packages named in @missing (space-separated).
 */
bool fdw_tpm_route_ready(const char *root, bool at_start, char *missing, size_t len);

/*
 * Can this computer seal a key to its TPM now: a TPM 2.0, clevis-luks and clevis-tpm2 in
 * this system (and clevis-initramfs with @at_start: this system's initramfs opens the
 * volume), @pcrs a list like "7" or "0,7"? 0, or -ENODEV, -ENOPKG, -EINVAL with @why
 * saying what to do (nothing was changed).
 */
int fdw_tpm_usable(const char *pcrs, bool at_start, char *why, size_t len);

/*
 * The plan's words for unlocking an installed system's root with the TPM, sealed to @pcrs:
 * what happens, and what it protects against and what it does not.
 */
void fdw_tpm_plan_text(const char *pcrs, char *buf, size_t len);

/* Is the LUKS2 volume @device named in this system's /etc/crypttab (by UUID or path)? */
bool fdw_tpm_in_system_crypttab(const char *device);

#define FDW_TPM_MAX_BINDINGS 8

struct fdw_tpm_binding {
	int slot;		/* the keyslot clevis added */
	char pcr_bank[16];	/* "sha256" */
	char pcr_ids[64];	/* "7", "0,7" */
};

/* The TPM bindings on the LUKS2 volume @device: how many (up to @max), or -errno. */
int fdw_tpm_bindings(const char *device, struct fdw_tpm_binding *b, int max);

/*
 * Does the TPM unseal binding @slot now, and does that key open @device? 0; -EACCES when
 * the TPM refuses (a PCR changed, another or a cleared TPM); -EKEYREJECTED when what it
 * unsealed does not open the volume; other -errno.
 */
int fdw_tpm_check(const char *device, int slot);

/*
 * Enrol: a new binding sealed to @pcrs (NULL: FDW_TPM_DEFAULT_PCRS, else digits and
 * commas), added with @pass and checked to unseal and open; only then are older
 * bindings removed (enrolling again re-seals to the TPM's values now). *@slot is the new
 * keyslot. -EPERM when @pass does not open @device, -ENODEV without a TPM 2.0, -ENOPKG when
 * this system lacks the route; nothing changed then. Other -errno with @why saying what
 * is left.
 */
int fdw_tpm_enrol(const char *device, const struct fdw_secret *pass, const char *pcrs,
		  int *slot, char *why, size_t len);

/* Remove every TPM binding of @device (*@removed of them); the other keyslots stay. */
int fdw_tpm_remove(const char *device, int *removed, char *why, size_t len);

/*
 * When @device is in this system's /etc/crypttab: its initramfs made again and checked
 * to carry what unlocks with the TPM (*@made true), or what to do in @why. 0 when there
 * is nothing to do (*@made false) or it was done.
 */
int fdw_tpm_system_initramfs(const char *device, bool *made, char *initrd, size_t ilen,
			     char *why, size_t len);

#endif
