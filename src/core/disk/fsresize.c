/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shrinks and grows ext2/3/4 filesystems with e2fsck and resize2fs, and checks the result. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsprobe.h"
#include "fsresize.h"
#include "base/log.h"
#include "base/spawn.h"

int fdw_ext_size(const char *device, uint64_t *bytes, uint64_t *block_size)
{
	unsigned char sb[1024];
	struct fdw_fs_usage u;
	int fd = open(device, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = pread(fd, sb, sizeof(sb), 1024);
	close(fd);
	if (r != (ssize_t)sizeof(sb) || fdw_ext_usage(sb, sizeof(sb), &u) != 0)
		return -EINVAL;
	*bytes = (uint64_t)u.size;
	*block_size = (uint64_t)u.block_size;
	return 0;
}

/*
 * The smallest size resize2fs will shrink the filesystem to, from `resize2fs -P`.
 *
 * Why ask resize2fs instead of computing it from the superblock and group descriptors:
 * the shrink is done by resize2fs, and resize2fs refuses any size below exactly this
 * figure (its own calculate_minimum_resize_size: used blocks and inodes per group, the
 * group metadata a smaller filesystem still needs, flex_bg layout, a reserve for extent
 * trees that grows with the amount shrunk). A copy of that computation would drift from
 * the installed resize2fs; asking the tool itself cannot. With -P it opens the filesystem
 * read-only and writes nothing (tests/root/test-shrink-matrix.sh checks the image's
 * sha256). @device may carry "?offset=N" (e2fsprogs' own syntax) for a filesystem inside
 * an image file.
 */
int fdw_ext_min_size(const char *device, uint64_t block_size, uint64_t *bytes)
{
	char *const argv[] = { "resize2fs", "-P", (char *)device, NULL };
	static const char key[] = "Estimated minimum size of the filesystem: ";
	char out[2048], *at, *end;
	unsigned long long blocks;
	int rc;

	if (!block_size)
		return -EINVAL;
	rc = fdw_spawn_output(argv, out, sizeof(out));
	if (rc < 0)
		return rc;
	at = strstr(out, key);
	if (rc != 0 || !at) {
		/* Expected in a scan (a filesystem not checked since it was made or mounted):
		 * its minimum is then unknown, and a shrink refuses by its return. */
		fdw_log(FDW_LOG_INFO, "resize2fs -P %s (exit %d): %.200s", device, rc, out);
		return -EIO;
	}
	errno = 0;
	blocks = strtoull(at + sizeof(key) - 1, &end, 10);
	if (errno || end == at + sizeof(key) - 1 || blocks > UINT64_MAX / block_size)
		return -EIO;
	*bytes = blocks * block_size;
	return 0;
}

/*
 * The superblock this process saw right after its last full check that found the
 * filesystem clean, and where: the restart's step checks before it plans, and the shrink
 * would check again seconds later (a full e2fsck takes minutes on a large disk). Any
 * mount, write or check in between changes the superblock (its write time at least), and
 * then it is checked again.
 */
static char checked_device[4096];
static unsigned char checked_sb[1024];

static bool read_sb(const char *device, unsigned char *sb)
{
	int fd;
	bool ok;

	if (strchr(device, '?'))	/* e2fsprogs' "file?offset=N": always checked */
		return false;
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = pread(fd, sb, 1024, 1024) == 1024;
	close(fd);
	return ok;
}

static bool checked_already(const char *device)
{
	unsigned char sb[1024];

	return checked_device[0] && !strcmp(checked_device, device) && read_sb(device, sb) &&
	       !memcmp(sb, checked_sb, sizeof(sb)) && fdw_ext_checked_clean(sb, sizeof(sb));
}

static void remember_checked(const char *device)
{
	checked_device[0] = '\0';
	if (strlen(device) < sizeof(checked_device) && read_sb(device, checked_sb))
		snprintf(checked_device, sizeof(checked_device), "%s", device);
}

/* e2fsck exit codes 0 (clean) and 1 (safe fixes made) allow a resize; anything else not. */
int fdw_ext_check(const char *device)
{
	char *const argv[] = { "e2fsck", "-f", "-p", (char *)device, NULL };
	int rc;

	if (checked_already(device)) {
		fdw_log(FDW_LOG_INFO, "%s: checked in full a moment ago, unchanged since; not again",
			device);
		return 0;
	}
	rc = fdw_spawn(argv);
	if (rc < 0)
		return rc;
	if (rc > 1) {
		fdw_log(FDW_LOG_ERROR, "e2fsck found problems on %s (exit %d)", device, rc);
		return -EUCLEAN;
	}
	remember_checked(device);
	return 0;
}

int fdw_ext_shrink(const char *device, uint64_t max_bytes, uint64_t *min_bytes)
{
	uint64_t size, bs, min;
	char arg[32];
	int rc;

	rc = fdw_ext_size(device, &size, &bs);
	if (rc)
		return rc;
	if (size <= max_bytes)
		return 0;	/* already ends early enough */
	rc = fdw_ext_check(device);
	if (rc)
		return rc;
	/*
	 * The verdict's figure again, now on the checked filesystem and under the lock:
	 * resize2fs would refuse below it, so refuse first, before anything moves.
	 */
	rc = fdw_ext_min_size(device, bs, &min);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "resize2fs could not measure how far %s can shrink", device);
		return rc;
	}
	if (min_bytes)
		*min_bytes = min;
	if (min > max_bytes / bs * bs) {
		fdw_log(FDW_LOG_ERROR, "%s cannot shrink below %llu bytes, %llu needed",
			device, (unsigned long long)min, (unsigned long long)max_bytes);
		return -ENOSPC;
	}
	/* resize2fs takes a count of KiB with the K suffix; round down to whole blocks. */
	snprintf(arg, sizeof(arg), "%lluK", (unsigned long long)(max_bytes / bs * bs / 1024));
	char *const argv[] = { "resize2fs", (char *)device, arg, NULL };
	rc = fdw_spawn(argv);
	if (rc < 0)
		return rc;
	if (rc != 0) {
		fdw_log(FDW_LOG_ERROR, "resize2fs could not shrink %s (exit %d)", device, rc);
		return -ENOSPC;
	}
	return 0;
}

