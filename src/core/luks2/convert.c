/* SPDX-License-Identifier: GPL-3.0-or-later */
/* In-place LUKS2 encryption through libcryptsetup's reencryption with datashift resilience. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libcryptsetup.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "cryptglue.h"
#include "base/durable.h"
#include "final_window.h"
#include "first_segment.h"
#include "keyslot_area.h"
#include "state/job.h"
#include "base/log.h"
#include "luks2_copy.h"
#include "base/spawn.h"
#include "base/testhook.h"

/* The temporary header: a private file in the work directory, never on the device. */
static int make_temp_header(const char *work_dir, char *path, size_t len)
{
	int fd;

	if (snprintf(path, len, "%s/fdewiz-header-XXXXXX", work_dir) >= (int)len)
		return -ENAMETOOLONG;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	/* libcryptsetup wants at least one sector to recognise a file as a device. */
	if (posix_fallocate(fd, 0, 4096) != 0) {
		close(fd);
		unlink(path);
		return -ENOSPC;
	}
	close(fd);
	return 0;
}

/* Format the header (cipher, UUID, sector size) and add the passphrase's keyslot. */
static int format_with_keyslot(struct crypt_device *cd, const struct fdw_convert_params *p,
			       const struct fdw_secret *pass, struct crypt_params_luks2 *luks2,
			       int *keyslot)
{
	int rc = 0;

	if (p->fast_pbkdf)
		rc = fdw_crypt_use_fast_pbkdf(cd);
	if (!rc)
		rc = crypt_format(cd, CRYPT_LUKS2, p->cipher, p->cipher_mode, p->uuid, NULL,
				  p->key_bits / 8, luks2);
	if (rc)
		return rc;
	rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass->data, pass->len);
	if (rc < 0)
		return rc;
	*keyslot = rc;
	/* Now or only after the conversion: libcryptsetup locks keyslots while it runs. */
	if (p->recovery_key) {
		rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0,
						     p->recovery_key->data,
						     p->recovery_key->len);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A copy of the prepared header in @tmp, loaded, and the keyslot @pass opens. */
static int prepared_load(struct crypt_device **cd, const struct fdw_convert_params *p,
			 const char *tmp, const struct fdw_secret *pass, int *keyslot)
{
	char *argv[] = { "cp", "--", (char *)p->prepared_header, (char *)tmp, NULL };
	int rc = fdw_spawn(argv);

	if (rc)
		return rc > 0 ? -EIO : rc;
	rc = fdw_crypt_load(cd, p->device, tmp);
	if (rc)
		return rc;
	rc = crypt_activate_by_passphrase(*cd, NULL, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	if (rc < 0)
		return rc;
	*keyslot = rc;
	return 0;
}

int fdw_convert_prepare_header(const struct fdw_convert_params *p, const struct fdw_secret *pass,
			       const char *path)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size ? p->sector_size : 512 };
	struct crypt_device *cd = NULL;
	uint64_t zeroed = 0;
	int keyslot, rc;

	rc = fdw_crypt_header_file_new(path);
	if (rc)
		return rc;
	rc = fdw_crypt_init(&cd, p->device, path);
	if (!rc)
		rc = crypt_set_data_offset(cd, FDW_DATA_SHIFT_BYTES / 2 / FDW_CRYPT_SECTOR);
	if (!rc)
		rc = format_with_keyslot(cd, p, pass, &luks2, &keyslot);
	crypt_free(cd);
	/* The file travels in the initramfs to the restart: 16 MiB of random bytes less. */
	if (!rc)
		rc = fdw_luks2_zero_unused_keyslot_area(path, &zeroed);
	if (!rc)
		fdw_log(FDW_LOG_INFO, "prepared header %s: %llu bytes of unused keyslot area zeroed",
			path, (unsigned long long)zeroed);
	if (!rc)
		rc = fdw_sync_path(path);
	if (rc)
		unlink(path);
	return rc;
}

