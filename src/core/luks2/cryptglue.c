/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The small pieces every caller of libcryptsetup needs: logging, opening, test PBKDF. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cryptglue.h"
#include "base/log.h"

/* libcryptsetup ends its messages with a newline; the log adds its own. */
static void crypt_log_to_fdw(int level, const char *msg, void *usrptr)
{
	size_t len = strlen(msg);

	(void)usrptr;
	fdw_log(level == CRYPT_LOG_ERROR ? FDW_LOG_ERROR :
		level == CRYPT_LOG_DEBUG ? FDW_LOG_DEBUG : FDW_LOG_INFO, "libcryptsetup: %.*s",
		(int)(len && msg[len - 1] == '\n' ? len - 1 : len), msg);
}

int fdw_crypt_init(struct crypt_device **cd, const char *device, const char *header)
{
	int rc = header ? crypt_init_data_device(cd, header, device) : crypt_init(cd, device);

	if (!rc)
		crypt_set_log_callback(*cd, crypt_log_to_fdw, NULL);
	return rc;
}

int fdw_crypt_load(struct crypt_device **cd, const char *device, const char *header)
{
	int rc = fdw_crypt_init(cd, device, header);

	if (rc)
		return rc;
	rc = crypt_load(*cd, CRYPT_LUKS2, NULL);
	if (rc) {
		crypt_free(*cd);
		*cd = NULL;
	}
	return rc;
}

int fdw_crypt_use_fast_pbkdf(struct crypt_device *cd)
{
	struct crypt_pbkdf_type fast = { .type = CRYPT_KDF_PBKDF2, .hash = "sha256",
					 .iterations = 1000, .flags = CRYPT_PBKDF_NO_BENCHMARK };

	return crypt_set_pbkdf_type(cd, &fast);
}

int fdw_crypt_header_file_new(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	int rc;

	if (fd < 0)
		return -errno;
	rc = posix_fallocate(fd, 0, 4096) ? -ENOSPC : 0;
	close(fd);
	if (rc)
		unlink(path);
	return rc;
}
