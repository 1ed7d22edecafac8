/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A half-written header put right: the partition's start written back from its moved copy. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "convert.h"
#include "first_segment.h"
#include "luks2_peek.h"

#define SEGMENT (FDW_DATA_SHIFT_BYTES / 2)
#define MARK_MAGIC "FDEWIZ-MOVED-FIRST-SEGMENT-1"
#define MARK_SIZE 4096

/* Where the copy and the marker are: the last 16 MiB, and the gap before them. */
static int places(int fd, uint64_t *copy_at, uint64_t *mark_at)
{
	uint64_t size = 0;

	if (ioctl(fd, BLKGETSIZE64, &size) != 0) {
		struct stat st;

		if (fstat(fd, &st) != 0)
			return -errno;
		size = (uint64_t)st.st_size;
	}
	if (size < 2 * FDW_DATA_SHIFT_BYTES)
		return -ENOSPC;
	*copy_at = size - SEGMENT;
	*mark_at = size - FDW_DATA_SHIFT_BYTES;
	return 0;
}

static int hash_at(int fd, uint64_t off, unsigned char *buf, unsigned char *md)
{
	unsigned int n = 0;

	if (fdw_pread_full(fd, buf, SEGMENT, off) != (ssize_t)SEGMENT)
		return -EIO;
	return EVP_Digest(buf, SEGMENT, md, &n, EVP_sha256(), NULL) ? 0 : -EIO;
}

int fdw_first_segment_mark(const char *device)
{
	unsigned char *buf = malloc(SEGMENT), mark[MARK_SIZE] = { 0 };
	uint64_t copy_at, mark_at;
	int fd = open(device, O_RDWR | O_CLOEXEC), rc;

	if (fd < 0 || !buf) {
		rc = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	rc = places(fd, &copy_at, &mark_at);
	if (!rc)
		rc = hash_at(fd, copy_at, buf, mark + sizeof(MARK_MAGIC));
	memcpy(mark, MARK_MAGIC, sizeof(MARK_MAGIC));
	if (!rc && pwrite(fd, mark, sizeof(mark), (off_t)mark_at) != (ssize_t)sizeof(mark))
		rc = -EIO;
	if (!rc && fsync(fd) != 0)
		rc = -errno;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* With the marker read and its copy checked: the start put back when it differs. */
static int put_back(int fd, unsigned char *copy, bool *repaired)
{
	unsigned char *start = malloc(SEGMENT);
	int rc = 0;

	if (!start)
		return -ENOMEM;
	if (fdw_pread_full(fd, start, SEGMENT, 0) != (ssize_t)SEGMENT)
		rc = -EIO;
	if (!rc && memcmp(start, copy, SEGMENT)) {
		if (pwrite(fd, copy, SEGMENT, 0) != (ssize_t)SEGMENT)
			rc = -EIO;
		else if (fsync(fd) != 0)
			rc = -errno;
		else
			*repaired = true;
	}
	free(start);
	return rc;
}

int fdw_first_segment_repair(const char *device, const char *uuid, bool *repaired)
{
	unsigned char *copy = NULL, mark[MARK_SIZE], md[EVP_MAX_MD_SIZE];
	uint64_t copy_at, mark_at;
	int fd, rc;

	*repaired = false;
	if (fdw_luks2_peek_has_uuid(device, uuid))
		return 0;
	fd = open(device, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = places(fd, &copy_at, &mark_at);
	if (!rc && fdw_pread_full(fd, mark, sizeof(mark), mark_at) != (ssize_t)sizeof(mark))
		rc = -EIO;
	/* No marker: the copy never finished, so the start was never overwritten. */
	if (rc || memcmp(mark, MARK_MAGIC, sizeof(MARK_MAGIC)))
		goto out;
	copy = malloc(SEGMENT);
	rc = copy ? hash_at(fd, copy_at, copy, md) : -ENOMEM;
	if (!rc && memcmp(md, mark + sizeof(MARK_MAGIC), 32)) {
		fdw_log(FDW_LOG_ERROR, "%s: the moved first segment does not match its marker",
			device);
		rc = -EIO;
	}
	if (!rc)
		rc = put_back(fd, copy, repaired);
	if (!rc) {
		memset(mark, 0, sizeof(mark));
		if (pwrite(fd, mark, sizeof(mark), (off_t)mark_at) != (ssize_t)sizeof(mark) ||
		    fsync(fd) != 0)
			rc = -EIO;
	}
out:
	free(copy);
	close(fd);
	return rc;
}
