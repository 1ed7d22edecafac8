/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LUKS2 header backup and restore, refusing a backup that belongs to another volume. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libcryptsetup.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/durable.h"
#include "base/bytes.h"
#include "cryptglue.h"
#include "base/fileio.h"
#include "headerio.h"
#include "base/i18n.h"
#include "base/log.h"

/* The LUKS2 binary header, as far as it matters here (big-endian on disk). */
#define BIN_HDR_SIZE 4096
#define OFF_VERSION 6
#define OFF_HDR_SIZE 8
#define OFF_UUID 168
#define UUID_LEN 40
/* LUKS2 allows header (binary + JSON) sizes from 16 KiB to 4 MiB, in powers of two. */
#define HDR_SIZE_MIN (16 * 1024)
#define HDR_SIZE_MAX (4 * 1024 * 1024)

static const unsigned char magic_primary[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
static const unsigned char magic_secondary[6] = { 'S', 'K', 'U', 'L', 0xba, 0xbe };

/* All @len bytes at @off of @fd: 0, -ENODATA when the file ends first, or -errno. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t r = fdw_pread_full(fd, buf, len, off);

	if (r < 0)
		return (int)r;
	return (size_t)r == len ? 0 : -ENODATA;
}

/* The UUID of a binary header at @off of @fd when its magic is @magic; 0 or -ENOENT. */
static int uuid_at(int fd, uint64_t off, const unsigned char *magic, char uuid[UUID_LEN + 1])
{
	unsigned char bin[BIN_HDR_SIZE];

	if (read_at(fd, bin, sizeof(bin), off) != 0 || memcmp(bin, magic, 6) != 0)
		return -ENOENT;
	memcpy(uuid, bin + OFF_UUID, UUID_LEN);
	uuid[UUID_LEN] = '\0';
	return 0;
}

/* The "digests" object of the JSON area at @off (@len bytes), or NULL. */
static struct json_object *digests_at(int fd, uint64_t off, size_t len)
{
	struct json_object *root, *digests = NULL;
	char *text = malloc(len + 1);

	if (!text)
		return NULL;
	if (read_at(fd, text, len, off) != 0) {
		free(text);
		return NULL;
	}
	text[len] = '\0';	/* the area is padded with NULs after the text */
	root = json_tokener_parse(text);
	free(text);
	if (root && json_object_object_get_ex(root, "digests", &digests))
		json_object_get(digests);
	else
		digests = NULL;
	json_object_put(root);
	return digests;
}

struct backup_info {
	char uuid[UUID_LEN + 1];
	uint64_t hdr_size;
	struct json_object *digests;
};

/* Read and validate a header backup file. */
static int read_backup(const char *file, struct backup_info *b, char *why, size_t why_len)
{
	struct crypt_device *cd = NULL;
	unsigned char bin[BIN_HDR_SIZE];
	int fd, rc;

	memset(b, 0, sizeof(*b));
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, _("cannot read %s: %s"), file, strerror(errno));
		return rc;
	}
	rc = read_at(fd, bin, sizeof(bin), 0);
	if (!rc && (memcmp(bin, magic_primary, 6) != 0 || bin[OFF_VERSION] != 0 ||
		    bin[OFF_VERSION + 1] != 2))
		rc = -EINVAL;
	if (!rc) {
		b->hdr_size = fdw_be64(bin + OFF_HDR_SIZE);
		if (b->hdr_size < HDR_SIZE_MIN || b->hdr_size > HDR_SIZE_MAX ||
		    (b->hdr_size & (b->hdr_size - 1)))
			rc = -EINVAL;
	}
	if (!rc) {
		memcpy(b->uuid, bin + OFF_UUID, UUID_LEN);
		b->uuid[UUID_LEN] = '\0';
		b->digests = digests_at(fd, BIN_HDR_SIZE, b->hdr_size - BIN_HDR_SIZE);
	}
	close(fd);
	/* Let libcryptsetup judge the whole of it too (checksums, JSON, keyslots area). */
	if (!rc)
		rc = fdw_crypt_init(&cd, file, NULL);
	if (!rc)
		rc = crypt_load(cd, CRYPT_LUKS2, NULL);
	if (rc) {
		snprintf(why, why_len, _("%s is not a LUKS2 header backup"), file);
		crypt_free(cd);
		json_object_put(b->digests);
		b->digests = NULL;
		return -EINVAL;
	}
	if (crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE) {
		snprintf(why, why_len, _("%s was taken while the volume was being converted (as "
					 "encrypt's own backup is, until the conversion ends): the "
					 "data has moved since, and restoring it would corrupt the "
					 "volume. During a conversion only the header on the disk "
					 "(with its second copy) is usable; once 'resume' has "
					 "finished it, the worker replaces this file by a backup of "
					 "the finished header, and that one can be restored"), file);
		rc = -EBUSY;
	}
	crypt_free(cd);
	if (rc) {
		json_object_put(b->digests);
		b->digests = NULL;
	}
	return rc;
}

