/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Turning a LUKS2 volume back into plain data in place, the data moved back to the start. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <libcryptsetup.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decrypt.h"
#include "convert.h"
#include "cryptglue.h"
#include "luks2_json.h"
#include "luks2_peek.h"
#include "base/durable.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/testhook.h"

/* Every data segment linear: what libcryptsetup leaves in the header of a finished
 * decryption (no keyslot opens anything any more). */
static bool segments_plain(json_object *root)
{
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	size_t n;

	if (fdw_luks2_segments(root, segs, FDW_LUKS2_MAX_SEGMENTS, &n) || n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(segs[i].type, "linear"))
			return false;
	return true;
}

enum fdw_decrypt_state fdw_decrypt_state(const char *device, const char *source,
					 const char *work_header)
{
	struct fdw_luks2_peek h;
	enum fdw_decrypt_state st;

	if (access(work_header, F_OK) != 0) {
		if (fdw_luks2_peek(source ? source : device, 0, 0, &h) != 0)
			return FDW_DECRYPT_DONE;
		fdw_luks2_peek_release(&h);
		return FDW_DECRYPT_NOT_BEGUN;
	}
	/* Written whole before its rename: one that does not read is damaged, and the
	 * begin that tries it says so. */
	if (fdw_luks2_peek(work_header, 0, 0, &h) != 0)
		return FDW_DECRYPT_COPIED;
	if (h.reencrypt)
		st = FDW_DECRYPT_RUNNING;
	else
		st = segments_plain(h.json) ? FDW_DECRYPT_DONE : FDW_DECRYPT_COPIED;
	fdw_luks2_peek_release(&h);
	return st;
}

/* Copy @cd's header to @path through a new file beside it, durable before it is named. */
static int copy_header(struct crypt_device *cd, const char *path)
{
	char tmp[PATH_MAX];
	int rc;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	rc = crypt_header_backup(cd, CRYPT_LUKS2, tmp);
	if (!rc)
		rc = fdw_sync_path(tmp);
	if (!rc && rename(tmp, path) != 0)
		rc = -errno;
	if (!rc)
		rc = fdw_sync_path(path);
	if (rc)
		unlink(tmp);
	return rc;
}

/* Wipe every LUKS signature (both binary headers' magic) on @device, durably. */
static int wipe_luks_signatures(const char *device)
{
	char *only[] = { "crypto_LUKS", NULL };
	blkid_probe pr;
	int fd, rc = 0;

	fd = open(device, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE);
	blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN, only);
	while (blkid_do_probe(pr) == 0) {
		if (blkid_do_wipe(pr, 0) != 0) {
			rc = errno ? -errno : -EIO;
			break;
		}
	}
	if (!rc && fsync(fd) != 0)
		rc = -errno;
out:
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return rc;
}

/*
 * What this can decrypt: LUKS2 not in a reencryption, its header on the device with the
 * data after it, or (@detached) in a file with the data from the device's start.
 */
static int check_volume(struct crypt_device *cd, bool detached, char *why, size_t len)
{
	struct crypt_params_integrity ip = { 0 };

	if (strcmp(crypt_get_type(cd) ? crypt_get_type(cd) : "", CRYPT_LUKS2)) {
		snprintf(why, len, "%s", _("it is not LUKS2"));
		return -ENOTSUP;
	}
	if (crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE) {
		snprintf(why, len, "%s", _("a conversion of it is unfinished; finish it first"));
		return -ENOTSUP;
	}
	if (crypt_get_integrity_info(cd, &ip) != 0 || ip.tag_size) {
		snprintf(why, len, "%s", _("it has an integrity profile"));
		return -ENOTSUP;
	}
	if (!detached && crypt_get_data_offset(cd) == 0) {
		snprintf(why, len, "%s", _("its header is not on it (a detached header)"));
		return -ENOTSUP;
	}
	if (detached && crypt_get_data_offset(cd) != 0) {
		snprintf(why, len, "%s", _("its detached header places the data after the start "
					  "of the partition, a layout fdewiz does not make"));
		return -ENOTSUP;
	}
	return 0;
}

/* The header (on @device, or @source), whole: check it and the passphrase, copy it twice. */
static int copy_from(const char *device, const char *source, const char *work_header,
		     const char *backup, const struct fdw_secret *pass, char *why, size_t len)
{
	struct crypt_device *cd = NULL;
	int rc = fdw_crypt_load(&cd, device, source);

	if (rc) {
		snprintf(why, len, _("its LUKS2 header could not be read (%s)"), strerror(-rc));
		return rc;
	}
	rc = check_volume(cd, source != NULL, why, len);
	if (!rc && crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass->data,
						pass->len, 0) < 0) {
		snprintf(why, len, "%s", _("the passphrase opens none of its keyslots"));
		rc = -EPERM;
	}
	if (!rc && backup && (rc = copy_header(cd, backup)) != 0)
		snprintf(why, len, _("the header backup %s could not be written (%s)"), backup,
			 strerror(-rc));
	if (!rc && (rc = copy_header(cd, work_header)) != 0)
		snprintf(why, len, _("the header could not be copied to %s (%s)"), work_header,
			 strerror(-rc));
	crypt_free(cd);
	if (!rc)
		fdw_test_point("decrypt-copied");
	return rc;
}

