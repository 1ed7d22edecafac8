/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which disks the machine has to scan: libparted's, and those of /sys/block it left out. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <parted/parted.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "disk_paths.h"
#include "base/log.h"

bool fdw_is_block_node(const char *path, dev_t *rdev)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		return false;
	*rdev = st.st_rdev;
	return true;
}

/* Devices that are never worth listing: empty loop devices and RAM disks. */
static bool skip_device(const PedDevice *dev)
{
	return dev->length == 0 || !strncmp(dev->path, "/dev/ram", 8) ||
	       !strncmp(dev->path, "/dev/zram", 9);
}

/* The paths of the devices libparted finds, copied: scanning one destroys its PedDevice. */
static int probe_paths(char ***paths, size_t *n)
{
	PedDevice *dev = NULL;

	*paths = NULL;
	*n = 0;
	ped_device_probe_all();
	while ((dev = ped_device_get_next(dev))) {
		char **nv;

		if (skip_device(dev))
			continue;
		nv = realloc(*paths, (*n + 1) * sizeof(*nv));
		if (!nv || !(nv[*n] = strdup(dev->path))) {
			*paths = nv ? nv : *paths;
			return -ENOMEM;
		}
		*paths = nv;
		(*n)++;
	}
	return 0;
}

/* The device number and size (in 512-byte sectors) /sys/block/@name gives; false: none. */
static bool sysblock_facts(const char *name, dev_t *rdev, unsigned long long *sectors)
{
	char path[PATH_MAX];
	unsigned maj, min;
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	f = fopen(path, "re");
	if (!f)
		return false;
	got = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	if (got != 2)
		return false;
	*rdev = makedev(maj, min);
	snprintf(path, sizeof(path), "/sys/block/%s/size", name);
	f = fopen(path, "re");
	if (!f)
		return false;
	got = fscanf(f, "%llu", sectors);
	fclose(f);
	return got == 1;
}

static bool node_opens(const char *node)
{
	int fd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool rdev_listed(char **paths, size_t n, dev_t rdev)
{
	dev_t other;

	for (size_t i = 0; i < n; i++)
		if (fdw_is_block_node(paths[i], &other) && other == rdev)
			return true;
	return false;
}

/*
 * The disks of /sys/block that libparted left out. It leaves out, without a word, a disk
 * it cannot open (a container's device rules, a nodev mount, a security policy): the
 * lists would say "No disks found" on a machine whose only disk exists. Each is added, by
 * its device number (never by comparing names: libparted names device-mapper disks
 * /dev/mapper/NAME), so that scanning it names it with the reason. Skipped as libparted's
 * are: empty devices and RAM disks; and a disk with no node in /dev of its number.
 */
static int add_unprobed(char ***paths, size_t *n)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *e;
	int rc = 0;

	if (!dir)
		return 0;
	while (!rc && (e = readdir(dir))) {
		char node[PATH_MAX], **nv;
		unsigned long long sectors;
		dev_t rdev, found;

		if (e->d_name[0] == '.' || !strncmp(e->d_name, "ram", 3) ||
		    !strncmp(e->d_name, "zram", 4))
			continue;
		if (!sysblock_facts(e->d_name, &rdev, &sectors) || !sectors ||
		    rdev_listed(*paths, *n, rdev))
			continue;
		snprintf(node, sizeof(node), "/dev/%s", e->d_name);
		for (char *c = node; *c; c++)
			if (*c == '!')	/* sysfs spells '/' in a name that way (cciss!c0d0) */
				*c = '/';
		if (!fdw_is_block_node(node, &found) || found != rdev) {
			fdw_log(FDW_LOG_DEBUG, "%s: in /sys/block but no node of its number", node);
			continue;
		}
		/* libparted leaves loop devices out by design (an image is listed by its file, a
		 * loop device when named; a snap system has dozens): only one that cannot be
		 * opened is news here. */
		if (!strncmp(e->d_name, "loop", 4) && node_opens(node))
			continue;
		fdw_log(FDW_LOG_DEBUG, "%s: not found by libparted; scanned on its own", node);
		nv = realloc(*paths, (*n + 1) * sizeof(*nv));
		if (!nv || !(nv[*n] = strdup(node))) {
			*paths = nv ? nv : *paths;
			rc = -ENOMEM;
			break;
		}
		*paths = nv;
		(*n)++;
	}
	closedir(dir);
	return rc;
}

int fdw_disk_paths(char ***paths, size_t *n)
{
	int rc = probe_paths(paths, n);

	if (!rc)
		rc = add_unprobed(paths, n);
	return rc;
}
