/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Attaches loop devices that go away with their last user, through the loop ioctls. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"
#include "loopdev.h"
#include "sysstate.h"

bool fdw_loop_direct_io(int loop_fd)
{
	struct loop_info64 info;

	return ioctl(loop_fd, LOOP_GET_STATUS64, &info) == 0 &&
	       (info.lo_flags & LO_FLAGS_DIRECT_IO);
}

int fdw_loop_attach(const char *file, uint64_t offset, uint64_t size, char *dev, size_t len)
{
	struct loop_config cfg = { 0 };
	int ctl, file_fd, loop_fd = -1, num, rc = 0;

	file_fd = open(file, O_RDWR | O_CLOEXEC);
	if (file_fd < 0)
		return -errno;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		rc = -errno;
		goto out;
	}
	/* Another process may take the free device first: retry a few times. */
	for (int attempt = 0; attempt < 10; attempt++) {
		num = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (num < 0) {
			rc = -errno;
			break;
		}
		snprintf(dev, len, "/dev/loop%d", num);
		loop_fd = open(dev, O_RDWR | O_CLOEXEC);
		if (loop_fd < 0) {
			rc = -errno;
			break;
		}
		cfg.fd = (uint32_t)file_fd;
		cfg.info.lo_offset = offset;
		cfg.info.lo_sizelimit = size;
		/* Detached by the kernel when its last user closes it, a killed one too.
		 * Direct I/O keeps the image's pages out of the host's page cache: what is
		 * read through the device comes from the disk (a benchmark measures the
		 * disk, not memory), and data is not cached twice. The kernel drops the flag
		 * where the image's filesystem or alignment does not allow it. */
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
		if (ioctl(loop_fd, LOOP_CONFIGURE, &cfg) == 0) {
			rc = 0;
			if (!fdw_loop_direct_io(loop_fd))
				fdw_log(FDW_LOG_INFO, "%s: no direct I/O on %s (its filesystem or "
					"alignment does not allow it); reads may come from the "
					"page cache", dev, file);
			break;
		}
		rc = -errno;
		close(loop_fd);
		loop_fd = -1;
		if (rc != -EBUSY)
			break;
	}
	close(ctl);
out:
	close(file_fd);
	return rc ? rc : loop_fd;
}

/* Does the loop device open on @fd map exactly @size bytes at @offset of @backing? */
static int loop_maps(int fd, const struct stat *backing, uint64_t offset, uint64_t size,
		     struct loop_info64 *info)
{
	unsigned ma, mi;
	uint64_t d;

	if (ioctl(fd, LOOP_GET_STATUS64, info) != 0)
		return -errno;
	d = S_ISBLK(backing->st_mode) ? info->lo_rdevice : info->lo_device;
	ma = (unsigned)((d & 0xfff00) >> 8);
	mi = (unsigned)((d & 0xff) | ((d >> 12) & 0xfff00));
	if (S_ISBLK(backing->st_mode) ? makedev(ma, mi) != backing->st_rdev :
	    (makedev(ma, mi) != backing->st_dev || info->lo_inode != backing->st_ino))
		return -ESTALE;
	if (info->lo_offset != offset || info->lo_sizelimit != size)
		return -ESTALE;
	return 0;
}

int fdw_loop_autoclear_if(const char *dev, const char *backing, uint64_t offset,
			  uint64_t size)
{
	struct loop_info64 info;
	struct stat st;
	int fd, rc;

	if (stat(backing, &st) != 0)
		return -errno;
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = loop_maps(fd, &st, offset, size, &info);
	if (!rc && !(info.lo_flags & LO_FLAGS_AUTOCLEAR)) {
		info.lo_flags |= LO_FLAGS_AUTOCLEAR;
		if (ioctl(fd, LOOP_SET_STATUS64, &info) != 0)
			rc = -errno;
	}
	close(fd);
	return rc;
}

void fdw_loop_wait_detached(const char *dev)
{
	char path[PATH_MAX];
	const char *name = strrchr(dev, '/');

	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name ? name + 1 : dev);
	for (int i = 0; i < 200 && access(path, F_OK) == 0; i++)
		usleep(10000);
}

int fdw_loop_backing(const char *name, char *file, size_t len, uint64_t *offset)
{
	char path[PATH_MAX], off[32];

	if (snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (fdw_read_line_file(path, file, len) != 0 || !file[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/offset", name);
	*offset = fdw_read_line_file(path, off, sizeof(off)) == 0 ? strtoull(off, NULL, 10) : 0;
	return 0;
}
