/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The I/O benchmark's target: a directory with room for its file, or a device safe to use. */
#include "config.h"

#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench_io.h"
#include "base/i18n.h"
#include "base/sysstate.h"
#include "base/units.h"

uint64_t bench_io_scale_size(enum fdw_bench_scale s)
{
	static const uint64_t mib[] = { [FDW_BENCH_TINY] = 64, [FDW_BENCH_QUICK] = 256,
					[FDW_BENCH_NORMAL] = 1024, [FDW_BENCH_FULL] = 1024 };

	return mib[s] * MIB;
}

/* The source of the filesystem mounted at device number @dev ("" when unknown). */
static void mount_source_of(dev_t dev, char *buf, size_t len)
{
	struct fdw_sysstate st;
	size_t i;

	buf[0] = '\0';
	if (fdw_sysstate_load(&st) != 0)
		return;
	for (i = 0; i < st.n_mounts; i++) {
		if (st.mounts[i].major == major(dev) && st.mounts[i].minor == minor(dev) &&
		    st.mounts[i].source && st.mounts[i].source[0] == '/') {
			snprintf(buf, len, "%s", st.mounts[i].source);
			break;
		}
	}
	fdw_sysstate_free(&st);
}

void fdw_bench_device_of(const char *path, char *buf, size_t len)
{
	struct stat st;

	buf[0] = '\0';
	if (stat(path, &st) != 0)
		return;
	if (S_ISBLK(st.st_mode))
		snprintf(buf, len, "%s", path);
	else
		mount_source_of(st.st_dev, buf, len);
}

int bench_io_device_signature(const char *dev, char *type, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *v = NULL;
	int rc, found = 0;

	if (!pr)
		return 0;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) != 0)
			blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL);
		snprintf(type, len, "%s", v ? v : "data");
		found = 1;
	} else if (rc == -2) {
		snprintf(type, len, "%s", "several signatures");
		found = 1;
	}
	blkid_free_probe(pr);
	return found;
}

/* How much the I/O test uses on a filesystem with @avail bytes free, or 0 if too little. */
static uint64_t dir_io_size(const struct fdw_bench_options *o, uint64_t avail, uint64_t *need)
{
	uint64_t size;

	if (o->io_size) {
		size = o->io_size / IO_MAX_BS * IO_MAX_BS;
		*need = 2 * size;
		return size && size <= avail / 2 ? size : 0;
	}
	size = bench_io_scale_size(o->scale);
	if (size > avail / 2)
		size = avail / 2 / MIB * MIB;
	*need = 2 * IO_MIN_SIZE;
	return size >= IO_MIN_SIZE ? size : 0;
}

