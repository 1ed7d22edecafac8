/* In-place LUKS2 encryption through libcryptsetup's reencryption with datashift resilience. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libcryptsetup.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "durable.h"
#include "log.h"

#define SECTOR 512ULL

static void cryptsetup_log(int level, const char *msg, void *usrptr)
{
	size_t len = strlen(msg);
	char line[1024];

	(void)usrptr;
	/* libcryptsetup ends its messages with a newline; the log adds its own. */
	snprintf(line, sizeof(line), "%.*s", (int)(len && msg[len - 1] == '\n' ? len - 1 : len),
		 msg);
	fdw_log(level == CRYPT_LOG_ERROR ? FDW_LOG_ERROR :
		level == CRYPT_LOG_DEBUG ? FDW_LOG_DEBUG : FDW_LOG_INFO, "libcryptsetup: %s", line);
}

static int crypt_open_device(struct crypt_device **cd, const char *header, const char *data)
{
	int rc = data ? crypt_init_data_device(cd, header, data) : crypt_init(cd, header);

	if (!rc)
		crypt_set_log_callback(*cd, cryptsetup_log, NULL);
	return rc;
}

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
	struct crypt_pbkdf_type fast = { .type = CRYPT_KDF_PBKDF2, .hash = "sha256",
					 .iterations = 1000,
					 .flags = CRYPT_PBKDF_NO_BENCHMARK };
	int rc = 0;

	if (p->fast_pbkdf)
		rc = crypt_set_pbkdf_type(cd, &fast);
	if (!rc)
		rc = crypt_format(cd, CRYPT_LUKS2, p->cipher, p->cipher_mode, p->uuid, NULL,
				  p->key_bits / 8, luks2);
	if (rc)
		return rc;
	rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass->data, pass->len);
	if (rc < 0)
		return rc;
	*keyslot = rc;
	return 0;
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
		.data_shift = FDW_DATA_SHIFT_BYTES / 2 / SECTOR,
		.luks2 = &luks2,
		.flags = CRYPT_REENCRYPT_INITIALIZE_ONLY | CRYPT_REENCRYPT_MOVE_FIRST_SEGMENT,
	};
	struct crypt_device *cd = NULL;
	int rc;

	rc = crypt_open_device(&cd, tmp, p->device);
	if (rc)
		return rc;
	/* The header takes the first half of the shift; the first data segment moves there. */
	rc = crypt_set_data_offset(cd, FDW_DATA_SHIFT_BYTES / 2 / SECTOR);
	if (!rc)
		rc = format_with_keyslot(cd, p, pass, &luks2, keyslot);
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
	int fd, keyslot, rc;

	fd = open(p->detached_header, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = posix_fallocate(fd, 0, 4096) ? -ENOSPC : 0;
	close(fd);
	if (!rc)
		rc = crypt_open_device(&cd, p->detached_header, p->device);
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
	rc = crypt_open_device(&cd, tmp, NULL);
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
	/* First write to the device: the header goes where the first data segment was. */
	rc = crypt_open_device(&cd, p->device, NULL);
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

	return b->fn ? b->fn(offset, size, b->ctx) : 0;
}

/* Load the volume's header: from the detached file or the device itself. */
static int load_volume(struct crypt_device **cd, const struct fdw_volume *v)
{
	int rc = v->header ? crypt_open_device(cd, v->header, v->device)
			   : crypt_open_device(cd, v->device, NULL);

	if (!rc)
		rc = crypt_load(*cd, CRYPT_LUKS2, NULL);
	if (rc) {
		crypt_free(*cd);
		*cd = NULL;
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
	int rc, stopped = 0;

	rc = load_volume(&cd, v);
	if (rc)
		goto out;
	info = crypt_reencrypt_status(cd, &rp);
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
		rc = load_volume(&cd, v);
		if (rc)
			goto out;
	}
	rp = (struct crypt_params_reencrypt){ .flags = CRYPT_REENCRYPT_RESUME_ONLY };
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

int fdw_convert_status(const struct fdw_volume *v, struct fdw_convert_status *st)
{
	struct crypt_params_reencrypt rp = { 0 };
	struct crypt_device *cd = NULL;
	crypt_reencrypt_info info;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (load_volume(&cd, v) != 0)
		return 0;	/* not LUKS2 */
	info = crypt_reencrypt_status(cd, &rp);
	switch (info) {
	case CRYPT_REENCRYPT_NONE:
		st->state = FDW_CONVERT_COMPLETE;
		break;
	case CRYPT_REENCRYPT_CLEAN:
		st->state = FDW_CONVERT_IN_PROGRESS;
		break;
	case CRYPT_REENCRYPT_CRASH:
		st->state = FDW_CONVERT_NEEDS_REPAIR;
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (info == CRYPT_REENCRYPT_CLEAN || info == CRYPT_REENCRYPT_CRASH)
		snprintf(st->mode, sizeof(st->mode), "%s",
			 rp.mode == CRYPT_REENCRYPT_ENCRYPT ? "encrypt" :
			 rp.mode == CRYPT_REENCRYPT_DECRYPT ? "decrypt" : "reencrypt");
	crypt_free(cd);
	return rc;
}

int fdw_convert_activate(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct crypt_device *cd = NULL;
	int rc = load_volume(&cd, v);

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
	rc = load_volume(&cd, v);
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
	int rc = load_volume(&cd, v);

	/* Activation without a name only verifies the passphrase against the keyslots. */
	if (!rc)
		rc = crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	crypt_free(cd);
	if (rc == -ENOENT)
		rc = -EPERM;
	return rc < 0 ? rc : 0;
}
