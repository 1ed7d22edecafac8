/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a job's volume is on this machine now, and conversions no record belongs to. */
#include "config.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "disk.h"
#include "state/job.h"
#include "job_locate.h"
#include "base/i18n.h"
#include "base/loopdev.h"
#include "base/statedir.h"
#include "base/sysstate.h"
#include "target.h"
#include "volume_id.h"

static int try_address(const char *address, const struct fdw_job *job, struct fdw_target *t)
{
	struct fdw_volume_id now;

	if (!address || !address[0] || fdw_target_open_locate(address, t) != 0)
		return -ENODEV;
	fdw_volume_id_of(&t->disk, t->part, &now);
	if (fdw_job_is_for(job, &now))
		return 0;
	fdw_target_close(t);
	return -ENODEV;
}

/* Any partition of disk or image @path that holds @job's volume. */
static int try_disk(const char *path, const struct fdw_job *job, struct fdw_target *t)
{
	char address[PATH_MAX] = "";
	struct fdw_volume_id now;
	struct fdw_disk d;

	if (fdw_disk_scan_locate(path, &d) != 0)
		return -ENODEV;
	for (size_t i = 0; i < d.n_parts && !address[0]; i++) {
		fdw_volume_id_of(&d, &d.parts[i], &now);
		if (fdw_job_is_for(job, &now))
			snprintf(address, sizeof(address), "%s", d.parts[i].address);
	}
	fdw_disk_free(&d);
	return try_address(address, job, t);
}

/* A loop device attached now over the image the job's volume lives in. */
static int try_loops(const struct fdw_job *job, struct fdw_target *t)
{
	char file[PATH_MAX], dev[PATH_MAX];
	struct dirent *de;
	uint64_t offset;
	struct stat st;
	int rc = -ENODEV;
	DIR *d = opendir("/sys/block");

	if (!d)
		return -ENODEV;
	while (rc && (de = readdir(d))) {
		if (strncmp(de->d_name, "loop", 4) ||
		    fdw_loop_backing(de->d_name, file, sizeof(file), &offset) != 0)
			continue;
		if (stat(file, &st) != 0 || (uint64_t)st.st_ino != job->ident.image_ino ||
		    (uint64_t)st.st_dev != job->ident.image_dev)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
		rc = try_disk(dev, job, t);
	}
	closedir(d);
	return rc;
}

static int try_tag(const char *tag, const char *value, const struct fdw_job *job,
		   struct fdw_target *t)
{
	char *dev;
	int rc;

	if (!value[0])
		return -ENODEV;
	dev = blkid_evaluate_tag(tag, value, NULL);
	if (!dev)
		return -ENODEV;
	rc = try_address(dev, job, t);
	free(dev);
	return rc;
}

int fdw_job_locate(const struct fdw_job *job, struct fdw_target *t)
{
	struct stat st;

	if (try_address(job->address, job, t) == 0)
		return 0;
	if (job->ident.image_ino) {
		/* The image is the medium: wherever it is attached, or the file itself. */
		if (try_loops(job, t) == 0)
			return 0;
		if (stat(job->ident.image, &st) == 0 &&
		    (uint64_t)st.st_ino == job->ident.image_ino &&
		    try_disk(job->ident.image, job, t) == 0)
			return 0;
		return -ENODEV;
	}
	if (!job->detached_header[0])
		return try_tag("UUID", job->id, job, t);
	return try_tag("PARTUUID", job->ident.partuuid, job, t);
}

/* Add the header-only job of each unfinished LUKS2 volume of @d that has no record. */
static int add_unrecorded(const struct fdw_disk *d, struct fdw_job **out, size_t *n)
{
	struct fdw_volume_id now;
	struct fdw_job job, *nv;

	for (size_t i = 0; i < d->n_parts; i++) {
		const struct fdw_partition *p = &d->parts[i];

		if (!p->luks_reencrypt_unfinished || p->luks_version != 2 || !p->uuid)
			continue;
		fdw_volume_id_of(d, p, &now);
		if (fdw_job_for_volume(&now, &job) == 0)
			continue;
		nv = realloc(*out, (*n + 1) * sizeof(**out));
		if (!nv)
			return -ENOMEM;
		*out = nv;
		memset(&nv[*n], 0, sizeof(nv[*n]));
		snprintf(nv[*n].id, sizeof(nv[*n].id), "%s", now.luks_uuid);
		snprintf(nv[*n].address, sizeof(nv[*n].address), "%s", p->address);
		nv[*n].ident = now;
		(*n)++;
	}
	return 0;
}

int fdw_job_unrecorded(struct fdw_job **out, size_t *n)
{
	struct fdw_disk_list list = { 0 };
	char file[PATH_MAX], dev[PATH_MAX];
	struct dirent *de;
	uint64_t offset;
	struct fdw_disk d;
	int rc = 0;
	DIR *dir;

	*out = NULL;
	*n = 0;
	if (fdw_disk_scan_all_locate(&list) == 0)
		for (size_t i = 0; i < list.n_disks && !rc; i++)
			rc = add_unrecorded(&list.disks[i], out, n);
	fdw_disk_list_free(&list);
	/* libparted does not list loop devices: those with a backing file count too. */
	dir = opendir("/sys/block");
	while (!rc && dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "loop", 4) ||
		    fdw_loop_backing(de->d_name, file, sizeof(file), &offset) != 0)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
		if (fdw_disk_scan_locate(dev, &d) != 0)
			continue;
		rc = add_unrecorded(&d, out, n);
		fdw_disk_free(&d);
	}
	if (dir)
		closedir(dir);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void fdw_job_unrecorded_hint(char *buf, size_t len)
{
	snprintf(buf, len, _("No record of it in %s/jobs: another program started it (cryptsetup "
			     "reencrypt), or fdewiz did with another state folder, such as a live "
			     "system's or an installed system's mounted at /mnt (read that one "
			     "with: FDEWIZ_STATE_DIR=/mnt%s %s status)."), fdw_state_dir(),
		 FDW_DEFAULT_STATE_DIR, "fdewiz");
}