static int format_temp_header(const struct fdw_convert_params *p, const char *tmp,
			      const struct fdw_secret *pass, int *keyslot)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size ? p->sector_size : 512 };
	struct crypt_params_reencrypt rp = {
		.mode = CRYPT_REENCRYPT_ENCRYPT,
		/* The data moves towards the start, so it is walked from the end. */
		.direction = CRYPT_REENCRYPT_BACKWARD,
		.resilience = "datashift",
		.data_shift = FDW_DATA_SHIFT_BYTES / 2 / FDW_CRYPT_SECTOR,
		.luks2 = &luks2,
		.flags = CRYPT_REENCRYPT_INITIALIZE_ONLY | CRYPT_REENCRYPT_MOVE_FIRST_SEGMENT,
	};
	struct crypt_device *cd = NULL;
	int rc;

	if (p->prepared_header) {
		rc = prepared_load(&cd, p, tmp, pass, keyslot);
	} else {
		rc = fdw_crypt_init(&cd, p->device, tmp);
		if (rc)
			return rc;
		/* The header takes the first half of the shift; the first data segment moves
		 * there. */
		rc = crypt_set_data_offset(cd, FDW_DATA_SHIFT_BYTES / 2 / FDW_CRYPT_SECTOR);
		if (!rc)
			rc = format_with_keyslot(cd, p, pass, &luks2, keyslot);
	}
	if (!rc)
		rc = crypt_reencrypt_init_by_passphrase(cd, NULL, pass->data, pass->len,
							CRYPT_ANY_SLOT, *keyslot, p->cipher,
							p->cipher_mode, &rp);
	if (rc > 0)
		rc = 0;
	crypt_free(cd);
	return rc;
}

/*
 * Detached header: no data moves, so there is no datashift; the hotzone is protected
 * by checksums instead. The header file is created here and must not exist yet.
 */
static int init_detached(const struct fdw_convert_params *p, const struct fdw_secret *pass)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size ? p->sector_size : 512 };
	struct crypt_params_reencrypt rp = {
		.mode = CRYPT_REENCRYPT_ENCRYPT,
		.direction = CRYPT_REENCRYPT_FORWARD,
		.resilience = "checksum",
		.hash = "sha256",
		.luks2 = &luks2,
		.flags = CRYPT_REENCRYPT_INITIALIZE_ONLY,
	};
	struct crypt_device *cd = NULL;
	int keyslot, rc;

	rc = fdw_crypt_header_file_new(p->detached_header);
	if (rc)
		return rc;
	rc = fdw_crypt_init(&cd, p->device, p->detached_header);
	if (!rc)
		rc = crypt_set_data_offset(cd, 0);
	if (!rc)
		rc = format_with_keyslot(cd, p, pass, &luks2, &keyslot);
	if (!rc)
		rc = crypt_reencrypt_init_by_passphrase(cd, NULL, pass->data, pass->len,
							CRYPT_ANY_SLOT, keyslot, p->cipher,
							p->cipher_mode, &rp);
	if (rc > 0)
		rc = 0;
	if (!rc)
		rc = crypt_header_backup(cd, CRYPT_LUKS2, p->header_backup);
	crypt_free(cd);
	if (!rc)
		rc = fdw_sync_path(p->header_backup);
	if (!rc)
		rc = fdw_sync_path(p->detached_header);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not prepare the detached header %s: %s",
			p->detached_header, strerror(-rc));
		unlink(p->detached_header);
	}
	return rc;
}

