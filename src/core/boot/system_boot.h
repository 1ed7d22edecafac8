/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An installed system's root encrypted in place, and the steps that keep it booting:
 * the pre-flight (before a byte changes), the record of what is still to do, and the
 * step itself (crypttab, fstab, the initramfs rebuilt in a chroot).
 */
#ifndef FDW_SYSTEM_BOOT_H
#define FDW_SYSTEM_BOOT_H

#include <stdbool.h>
#include <stddef.h>

#include "crypttab.h"
#include "disk/installed_os.h"
#include "state/job.h"
#include "base/secret.h"
#include "disk/target.h"

/* The steps for @t's installed system, one translated line each ("\n" between), for
 * plans: its /boot moved out first where it is inside, then those after the conversion. */
size_t fdw_system_boot_steps(const struct fdw_target *t, const char *name, char *buf,
			     size_t len);

/* Will its swap get a random key? Only when it does not hibernate (initramfs-tools). */
bool fdw_system_boot_swap_planned(const struct fdw_installed_os *os);

/*
 * Before a byte changes: find the system's separate /boot, and refuse a state folder or
 * header backup on a filesystem a power cut empties (tmpfs, ramfs, an overlay), unless
 * @state_moves_later (the initramfs at a restart: the booted system takes them to its
 * disk). 0, or -errno with @why (ending "Nothing was changed.").
 */
int fdw_system_boot_prepare(const struct fdw_target *t, const char *header_backup,
			    bool state_moves_later, char *why, size_t len);

/* Before a byte changes, for TPM unlock: can this computer seal (fdw_tpm_usable) and @t's
 * system unseal from its initramfs (clevis-initramfs, clevis-tpm2), to @tpm_pcrs? 0, or
 * -errno with @why (ending "Nothing was changed."). */
int fdw_system_boot_tpm_check(const struct fdw_target *t, const char *tpm_pcrs, char *why,
			      size_t len);

/*
 * Resume with TPM unlock: @job's installed system's root also gets a key sealed to the
 * TPM (to @pcrs) when its boot step is done, or now when it is done already. 0, or -errno
 * with @why (not a system's root, already sealed, no TPM or clevis here).
 */
int fdw_system_boot_want_tpm(const struct fdw_job *job, const char *pcrs, char *why, size_t len);

/* The crypttab name for the root of @t ("root_crypt" when nothing better). */
void fdw_system_boot_name(const struct fdw_target *t, char *name, size_t len);

/*
 * Record, before the conversion starts, that @job's volume is an installed system's root
 * whose boot step is still to do (<state>/jobs/<id>.system), with the PCRs a TPM binding
 * is to be sealed to at its end (@tpm_pcrs; NULL: none). 0, or -errno with @why.
 */
int fdw_system_boot_record(const struct fdw_target *t, const struct fdw_job *job,
			   const char *name, const char *tpm_pcrs, char *why, size_t len);

/* Is @job's boot step recorded and not done yet? */
bool fdw_system_boot_pending(const struct fdw_job *job);

/* What the boot step did: the files it changed, each with its backup. */
struct fdw_system_boot_result {
	char changed[2048];		/* "path (backup: path)\n" lines */
	char loader_note[256];		/* what happened to the boot loader configuration */
	/* Asked to unlock with the TPM too (tpm_pcrs not ""): the keyslot of its binding, or
	 * -1 with tpm_why (the boot itself is set up; the passphrase is asked then). */
	char tpm_pcrs[64];
	int tpm_slot;
	char tpm_why[512];
};

/*
 * The boot step for a complete conversion of @job, idempotent: open the volume under its
 * crypttab name (renaming @open_name, the mapping of an online conversion, when set; else
 * with @pass), mount it and the system's /boot, bind /dev /proc /sys /run, write
 * etc/crypttab, check etc/fstab, rebuild the initramfs in a chroot and check that it
 * unlocks the root, then undo every mount and mark the record done. 0, or -errno with
 * @why (the data is intact; 'fdewiz resume' does the step again).
 */
int fdw_system_boot_finish(const struct fdw_job *job, const char *open_name,
			   const struct fdw_secret *pass, struct fdw_system_boot_result *res,
			   char *why, size_t len);

/* Where an installed system keeps the key files of its other volumes (systemd's place). */
#define FDW_KEY_FILE_DIR "/etc/cryptsetup-keys.d"

/*
 * One passphrase at boot for a volume of an installed system whose root is encrypted and
 * mounted at @root: a random key in @root/etc/cryptsetup-keys.d/@name.key (@inside: its
 * path in that system), a keyslot for it added to the device @source names (UUID= or
 * PARTUUID=) with @pass, then @name's crypttab line names the key file (@tab: that
 * change). 1 when done (or already so), 0 when the volume keeps asking at boot (another
 * passphrase, no such device, not LUKS2: logged), -errno when crypttab cannot be written.
 */
int fdw_system_keyfile_give(const char *root, const char *name, const char *source,
			    const struct fdw_secret *pass, char *inside, size_t inside_len,
			    struct fdw_tab_result *tab);

/* The record of @job: -ENOENT when it is no installed system's root; else 0, *@done. */
int fdw_system_boot_status(const struct fdw_job *job, struct fdw_system_boot_result *res,
			   bool *done);

#endif