int fdw_header_check_restore(const char *device, const char *file, char *why, size_t why_len)
{
	static const uint64_t secondary[] = { 16384, 32768, 65536, 131072, 262144, 524288,
					      1048576, 2097152, 4194304 };
	char uuid[UUID_LEN + 1] = "";
	struct backup_info b;
	bool found = false, same = false;
	int fd, rc;

	rc = read_backup(file, &b, why, why_len);
	if (rc)
		return rc;
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, _("cannot read %s: %s"), device, strerror(errno));
		goto out;
	}
	/* Either copy of the binary header names the volume. */
	if (uuid_at(fd, 0, magic_primary, uuid) == 0)
		found = true;
	for (size_t i = 0; !found && i < sizeof(secondary) / sizeof(secondary[0]); i++)
		if (uuid_at(fd, secondary[i], magic_secondary, uuid) == 0)
			found = true;
	if (found) {
		same = strcmp(uuid, b.uuid) == 0;
		if (!same) {
			snprintf(why, why_len, _("%s belongs to another volume (UUID %s); %s holds "
						 "the volume with UUID %s"), file, b.uuid, device,
				 uuid);
			rc = -EXDEV;
		}
		goto out_fd;
	}
	/* Both binary headers are gone: the JSON areas may survive and hold the digests. */
	for (int copy = 0; !same && copy < 2 && b.digests; copy++) {
		struct json_object *d = digests_at(fd, copy * b.hdr_size + BIN_HDR_SIZE,
						   b.hdr_size - BIN_HDR_SIZE);

		same = d && json_object_equal(d, b.digests);
		json_object_put(d);
	}
	if (!same) {
		snprintf(why, why_len, _("%s holds no LUKS2 header, and nothing left on it shows "
					 "that it is the volume of %s (UUID %s); if you are sure, "
					 "'cryptsetup luksHeaderRestore' can write it anyway"),
			 device, file, b.uuid);
		rc = -ENOENT;
	}
out_fd:
	close(fd);
out:
	json_object_put(b.digests);
	if (!rc)
		fdw_log(FDW_LOG_INFO, "header backup %s matches %s (UUID %s%s)", file, device,
			b.uuid, found ? "" : ", found by its digests");
	return rc;
}

int fdw_header_restore(const char *device, const char *file, char *why, size_t why_len)
{
	struct crypt_device *cd = NULL;
	int rc, fd;

	rc = fdw_header_check_restore(device, file, why, why_len);
	if (rc)
		return rc;
	rc = fdw_crypt_init(&cd, device, NULL);
	if (!rc)
		rc = crypt_header_restore(cd, CRYPT_LUKS2, file);
	crypt_free(cd);
	if (rc) {
		snprintf(why, why_len, _("libcryptsetup could not restore the header: %s"),
			 strerror(-rc));
		return rc;
	}
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		rc = -errno;
		snprintf(why, why_len, _("the header was written but could not be flushed to "
					 "disk: %s"), strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int fdw_header_backup(const char *device, const char *file, char *why, size_t why_len)
{
	struct crypt_device *cd = NULL;
	char tmp[PATH_MAX];
	int rc;

	if (access(file, F_OK) == 0 || errno != ENOENT) {
		snprintf(why, why_len, _("%s already exists; it is never overwritten: choose "
					 "another name"), file);
		return -EEXIST;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.fdewiz-tmp-%ld", file, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		snprintf(why, why_len, _("the file name is too long"));
		return -ENAMETOOLONG;
	}
	unlink(tmp);	/* a leftover of a crashed run with the same pid */
	rc = fdw_crypt_init(&cd, device, NULL);
	if (!rc) {
		rc = crypt_load(cd, CRYPT_LUKS2, NULL);
		if (rc) {
			snprintf(why, why_len, _("%s holds no LUKS2 header that can be read (%s)"),
				 device, strerror(-rc));
			goto out;
		}
	} else {
		snprintf(why, why_len, _("cannot open %s: %s"), device, strerror(-rc));
		goto out;
	}
	if (crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE) {
		snprintf(why, why_len, _("the volume is still being converted: a backup taken now "
					 "could not be restored safely once more data has moved; "
					 "back it up when the conversion is complete"));
		rc = -EBUSY;
		goto out;
	}
	rc = crypt_header_backup(cd, CRYPT_LUKS2, tmp);
	if (rc) {
		snprintf(why, why_len, _("could not write the backup: %s"), strerror(-rc));
		goto out;
	}
	rc = fdw_sync_path(tmp);
	/* link() never replaces: a file that appeared meanwhile stays as it was. */
	if (!rc && link(tmp, file) != 0)
		rc = -errno;
	if (rc == -EEXIST)
		snprintf(why, why_len, _("%s appeared meanwhile; it was not overwritten"), file);
	else if (rc)
		snprintf(why, why_len, _("could not write %s: %s"), file, strerror(-rc));
	unlink(tmp);
	if (!rc)
		rc = fdw_sync_path(file);
out:
	if (rc)
		unlink(tmp);
	crypt_free(cd);
	return rc;
}
