/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Attaches and detaches loop devices through /dev/loop-control and the loop ioctls. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "loopdev.h"

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
		if (ioctl(loop_fd, LOOP_CONFIGURE, &cfg) == 0) {
			rc = 0;
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
	if (loop_fd >= 0)
		close(loop_fd);
	close(file_fd);
	return rc;
}

int fdw_loop_detach(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, LOOP_CLR_FD, 0) != 0 && errno != ENXIO)
		rc = -errno;
	close(fd);
	return rc;
}
