/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/core/boot only (and its unit test): the record of a system's boot step. */
#ifndef FDW_SYSTEM_BOOT_INTERNAL_H
#define FDW_SYSTEM_BOOT_INTERNAL_H

#include <stdbool.h>

#include "disk/installed_os.h"
#include "state/job.h"

struct fdw_sysboot_record {
	char name[64];			/* crypttab name */
	char boot_spec[128];		/* fstab spec of /boot */
	char fs_uuid[40];		/* the filesystem's UUID, kept inside the volume */
	enum fdw_initramfs_kind initramfs;
	enum fdw_boot_loader loader;
	bool swap;			/* encrypt its swap with a random key */
	/* Its root on a logical volume of the encrypted PV: the volume group and the root's
	 * device (/dev/mapper/VG-LV); "" for a root on the volume. The root's filesystem type
	 * either way. */
	char vg[128];
	char root_dev[192];
	char root_fstype[16];
	char root_subvol[64];		/* the btrfs subvolume the root is in, or "" */
	bool done;
	/* Unlock it with this computer's TPM too: sealed to these PCRs ("7"), "" for no;
	 * the keyslot of that binding once made, else -1. */
	char tpm_pcrs[64];
	int tpm_slot;
	bool tpm_unready;		/* its initramfs turned out to lack clevis's TPM unlock */
	char changed[2048];		/* "changed=PATH backup=PATH" lines */
};

/* Why TPM unlock, asked for, is not set up (@r: its boot step done, no binding made). */
void fdw_system_boot_tpm_unset_why(const struct fdw_sysboot_record *r, const char *address,
				   char *buf, size_t len);
int fdw_system_boot_save(const struct fdw_job *job, const struct fdw_sysboot_record *r);
int fdw_system_boot_load(const struct fdw_job *job, struct fdw_sysboot_record *r);
/* The device of an fstab spec (UUID=, LABEL=, PARTUUID=, /dev/...): 0 or -ENODEV. */
int fdw_system_boot_find_boot(const char *spec, char *dev, size_t len);

/* Its swap partitions: crypttab by PARTUUID with a random key, fstab, RESUME=none, the
 * plain swap overwritten. 0 (also when there is none), or -errno. */
int fdw_system_swap_step(const char *root, struct fdw_sysboot_record *r);

/* Add "PATH (BACKUP)" to the record's list of changed files ("new file" without one). */
void fdw_system_boot_note_changed(struct fdw_sysboot_record *r, const char *path,
				  const char *backup);

/* The same for a file a crypttab/fstab edit under @root changed (nothing when it did not). */
struct fdw_tab_result;
void fdw_system_boot_note_tab(struct fdw_sysboot_record *r, const char *root, const char *file,
			      const struct fdw_tab_result *tab);

/*
 * The system's other crypttab lines that ask for a passphrase at boot get a key file in
 * @root/etc/cryptsetup-keys.d (inside the encrypted root) when @pass opens them; the
 * others keep asking. @root_name is the root's own line. 0, or -errno when crypttab could
 * not be written.
 */
struct fdw_secret;
int fdw_system_keyfile_step(const char *root, const char *root_name,
			    const struct fdw_secret *pass, struct fdw_sysboot_record *r);

#endif