int fdw_convert_init(const struct fdw_convert_params *p, const struct fdw_secret *pass)
{
	char tmp[PATH_MAX];
	struct crypt_device *cd = NULL;
	int keyslot = -1, rc;

	if (p->detached_header)
		return init_detached(p, pass);

	rc = make_temp_header(p->work_dir, tmp, sizeof(tmp));
	if (rc)
		return rc;
	rc = format_temp_header(p, tmp, pass, &keyslot);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not prepare the LUKS2 header: %s", strerror(-rc));
		goto out;
	}
	/* The backup is taken from the finished temporary header, before the device changes. */
	rc = fdw_crypt_init(&cd, tmp, NULL);
	if (!rc)
		rc = crypt_header_backup(cd, CRYPT_LUKS2, p->header_backup);
	crypt_free(cd);
	cd = NULL;
	/* libcryptsetup does not fsync it; a power cut must not take the backup along. */
	if (!rc)
		rc = fdw_sync_path(p->header_backup);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not write the header backup %s: %s", p->header_backup,
			strerror(-rc));
		goto out;
	}
	/*
	 * The first data segment was copied to the device's end above; that copy must be on
	 * the disk before the header overwrites the original, or a power cut loses both.
	 */
	rc = fdw_sync_path(p->device);
	/* And said so, beside it: a header cut short is put right from that copy. */
	if (!rc)
		rc = fdw_first_segment_mark(p->device);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not flush %s: %s", p->device, strerror(-rc));
		goto out;
	}
	fdw_test_point("first-segment-marked");
	/* First write to the device: the header goes where the first data segment was. */
	rc = fdw_crypt_init(&cd, p->device, NULL);
	if (!rc)
		rc = crypt_header_restore(cd, CRYPT_LUKS2, tmp);
	crypt_free(cd);
	if (rc)
		fdw_log(FDW_LOG_ERROR, "could not place the header on %s: %s", p->device,
			strerror(-rc));
out:
	unlink(tmp);
	return rc;
}

struct progress_bridge {
	fdw_convert_progress_fn fn;
	void *ctx;
};

static int progress_bridge_cb(uint64_t size, uint64_t offset, void *usrptr)
{
	struct progress_bridge *b = usrptr;
	int rc;

	if (offset == size && size > 0)
		fdw_test_point("last-hotzone");
	fdw_test_point_progress(offset, size);

	rc = b->fn ? b->fn(offset, size, b->ctx) : 0;
	/* A test holds the conversion here, between hotzones, until it is asked to stop. */
	if (!rc && b->fn && fdw_test_hold(offset, size)) {
		while (!rc) {
			nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
			rc = b->fn(offset, size, b->ctx);
		}
	}
	return rc;
}