static int check_dir(const struct fdw_bench_options *o, struct fdw_bench_run *r,
		     uint64_t *size, char *why, size_t len)
{
	char a[32], b[32];
	struct statvfs vfs;
	struct stat st;
	uint64_t avail, need;

	snprintf(r->target, sizeof(r->target), "%s", o->dir);
	if (stat(o->dir, &st) != 0) {
		int err = errno;

		snprintf(why, len, _("%s: %s. Nothing was changed. Name an existing directory on "
				     "a mounted filesystem, or a block device."), o->dir,
			 strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, _("%s is neither a directory nor a block device. Nothing was "
				     "changed. Name a directory on the mounted filesystem to "
				     "measure, or a block device."), o->dir);
		return -ENOTDIR;
	}
	if (statvfs(o->dir, &vfs) != 0) {
		int err = errno;

		snprintf(why, len, _("%s: cannot read its filesystem's state: %s. Nothing was "
				     "changed."), o->dir, strerror(err));
		return -err;
	}
	mount_source_of(st.st_dev, r->device, sizeof(r->device));
	if ((vfs.f_flag & ST_RDONLY) || access(o->dir, W_OK) != 0) {
		bool ro = (vfs.f_flag & ST_RDONLY) || errno == EROFS;

		snprintf(why, len, ro ? _("%s is on a read-only filesystem; the test needs to "
					  "write a scratch file there. Nothing was changed. "
					  "Remount it read-write or choose another directory.") :
					_("%s cannot be written to (permission denied). Nothing "
					  "was changed. Run as root or choose another directory."),
			 o->dir);
		return ro ? -EROFS : -EACCES;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	*size = dir_io_size(o, avail, &need);
	if (!*size) {
		snprintf(why, len, _("%s has too little free space: the test needs %s free "
				     "(its file uses at most half), %s is available. Nothing was "
				     "changed. Free some space or choose another filesystem."),
			 o->dir, fdw_format_size(need, a, sizeof(a)),
			 fdw_format_size(avail, b, sizeof(b)));
		return -ENOSPC;
	}
	return 0;
}

static int check_device(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			uint64_t *size, char *why, size_t len)
{
	uint64_t dev_size = 0;
	struct stat st;
	char sig[64];
	int fd, ro = 0;

	snprintf(r->target, sizeof(r->target), "%s", o->device);
	snprintf(r->device, sizeof(r->device), "%s", o->device);
	if (stat(o->device, &st) != 0) {
		int err = errno;

		snprintf(why, len, _("%s: %s. Nothing was changed. Name an existing directory on "
				     "a mounted filesystem, or a block device."), o->device,
			 strerror(err));
		return -err;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(why, len, _("%s is neither a directory nor a block device. Nothing was "
				     "changed. Name a directory on the mounted filesystem to "
				     "measure, or a block device."), o->device);
		return -ENOTBLK;
	}
	fd = open(o->device, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &dev_size) != 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		snprintf(why, len, _("%s cannot be opened: %s. Nothing was changed."), o->device,
			 strerror(err));
		return -err;
	}
	if (ioctl(fd, BLKROGET, &ro) != 0)
		ro = 0;
	close(fd);
	*size = o->io_size ? o->io_size : bench_io_scale_size(o->scale);
	if (*size > dev_size)
		*size = dev_size;
	*size = *size / IO_MAX_BS * IO_MAX_BS;
	if (*size < 4 * MIB) {
		snprintf(why, len, _("%s is too small to measure (under 4 MiB). Nothing was "
				     "changed."), o->device);
		return -ENOSPC;
	}
	if (!o->allow_write)
		return 0;
	if (ro) {
		snprintf(why, len, _("%s is read-only, so it cannot be written to. Nothing was "
				     "changed. Leave out --allow-write to measure reading only."),
			 o->device);
		return -EROFS;
	}
	fd = open(o->device, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == EBUSY)
			snprintf(why, len, _("%s is in use (mounted, swap, or held by "
					     "another device), so it must not be written to. "
					     "Nothing was changed. Unmount it first, or leave out "
					     "--allow-write to measure reading only."), o->device);
		else
			snprintf(why, len, _("%s cannot be opened for writing: %s. Nothing was "
					     "changed."), o->device, strerror(err));
		return -err;
	}
	close(fd);
	if (bench_io_device_signature(o->device, sig, sizeof(sig))) {
		snprintf(why, len, _("%s holds data (%s); writing to it would destroy it. Nothing "
				     "was changed. Leave out --allow-write to measure reading "
				     "only, or erase it first (wipefs -a %s) if the data is not "
				     "needed."), o->device, sig, o->device);
		return -ENOTEMPTY;
	}
	return 0;
}

int bench_io_check_target(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			  uint64_t *size, char *why, size_t len)
{
	if (!!o->dir == !!o->device) {
		snprintf(why, len, _("Name one target: a directory or a block device. Nothing was "
				     "changed."));
		return -EINVAL;
	}
	return o->dir ? check_dir(o, r, size, why, len) : check_device(o, r, size, why, len);
}

int fdw_bench_target_check(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			   char *why, size_t len)
{
	uint64_t size;

	return bench_io_check_target(o, r, &size, why, len);
}

/* /sys/dev/block/M:m of @dev, or of the block device holding the file @dev. */
static bool sysfs_dir_of(const char *dev, char *buf, size_t len)
{
	struct stat st;
	dev_t d;

	if (stat(dev, &st) != 0)
		return false;
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(buf, len, "/sys/dev/block/%u:%u", major(d), minor(d));
	return true;
}

/* Is the device at sysfs @dir, or one it is built on, a loop device without direct I/O? */
static bool buffered_loop_below(const char *dir, int depth)
{
	char path[PATH_MAX + 32], flag[4] = "";
	struct dirent *e;
	bool found = false;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/loop/dio", dir);
	f = fopen(path, "re");
	if (f) {
		found = fgets(flag, sizeof(flag), f) && flag[0] == '0';
		fclose(f);
		return found;
	}
	if (depth > 8)
		return false;
	snprintf(path, sizeof(path), "%s/slaves", dir);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		char below[PATH_MAX + 300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(below, sizeof(below), "%s/slaves/%s", dir, e->d_name);
		found = buffered_loop_below(below, depth + 1);
	}
	if (d)
		closedir(d);
	return found;
}

bool bench_io_buffered_loop(const char *target)
{
	char dir[64];

	return sysfs_dir_of(target, dir, sizeof(dir)) && buffered_loop_below(dir, 0);
}