int fdw_ext_grow(const char *device)
{
	char *const argv[] = { "resize2fs", (char *)device, NULL };
	int rc = fdw_ext_check(device);

	if (rc)
		return rc;
	rc = fdw_spawn(argv);
	return rc == 0 ? 0 : rc < 0 ? rc : -EIO;
}

int fdw_ext_grow_online(const char *device)
{
	char *const argv[] = { "resize2fs", (char *)device, NULL };
	int rc = fdw_spawn(argv);

	return rc == 0 ? 0 : rc < 0 ? rc : -EIO;
}

int fdw_fs_shrink(const char *device, const char *fstype, uint64_t max_bytes,
		  uint64_t *min_bytes)
{
	bool btrfs = fstype && !strcmp(fstype, "btrfs");
	uint64_t size, bs;
	int rc;

	rc = btrfs ? fdw_btrfs_shrink(device, max_bytes, min_bytes) :
		     fdw_ext_shrink(device, max_bytes, min_bytes);
	if (rc)
		return rc;
	/* Never trust the tool's word alone: the header will overwrite whatever lies beyond. */
	rc = btrfs ? fdw_btrfs_size(device, &size) : fdw_ext_size(device, &size, &bs);
	if (rc)
		return rc;
	if (size > max_bytes) {
		fdw_log(FDW_LOG_ERROR, "%s still ends at %llu, past %llu", device,
			(unsigned long long)size, (unsigned long long)max_bytes);
		return -EIO;
	}
	return 0;
}

int fdw_fs_grow(const char *device, const char *fstype)
{
	if (fstype && !strcmp(fstype, "btrfs"))
		return fdw_btrfs_grow(device);
	/* Mounted: resize2fs grows it live; unmounted it wants a check first. */
	return fdw_ext_grow_online(device) == 0 ? 0 : fdw_ext_grow(device);
}