int fdw_convert_run(const struct fdw_volume *v, const struct fdw_secret *pass,
		    fdw_convert_progress_fn progress, void *ctx)
{
	struct crypt_params_reencrypt rp = { 0 };
	struct progress_bridge bridge = { progress, ctx };
	struct crypt_device *cd = NULL;
	crypt_reencrypt_info info;
	uint64_t hotzone;
	int rc, stopped = 0;

	rc = fdw_crypt_load(&cd, v->device, v->header);
	if (rc)
		goto out;
	info = crypt_reencrypt_status(cd, &rp);
	/* A decryption in place (a detached header's) goes in 16 MiB steps, as begun: the
	 * step's size is not kept in the header, and libcryptsetup's own would take a small
	 * partition in one, its progress and a stop only at the end. (Read now: @rp's strings
	 * belong to this load of the header.) */
	hotzone = rp.mode == CRYPT_REENCRYPT_DECRYPT && rp.resilience &&
		  !strcmp(rp.resilience, "checksum") ? FDW_DECRYPT_HOTZONE_BYTES / FDW_CRYPT_SECTOR : 0;
	if (info == CRYPT_REENCRYPT_NONE) {
		rc = 0;	/* nothing recorded: already complete */
		goto out;
	}
	if (info == CRYPT_REENCRYPT_INVALID) {
		rc = -EINVAL;
		goto out;
	}
	if (info == CRYPT_REENCRYPT_CRASH) {
		/* Replays the hotzone from the resilience data; needs the volume key. */
		fdw_log(FDW_LOG_INFO, "%s: repairing after an interrupted run", v->device);
		rc = crypt_reencrypt_init_by_passphrase(cd, v->active_name, pass->data, pass->len,
							CRYPT_ANY_SLOT, CRYPT_ANY_SLOT, NULL, NULL,
							&(struct crypt_params_reencrypt){
								.flags = CRYPT_REENCRYPT_RECOVERY });
		if (rc < 0)
			goto out;
		crypt_free(cd);
		rc = fdw_crypt_load(&cd, v->device, v->header);
		if (rc)
			goto out;
		/* The replayed hotzone may have been the last one: see the end window below. */
		info = crypt_reencrypt_status(cd, NULL);
		if (info == CRYPT_REENCRYPT_NONE)
			goto out;
	}
	/* libcryptsetup cannot resume the end window; it is finished here (final_window.c). */
	if (info == CRYPT_REENCRYPT_CLEAN) {
		rc = fdw_final_window_resume(cd, v, pass);
		if (rc <= 0)
			goto out;
	}
	rp = (struct crypt_params_reencrypt){ .flags = CRYPT_REENCRYPT_RESUME_ONLY,
					      .max_hotzone_size = hotzone };
	rc = crypt_reencrypt_init_by_passphrase(cd, v->active_name, pass->data, pass->len, CRYPT_ANY_SLOT,
						CRYPT_ANY_SLOT, NULL, NULL, &rp);
	if (rc < 0)
		goto out;
	rc = crypt_reencrypt_run(cd, progress_bridge_cb, &bridge);
	if (rc == 0 && crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE)
		stopped = 1;
out:
	crypt_free(cd);
	if (rc == 0 && stopped)
		return -EINTR;
	return rc;
}

int fdw_convert_activate(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct crypt_device *cd = NULL;
	int rc = fdw_crypt_load(&cd, v->device, v->header);

	if (rc)
		return rc;
	rc = crypt_activate_by_passphrase(cd, v->active_name, CRYPT_ANY_SLOT, pass->data,
					  pass->len, 0);
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

int fdw_convert_deactivate(const char *name)
{
	return crypt_deactivate(NULL, name);
}

/* The kernel lists device-mapper in /proc/misc once dm-mod is loaded; a stale
 * /dev/mapper/control node alone (as in some containers) proves nothing. */
bool fdw_have_device_mapper(void)
{
	FILE *f = fopen("/proc/misc", "re");
	char line[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " device-mapper") != NULL;
	fclose(f);
	return found && access("/dev/mapper/control", F_OK) == 0;
}

int fdw_convert_backup_header(const struct fdw_volume *v, const char *path)
{
	struct crypt_device *cd = NULL;
	char tmp[PATH_MAX];
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	rc = fdw_crypt_load(&cd, v->device, v->header);
	if (!rc)
		rc = crypt_header_backup(cd, CRYPT_LUKS2, tmp);
	crypt_free(cd);
	if (!rc)
		rc = fdw_sync_path(tmp);
	if (!rc && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	else
		rc = fdw_sync_path(path);
	return rc;
}

int fdw_convert_check_passphrase(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct crypt_device *cd = NULL;
	char copy[64];
	int fd = fdw_luks2_copy_open(v->device, v->header, copy, sizeof(copy));
	int rc;

	/*
	 * Asked of a private copy: a header a crash left with its two copies apart would be
	 * repaired in place by the load, and a wrong passphrase must change nothing. Only a
	 * header no copy can be made of (neither copy whole) is loaded where it is.
	 */
	rc = fdw_crypt_load(&cd, v->device, fd >= 0 ? copy : v->header);
	/* Activation without a name only verifies the passphrase against the keyslots. */
	if (!rc)
		rc = crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	crypt_free(cd);
	if (fd >= 0)
		close(fd);
	if (rc == -ENOENT || rc == -EPERM)
		rc = fdw_final_window_salvage(v, pass);
	return rc < 0 ? rc : 0;
}
