/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Resolves a partition address to scanned facts and a block device covering it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/loopdev.h"
#include "disk_paths.h"
#include "target.h"

/* Split "DISK:N" into the disk path and N; 0 when @address has no such suffix. */
static int split_address(const char *address, char *disk, size_t len, int *number)
{
	const char *colon = strrchr(address, ':');
	char *end;
	long n;

	if (!colon || colon == address)
		return 0;
	n = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || n < 1 || n > 4096)
		return 0;
	if ((size_t)(colon - address) >= len)
		return -ENAMETOOLONG;
	memcpy(disk, address, (size_t)(colon - address));
	disk[colon - address] = '\0';
	*number = (int)n;
	return 1;
}

/* The whole disk a partition node belongs to, from sysfs ("/dev/sda" for "/dev/sda2"). */
static int parent_disk_of(const char *node, char *disk, size_t len, int *number)
{
	char path[PATH_MAX], link[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;
	FILE *f;

	if (stat(node, &st) != 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(path, "re");
	if (!f)
		return 0;	/* not a partition: a whole device */
	if (fscanf(f, "%d", number) != 1)
		*number = 0;
	fclose(f);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	/* .../block/sda/sda2: the parent directory names the disk. */
	slash = strrchr(link, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	slash = strrchr(link, '/');
	if (!slash)
		return -EINVAL;
	snprintf(disk, len, "/dev/%s", slash + 1);
	return 1;
}

static int open_with(const char *address, struct fdw_target *t,
		     int (*scan)(const char *path, struct fdw_disk *out))
{
	char disk[PATH_MAX];
	int number = 0, rc;

	memset(t, 0, sizeof(*t));
	rc = split_address(address, disk, sizeof(disk), &number);
	if (rc == 0) {
		rc = parent_disk_of(address, disk, sizeof(disk), &number);
		if (rc == -ENOTBLK || rc == 0) {
			/* A whole device or a filesystem image: the table must be "none". */
			snprintf(disk, sizeof(disk), "%s", address);
			number = 0;
			rc = 0;
		}
	}
	if (rc < 0)
		return rc;
	rc = scan(disk, &t->disk);
	if (rc)
		return rc;
	for (size_t i = 0; i < t->disk.n_parts; i++)
		if (t->disk.parts[i].number == number)
			t->part = &t->disk.parts[i];
	if (!t->part) {
		rc = number == 0 ? -EISDIR : -ENXIO;
		fdw_disk_free(&t->disk);
		return rc;
	}
	if (t->part->node)
		snprintf(t->device, sizeof(t->device), "%s", t->part->node);
	return 0;
}

int fdw_target_open(const char *address, struct fdw_target *t)
{
	return open_with(address, t, fdw_disk_scan);
}

int fdw_target_open_locate(const char *address, struct fdw_target *t)
{
	return open_with(address, t, fdw_disk_scan_locate);
}

/* Its owner as the scan of every disk sees it, and the verdict decided again with it. */
static void owner_from_all_disks(struct fdw_target *t)
{
	struct fdw_disk_list all;

	if (t->disk.kind != FDW_DISK_BLOCK || !t->part->node || t->part->owner.found ||
	    fdw_disk_scan_all_owners(&all) != 0)
		return;
	for (size_t i = 0; i < all.n_disks; i++)
		for (size_t j = 0; j < all.disks[i].n_parts; j++) {
			const struct fdw_partition *p = &all.disks[i].parts[j];

			if (p->owner.found && p->node && !strcmp(p->node, t->part->node)) {
				t->part->owner = p->owner;
				fdw_verdict_decide(t->part, &t->disk);
			}
		}
	fdw_disk_list_free(&all);
}

int fdw_target_open_to_change(const char *address, struct fdw_target *t)
{
	int rc = fdw_target_open(address, t);

	if (!rc)
		owner_from_all_disks(t);
	return rc;
}

/* The lock file of a block device's bytes: keyed by its number, whatever its name. */
static void blk_lock_path(dev_t rdev, char *path, size_t len)
{
	snprintf(path, len, "%s/blk-%u-%u.lock", FDW_LOCK_DIR, major(rdev), minor(rdev));
}

/* The lock file of @t's bytes, however the user named them. */
static int lock_path(const struct fdw_target *t, char *path, size_t len)
{
	struct stat st;

	if (stat(t->part->node ? t->part->node : t->disk.path, &st) != 0)
		return -errno;
	if (t->part->node)
		blk_lock_path(st.st_rdev, path, len);
	else
		snprintf(path, len, "%s/img-%llu-%llu-%llu.lock", FDW_LOCK_DIR,
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			 (unsigned long long)t->part->start);
	return 0;
}

static int lock_at(const char *path)
{
	int fd, rc;

	/* Locks only matter while processes live: /run (a tmpfs) forgets them at boot. */
	if (mkdir(FDW_LOCK_DIR, 0700) != 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int fdw_target_lock(const struct fdw_target *t)
{
	char path[PATH_MAX + 64];
	int rc = lock_path(t, path, sizeof(path));

	return rc ? rc : lock_at(path);
}

int fdw_target_lock_node(const char *node)
{
	char path[PATH_MAX + 64];
	dev_t rdev;

	if (!fdw_is_block_node(node, &rdev))
		return -ENOTBLK;
	blk_lock_path(rdev, path, sizeof(path));
	return lock_at(path);
}

/* Is @line of /proc/locks a flock held (not waited for) on inode @ino of device @dev? */
static bool locks_line_holds(const char *line, const char *dev, unsigned long long ino)
{
	/* "1: FLOCK  ADVISORY  WRITE 1234 00:19:5678 0 EOF"; a waiter has "->" first. */
	const char *p = strchr(line, ':');
	char kind[16], id[64], *last;

	if (!p || strstr(line, "->") ||
	    sscanf(p + 1, "%15s %*s %*s %*d %63[0-9a-f:]", kind, id) != 2 || strcmp(kind, "FLOCK"))
		return false;
	last = strrchr(id, ':');
	if (!last)
		return false;
	*last = '\0';
	return strtoull(last + 1, NULL, 10) == ino && !strcmp(id, dev);
}

bool fdw_target_lock_held(const struct fdw_target *t)
{
	char path[PATH_MAX + 64], line[256], dev[32];
	bool held = false;
	struct stat st;
	FILE *f;

	if (lock_path(t, path, sizeof(path)) || lstat(path, &st) != 0)
		return false;
	snprintf(dev, sizeof(dev), "%02x:%02x", major(st.st_dev), minor(st.st_dev));
	f = fopen("/proc/locks", "re");
	if (!f)
		return false;
	while (!held && fgets(line, sizeof(line), f))
		held = locks_line_holds(line, dev, (unsigned long long)st.st_ino);
	fclose(f);
	return held;
}

bool fdw_target_lock_open_in(const struct fdw_target *t, pid_t pid)
{
	char path[PATH_MAX + 64], fd_path[64 + NAME_MAX];
	struct stat lock, st;
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (pid <= 0 || lock_path(t, path, sizeof(path)) || lstat(path, &lock) != 0)
		return false;
	snprintf(fd_path, sizeof(fd_path), "/proc/%d/fd", (int)pid);
	d = opendir(fd_path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(fd_path, sizeof(fd_path), "/proc/%d/fd/%s", (int)pid, de->d_name);
		/* stat() follows the descriptor's link to the open file itself. */
		found = stat(fd_path, &st) == 0 && st.st_dev == lock.st_dev &&
			st.st_ino == lock.st_ino;
	}
	closedir(d);
	return found;
}

int fdw_target_attach(struct fdw_target *t)
{
	int fd;

	if (t->device[0])
		return 0;
	fd = fdw_loop_attach(t->disk.path, t->part->start, t->part->size, t->device,
			     sizeof(t->device));
	if (fd < 0) {
		t->device[0] = '\0';
		return fd;
	}
	t->loop_fd = fd;
	t->loop_attached = true;
	return 0;
}

void fdw_target_close(struct fdw_target *t)
{
	/* Our loop device has autoclear: closing the last descriptor detaches it. */
	if (t->loop_attached) {
		close(t->loop_fd);
		if (!t->loop_handed_over)
			fdw_loop_wait_detached(t->device);
	}
	fdw_disk_free(&t->disk);
	memset(t, 0, sizeof(*t));
}
