/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who a volume is, and which job record belongs to it: never found by a reused name alone. */
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
#include "job.h"
#include "sysstate.h"
#include "target.h"

static void read_partuuid(const char *disk, int number, char *out, size_t len)
{
	blkid_partlist pl;
	blkid_partition bp;
	blkid_probe pr;
	const char *u;

	out[0] = '\0';
	if (number <= 0)
		return;
	pr = blkid_new_probe_from_filename(disk);
	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	pl = blkid_probe_get_partitions(pr);
	bp = pl ? blkid_partlist_get_partition_by_partno(pl, number) : NULL;
	u = bp ? blkid_partition_get_uuid(bp) : NULL;
	if (u)
		snprintf(out, len, "%s", u);
	blkid_free_probe(pr);
}

/* The backing file and offset of loop device @name ("loop3"); 0 or -ENOENT. */
static int loop_backing(const char *name, char *file, size_t len, uint64_t *offset)
{
	char path[PATH_MAX], off[32];

	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name);
	if (fdw_read_line_file(path, file, len) != 0 || !file[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/offset", name);
	*offset = fdw_read_line_file(path, off, sizeof(off)) == 0 ? strtoull(off, NULL, 10) : 0;
	return 0;
}

/* The image file under @disk (an image itself, or a loop device over one). */
static void image_of(const struct fdw_disk *disk, const struct fdw_partition *part,
		     struct fdw_volume_id *id)
{
	char real[PATH_MAX], file[PATH_MAX];
	const char *base;
	uint64_t offset = 0;
	struct stat st;

	if (disk->kind == FDW_DISK_IMAGE) {
		if (!realpath(disk->path, file))
			snprintf(file, sizeof(file), "%s", disk->path);
	} else {
		if (!realpath(disk->path, real))
			snprintf(real, sizeof(real), "%s", disk->path);
		base = strrchr(real, '/');
		base = base ? base + 1 : real;
		if (strncmp(base, "loop", 4) || loop_backing(base, file, sizeof(file), &offset))
			return;
	}
	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	snprintf(id->image, sizeof(id->image), "%s", file);
	id->image_dev = (uint64_t)st.st_dev;
	id->image_ino = (uint64_t)st.st_ino;
	id->image_offset = offset + part->start;
}

void fdw_volume_id_of(const struct fdw_disk *disk, const struct fdw_partition *part,
		      struct fdw_volume_id *id)
{
	bool luks = part->luks_version == 2 && part->uuid;

	memset(id, 0, sizeof(*id));
	snprintf(id->luks_uuid, sizeof(id->luks_uuid), "%s", luks ? part->uuid : "");
	snprintf(id->fs_uuid, sizeof(id->fs_uuid), "%s",
		 !part->luks_version && part->uuid ? part->uuid : "");
	snprintf(id->label, sizeof(id->label), "%s", part->label ? part->label : "");
	snprintf(id->fstype, sizeof(id->fstype), "%s", part->fstype ? part->fstype : "");
	snprintf(id->disk, sizeof(id->disk), "%s", disk->path);
	id->number = part->number;
	id->start = part->start;
	id->size = part->size;
	read_partuuid(disk->path, part->number, id->partuuid, sizeof(id->partuuid));
	image_of(disk, part, id);
}

/* The same bytes on the same medium, however they are reached now. */
static bool same_place(const struct fdw_volume_id *a, const struct fdw_volume_id *b)
{
	if (a->image_ino || b->image_ino)
		return a->image_ino == b->image_ino && a->image_dev == b->image_dev &&
		       a->image_offset == b->image_offset;
	if (a->partuuid[0] && b->partuuid[0])
		return !strcasecmp(a->partuuid, b->partuuid);
	return a->disk[0] && !strcmp(a->disk, b->disk) && a->number == b->number &&
	       a->start == b->start;
}

bool fdw_job_is_for(const struct fdw_job *job, const struct fdw_volume_id *now)
{
	/* The header is the truth: its UUID is the job id fdewiz gave it. */
	if (now->luks_uuid[0])
		return !strcasecmp(job->id, now->luks_uuid);
	/* No header on the device: only a conversion with a detached header fits. */
	if (!job->detached_header[0])
		return false;
	if (!job->ident.disk[0])
		return false;	/* an old record without identity: nothing to prove it */
	return same_place(&job->ident, now);
}

int fdw_job_for_volume(const struct fdw_volume_id *now, struct fdw_job *job)
{
	struct fdw_job *v;
	size_t n;
	int rc = fdw_job_list(&v, &n);

	if (rc)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < n && rc; i++)	/* newest first */
		if (fdw_job_is_for(&v[i], now)) {
			*job = v[i];
			rc = 0;
		}
	free(v);
	return rc;
}

static int try_address(const char *address, const struct fdw_job *job, struct fdw_target *t)
{
	struct fdw_volume_id now;

	if (!address || !address[0] || fdw_target_open(address, t) != 0)
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

	if (fdw_disk_scan(path, &d) != 0)
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
		    loop_backing(de->d_name, file, sizeof(file), &offset) != 0)
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
	if (fdw_disk_scan_all(&list) == 0)
		for (size_t i = 0; i < list.n_disks && !rc; i++)
			rc = add_unrecorded(&list.disks[i], out, n);
	fdw_disk_list_free(&list);
	/* libparted does not list loop devices: those with a backing file count too. */
	dir = opendir("/sys/block");
	while (!rc && dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "loop", 4) ||
		    loop_backing(de->d_name, file, sizeof(file), &offset) != 0)
			continue;
		snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
		if (fdw_disk_scan(dev, &d) != 0)
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
