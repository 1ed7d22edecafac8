/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Erase and encrypt: LUKS2 format of a whole partition and a new filesystem inside it. */
#include "config.h"

#include <errno.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_cipher.h"
#include "convert.h"
#include "cryptglue.h"
#include "erase.h"
#include "i18n.h"
#include "log.h"
#include "spawn.h"

struct fs_kind {
	const char *name;
	size_t label_max;	/* bytes */
};

static const struct fs_kind fs_kinds[] = {
	{ "ext4", 16 }, { "xfs", 12 }, { "btrfs", 255 }, { "vfat", 11 }, { "none", 0 },
};

static const struct fs_kind *fs_find(const char *fs)
{
	for (size_t i = 0; i < sizeof(fs_kinds) / sizeof(fs_kinds[0]); i++)
		if (fs && !strcmp(fs, fs_kinds[i].name))
			return &fs_kinds[i];
	return NULL;
}

bool fdw_erase_fs_known(const char *fs)
{
	return fs_find(fs) != NULL;
}

int fdw_erase_check(const struct fdw_partition *part, char *why, size_t why_len)
{
	if (part->n_mountpoints) {
		snprintf(why, why_len, _("it is mounted at %s; unmount it first"),
			 part->mountpoints[0]);
		return -EBUSY;
	}
	if (part->swap_active) {
		snprintf(why, why_len, _("it is active swap; turn it off first (swapoff)"));
		return -EBUSY;
	}
	if (part->n_holders) {
		snprintf(why, why_len, _("it is in use by %s; close or detach that first"),
			 part->holders[0]);
		return -EBUSY;
	}
	if (part->read_only) {
		snprintf(why, why_len, _("it is read-only"));
		return -EROFS;
	}
	if (part->flag_esp) {
		snprintf(why, why_len, _("it is the EFI system partition, which the firmware "
					 "must read unencrypted"));
		return -EPERM;
	}
	if (part->flag_bios_boot) {
		snprintf(why, why_len, _("it is the BIOS boot partition, which the boot loader "
					 "needs unencrypted"));
		return -EPERM;
	}
	if (part->extended) {
		snprintf(why, why_len, _("it is an extended partition, a container of other "
					 "partitions"));
		return -EPERM;
	}
	if (part->size < FDW_MIN_PARTITION) {
		snprintf(why, why_len, _("it is smaller than 64 MiB"));
		return -ENOSPC;
	}
	/* Its data only looks empty to blkid: the header that reads it lives in a file. */
	if (part->detached_header) {
		snprintf(why, why_len, _("it is an encrypted LUKS2 volume whose header is kept at "
					 "%s; erasing it would destroy that data. Open it with "
					 "that header instead"), part->detached_header);
		return -EPERM;
	}
	return 0;
}

int fdw_erase_check_fs(const char *fs, const char *label, char *why, size_t why_len)
{
	const struct fs_kind *k = fs_find(fs);

	if (!k) {
		snprintf(why, why_len, _("'%s' is not a filesystem erase-encrypt can make (ext4, "
					 "xfs, btrfs, vfat or none)"), fs ? fs : "");
		return -EINVAL;
	}
	if (label && *label && strlen(label) > k->label_max) {
		if (!k->label_max)
			snprintf(why, why_len, _("a label needs a filesystem (--fs)"));
		else
			snprintf(why, why_len, _("a %s label holds at most %zu bytes"), k->name,
				 k->label_max);
		return -EINVAL;
	}
	if (strcmp(fs, "none") && !fdw_have_device_mapper()) {
		snprintf(why, why_len, _("this system has no device-mapper, so the new volume "
					 "cannot be opened to make the %s filesystem in it; use --fs "
					 "none here and make the filesystem after opening the volume "
					 "on a system that can ('cryptsetup open', then mkfs)"), fs);
		return -ENOTSUP;
	}
	return 0;
}