/*
 * The decryption's parameters: the data moved back by the header's room (each hotzone
 * checked by its checksums), or, with a detached header, decrypted where it is.
 */
static void decrypt_params(struct crypt_device *cd, bool detached,
			   struct crypt_params_reencrypt *params)
{
	*params = (struct crypt_params_reencrypt){
		.mode = CRYPT_REENCRYPT_DECRYPT,
		.direction = CRYPT_REENCRYPT_FORWARD,
		.resilience = "datashift-checksum",
		.hash = "sha256",
		.data_shift = crypt_get_data_offset(cd),
		.flags = CRYPT_REENCRYPT_INITIALIZE_ONLY | CRYPT_REENCRYPT_MOVE_FIRST_SEGMENT,
	};
	/* In steps of FDW_DECRYPT_HOTZONE_BYTES (fdw_convert_run keeps to them). */
	if (detached) {
		params->resilience = "checksum";
		params->data_shift = 0;
		params->max_hotzone_size = FDW_DECRYPT_HOTZONE_BYTES / FDW_CRYPT_SECTOR;
		params->flags = CRYPT_REENCRYPT_INITIALIZE_ONLY;
	}
}

/* Put back what was before the recording failed: the header on @device, or no copy. */
static void undo_copy(struct crypt_device *cd, const char *device, bool detached,
		      const char *work_header)
{
	struct crypt_device *dev = NULL;

	if (crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE)
		return;
	if (detached) {
		unlink(work_header);
		return;
	}
	if (fdw_crypt_init(&dev, device, NULL) == 0 &&
	    crypt_header_restore(dev, CRYPT_LUKS2, work_header) == 0)
		unlink(work_header);
	else
		fdw_log(FDW_LOG_ERROR, "%s: the header could not be put back; it is in %s", device,
			work_header);
	crypt_free(dev);
}

/* Record the decryption in the working header; if that fails, put the header back. */
static int record_decryption(const char *device, bool detached, const char *work_header,
			     const struct fdw_secret *pass, char *why, size_t len)
{
	struct crypt_params_reencrypt params;
	struct crypt_device *cd = NULL;
	int rc = fdw_crypt_load(&cd, device, work_header);

	if (rc)
		snprintf(why, len, _("its header copy %s could not be read (%s)"), work_header,
			 strerror(-rc));
	else
		rc = check_volume(cd, detached, why, len);
	if (!rc && crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass->data,
						pass->len, 0) < 0) {
		snprintf(why, len, "%s", _("the passphrase opens none of its keyslots"));
		rc = -EPERM;
	}
	if (rc)
		goto out;
	decrypt_params(cd, detached, &params);
	/* A detached header's partition has no signature to wipe. */
	rc = detached ? 0 : wipe_luks_signatures(device);
	if (rc) {
		snprintf(why, len, _("the LUKS signature on it could not be wiped (%s)"),
			 strerror(-rc));
		goto restore;
	}
	fdw_test_point("decrypt-wiped");
	rc = crypt_reencrypt_init_by_passphrase(cd, NULL, pass->data, pass->len, CRYPT_ANY_SLOT,
						CRYPT_ANY_SLOT, NULL, NULL, &params);
	if (rc >= 0) {
		rc = 0;
		goto out;
	}
	snprintf(why, len, _("libcryptsetup could not record the decryption (%s)"),
		 strerror(-rc));
restore:
	undo_copy(cd, device, detached, work_header);
out:
	crypt_free(cd);
	return rc;
}

int fdw_decrypt_begin(const char *device, const char *source, const char *work_header,
		      const char *backup, const struct fdw_secret *pass, char *why, size_t len)
{
	enum fdw_decrypt_state st = fdw_decrypt_state(device, source, work_header);
	struct fdw_luks2_peek h;
	int rc;

	why[0] = '\0';
	if (st == FDW_DECRYPT_RUNNING || st == FDW_DECRYPT_DONE)
		return 0;
	/* The volume's own header, whole, is the one to copy (again: a copy left by a run
	 * killed before the wipe may be older than it). */
	if (fdw_luks2_peek(source ? source : device, 0, 0, &h) == 0) {
		fdw_luks2_peek_release(&h);
		rc = copy_from(device, source, work_header, backup, pass, why, len);
		if (rc)
			return rc;
	} else if (st != FDW_DECRYPT_COPIED) {
		snprintf(why, len, "%s", _("there is no LUKS2 header on it"));
		return -ENOTSUP;
	}
	return record_decryption(device, source != NULL, work_header, pass, why, len);
}
