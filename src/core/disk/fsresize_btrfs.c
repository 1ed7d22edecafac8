/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shrinks and grows a single-device btrfs: checked, mounted where only a child of fdewiz
 * sees it, resized by the btrfs tool, and its size read back from the superblock. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsprobe.h"
#include "fsresize.h"
#include "private_mount.h"
#include "base/bytes.h"
#include "base/child.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/spawn.h"

/* The primary btrfs superblock, and the size of this device in its device item. */
#define BTRFS_SB_OFFSET 65536
#define BTRFS_DEV_TOTAL 209

int fdw_btrfs_size(const char *device, uint64_t *bytes)
{
	unsigned char sb[4096];
	struct fdw_fs_usage u = { -1, -1, -1, -1, -1, -1, -1 };
	int fd = open(device, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = fdw_pread_full(fd, sb, sizeof(sb), BTRFS_SB_OFFSET);
	close(fd);
	if (r != (ssize_t)sizeof(sb) || fdw_btrfs_usage(sb, sizeof(sb), &u) != 0 ||
	    u.devices != 1)
		return -EINVAL;
	*bytes = fdw_le64(sb + BTRFS_DEV_TOTAL);
	return 0;
}

/* What the resizing child is asked: the device, and "1:<bytes>" or "1:max". */
struct resize_call {
	const char *device;
	const char *size;
};

/* In a child: mount privately, resize, unmount; the mount dies with the child anyway. */
static int resize_child(void *ctx, char *note, size_t len)
{
	const struct resize_call *c = ctx;
	char dir[PATH_MAX];
	int rc = fdw_private_mount_dir("resize", dir, sizeof(dir));

	(void)note;
	(void)len;
	if (rc)
		return rc;
	if (mount(c->device, dir, "btrfs", MS_NOATIME | MS_NOSUID | MS_NODEV, NULL) != 0) {
		rc = -errno;
		fdw_log(FDW_LOG_ERROR, "cannot mount the btrfs on %s to resize it: %s",
			c->device, strerror(errno));
		return rc;
	}
	char *const argv[] = { "btrfs", "filesystem", "resize", (char *)c->size, dir, NULL };
	rc = fdw_spawn(argv);
	if (rc != 0)
		fdw_log(FDW_LOG_ERROR, "btrfs filesystem resize %s %s: exit %d", c->size,
			c->device, rc);
	if (umount2(dir, 0) != 0)
		fdw_log(FDW_LOG_WARN, "cannot unmount %s: %s", dir, strerror(errno));
	return rc < 0 ? rc : rc > 0 ? -ENOSPC : 0;
}

static int resize(const char *device, const char *size)
{
	const struct resize_call c = { .device = device, .size = size };
	char note[256];

	return fdw_child_run(resize_child, (void *)&c, note, sizeof(note));
}

/* btrfs check (read-only) finds nothing wrong: 0; else -EUCLEAN, nothing changed. */
static int check(const char *device)
{
	char *const argv[] = { "btrfs", "check", "--readonly", (char *)device, NULL };
	int rc = fdw_spawn(argv);

	if (rc < 0)
		return rc;
	if (rc != 0) {
		fdw_log(FDW_LOG_ERROR, "btrfs check found problems on %s (exit %d)", device, rc);
		return -EUCLEAN;
	}
	return 0;
}

int fdw_btrfs_shrink(const char *device, uint64_t max_bytes, uint64_t *min_bytes)
{
	uint64_t size;
	char arg[32];
	int rc;

	if (min_bytes)
		*min_bytes = 0;		/* btrfs gives no figure; the verdict estimated it */
	rc = fdw_btrfs_size(device, &size);
	if (rc)
		return rc;
	if (size <= max_bytes)
		return 0;	/* already ends early enough */
	rc = check(device);
	if (rc)
		return rc;
	/* Whole 4 KiB sectors: btrfs rounds a size down to its sector anyway. */
	snprintf(arg, sizeof(arg), "1:%llu", (unsigned long long)(max_bytes / 4096 * 4096));
	return resize(device, arg);
}

int fdw_btrfs_grow(const char *device)
{
	return resize(device, "1:max");
}