static int make_fs(const char *fs, const char *label, const char *dev)
{
	const char *argv[8];
	int n = 0;

	if (!strcmp(fs, "ext4")) {
		argv[n++] = "mkfs.ext4";
		argv[n++] = "-q";
		argv[n++] = "-F";
	} else if (!strcmp(fs, "xfs")) {
		argv[n++] = "mkfs.xfs";
		argv[n++] = "-q";
		argv[n++] = "-f";
	} else if (!strcmp(fs, "btrfs")) {
		argv[n++] = "mkfs.btrfs";
		argv[n++] = "-q";
		argv[n++] = "-f";
	} else {
		argv[n++] = "mkfs.vfat";
	}
	if (label && *label) {
		argv[n++] = !strcmp(fs, "vfat") ? "-n" : "-L";
		argv[n++] = label;
	}
	argv[n++] = dev;
	argv[n] = NULL;
	return fdw_spawn((char *const *)argv);
}

int fdw_erase_encrypt(const struct fdw_erase_params *p, const struct fdw_secret *pass,
		      char *uuid, size_t uuid_len, char *why, size_t why_len)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size };
	struct fdw_cipher_advice advice = { .key_bits = 512 };
	struct crypt_device *cd = NULL;
	char name[64], node[96];
	bool with_fs = p->fs && strcmp(p->fs, "none");
	int rc;

	rc = fdw_erase_check_fs(p->fs ? p->fs : "none", p->label, why, why_len);
	if (rc)
		return rc;
	rc = fdw_crypt_init(&cd, p->device, NULL);
	if (rc) {
		snprintf(why, why_len, _("cannot open %s: %s; nothing was changed"), p->device,
			 strerror(-rc));
		return rc;
	}
	if (p->fast_pbkdf)
		rc = fdw_crypt_use_fast_pbkdf(cd);
	/* No cipher asked for: the one the advisor recommends for this CPU. */
	if (!p->cipher)
		fdw_cipher_recommend(&advice);
	if (!rc)
		rc = crypt_format(cd, CRYPT_LUKS2, p->cipher ? p->cipher : advice.cipher,
				  p->cipher ? p->cipher_mode : advice.mode, NULL, NULL,
				  (p->key_bits ? p->key_bits : p->cipher ? 512 : advice.key_bits) / 8,
				  &luks2);
	if (rc) {
		snprintf(why, why_len, _("libcryptsetup could not format %s (%s); its header "
					 "area may have been partly written, so treat the old data "
					 "as lost"), p->device, strerror(-rc));
		goto out;
	}
	rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass->data, pass->len);
	if (rc < 0) {
		snprintf(why, why_len, _("%s was formatted but no keyslot could be added (%s); "
					 "run erase-encrypt again"), p->device, strerror(-rc));
		goto out;
	}
	snprintf(uuid, uuid_len, "%s", crypt_get_uuid(cd) ? crypt_get_uuid(cd) : "");
	fdw_log(FDW_LOG_INFO, "formatted %s as LUKS2, UUID %s", p->device, uuid);
	rc = 0;
	if (!with_fs)
		goto out;
	snprintf(name, sizeof(name), "fdewiz-erase-%ld", (long)getpid());
	snprintf(node, sizeof(node), "/dev/mapper/%s", name);
	rc = crypt_activate_by_passphrase(cd, name, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	if (rc < 0) {
		snprintf(why, why_len, _("the LUKS2 volume was made but could not be opened to "
					 "make the filesystem (%s); open it and run mkfs yourself"),
			 strerror(-rc));
		goto out;
	}
	rc = make_fs(p->fs, p->label, node);
	if (rc) {
		snprintf(why, why_len, _("the LUKS2 volume was made, but mkfs.%s failed (%s %d); "
					 "see the log (-v), then open the volume and run mkfs "
					 "yourself"), p->fs, rc < 0 ? "error" : "exit", rc);
		rc = rc < 0 ? rc : -EIO;
	}
	if (crypt_deactivate(cd, name) < 0 && !rc) {
		snprintf(why, why_len, _("the volume and its %s filesystem were made, but %s "
					 "could not be closed; close it with 'cryptsetup close %s'"),
			 p->fs, node, name);
		rc = -EBUSY;
	}
out:
	crypt_free(cd);
	return rc;
}
