/* Resolves a partition address to scanned facts and a block device covering it. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loopdev.h"
#include "sysstate.h"
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

int fdw_target_open(const char *address, struct fdw_target *t)
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
	rc = fdw_disk_scan(disk, &t->disk);
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

/*
 * A loop device left behind by a killed run (exactly this range of this image, nothing
 * mounted on it) is taken over instead of stacking up a new one per crash.
 */
static bool reuse_stale_loop(struct fdw_target *t)
{
	char img_real[PATH_MAX];
	struct fdw_sysstate st;
	bool found = false;

	if (!realpath(t->disk.path, img_real) || fdw_sysstate_load(&st) != 0)
		return false;
	for (size_t i = 0; i < st.n_loops && !found; i++) {
		const struct fdw_loop *lp = &st.loops[i];
		char **mps = NULL;
		size_t n_mps = 0;

		if (strcmp(lp->backing_file, img_real) != 0 || lp->offset != t->part->start ||
		    lp->sizelimit != t->part->size)
			continue;
		snprintf(t->device, sizeof(t->device), "/dev/%s", lp->name);
		fdw_sysstate_mounts_of(&st, makedev(lp->major, lp->minor), t->device, &mps,
				       &n_mps);
		found = n_mps == 0;
		fdw_strv_free(mps, n_mps);
	}
	fdw_sysstate_free(&st);
	if (!found)
		t->device[0] = '\0';
	return found;
}

int fdw_target_attach_owned(struct fdw_target *t)
{
	if (t->device[0])
		return 0;
	if (reuse_stale_loop(t)) {
		t->loop_attached = true;
		return 0;
	}
	return fdw_target_attach(t);
}

int fdw_target_attach(struct fdw_target *t)
{
	int rc;

	if (t->device[0])
		return 0;
	rc = fdw_loop_attach(t->disk.path, t->part->start, t->part->size, t->device,
			     sizeof(t->device));
	if (rc)
		t->device[0] = '\0';
	else
		t->loop_attached = true;
	return rc;
}

void fdw_target_close(struct fdw_target *t)
{
	if (t->loop_attached)
		fdw_loop_detach(t->device);
	fdw_disk_free(&t->disk);
	memset(t, 0, sizeof(*t));
}
