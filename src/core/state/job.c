/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Job records under the state directory, and what a viewer makes of them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/i18n.h"
#include "job.h"
#include "base/jsonfile.h"
#include "base/procid.h"
#include "base/sysstate.h"

/* In the order of enum fdw_job_file; the last two are folders. */
static const char *const file_suffix[] = {
	"json", "status", "log", "seen", "owner", "system", "ownerroot", "root",
};

void fdw_job_file_path_in(const char *dir, const char *id, enum fdw_job_file which, char *buf,
			  size_t len)
{
	snprintf(buf, len, "%s/jobs/%s.%s", dir, id, file_suffix[which]);
}

void fdw_job_file_path(const struct fdw_job *job, enum fdw_job_file which, char *buf, size_t len)
{
	fdw_job_file_path_in(fdw_state_dir(), job->id, which, buf, len);
}

static void job_path(const char *id, char *buf, size_t len)
{
	fdw_job_file_path_in(fdw_state_dir(), id, FDW_JOB_RECORD, buf, len);
}

void fdw_job_status_path(const struct fdw_job *job, char *buf, size_t len)
{
	fdw_job_file_path(job, FDW_JOB_STATUS, buf, len);
}

void fdw_job_log_path(const struct fdw_job *job, char *buf, size_t len)
{
	fdw_job_file_path(job, FDW_JOB_LOG, buf, len);
}

int fdw_job_mark_seen(const struct fdw_job *job)
{
	char path[PATH_MAX];
	int fd;

	/* A job another tool started has the UUID of a header as its id: never a path. */
	if (!fdw_uuid_valid(job->id))
		return -EINVAL;
	fdw_job_file_path(job, FDW_JOB_SEEN, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	/* Seen now: an ending published later (a resume that ran again) is news again. */
	futimens(fd, NULL);
	close(fd);
	return 0;
}

bool fdw_job_ended_unseen(const struct fdw_job *job, const struct fdw_progress *p)
{
	time_t cutoff = time(NULL) - (time_t)FDW_JOB_NEWS_DAYS * 86400;
	char path[PATH_MAX];
	struct stat st;

	if (p->state != FDW_JOB_COMPLETE && p->state != FDW_JOB_FAILED)
		return false;
	if (p->updated < cutoff)
		return false;
	fdw_job_file_path(job, FDW_JOB_SEEN, path, sizeof(path));
	/* The marker answers for the ending it was made after, not for a later one. */
	return lstat(path, &st) != 0 || st.st_mtime < p->updated;
}

static struct json_object *ident_json(const struct fdw_volume_id *id)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "partuuid", json_object_new_string(id->partuuid));
	json_object_object_add(o, "fs_uuid", json_object_new_string(id->fs_uuid));
	json_object_object_add(o, "label", json_object_new_string(id->label));
	json_object_object_add(o, "fstype", json_object_new_string(id->fstype));
	json_object_object_add(o, "disk", json_object_new_string(id->disk));
	json_object_object_add(o, "number", json_object_new_int(id->number));
	json_object_object_add(o, "start", json_object_new_int64((int64_t)id->start));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)id->size));
	json_object_object_add(o, "image", json_object_new_string(id->image));
	json_object_object_add(o, "image_dev", json_object_new_int64((int64_t)id->image_dev));
	json_object_object_add(o, "image_ino", json_object_new_int64((int64_t)id->image_ino));
	json_object_object_add(o, "image_offset",
			       json_object_new_int64((int64_t)id->image_offset));
	return o;
}

/* Records written before identities were kept have none: all stays empty. */
static void ident_load(struct json_object *root, struct fdw_volume_id *id)
{
	struct json_object *o;

	memset(id, 0, sizeof(*id));
	if (!json_object_object_get_ex(root, "identity", &o) ||
	    !json_object_is_type(o, json_type_object))
		return;
	fdw_json_get_str(o, "partuuid", id->partuuid, sizeof(id->partuuid));
	fdw_json_get_str(o, "fs_uuid", id->fs_uuid, sizeof(id->fs_uuid));
	fdw_json_get_str(o, "label", id->label, sizeof(id->label));
	fdw_json_get_str(o, "fstype", id->fstype, sizeof(id->fstype));
	fdw_json_get_str(o, "disk", id->disk, sizeof(id->disk));
	fdw_json_get_str(o, "image", id->image, sizeof(id->image));
	id->number = (int)fdw_json_get_int(o, "number");
	id->start = (uint64_t)fdw_json_get_int(o, "start");
	id->size = (uint64_t)fdw_json_get_int(o, "size");
	id->image_dev = (uint64_t)fdw_json_get_int(o, "image_dev");
	id->image_ino = (uint64_t)fdw_json_get_int(o, "image_ino");
	id->image_offset = (uint64_t)fdw_json_get_int(o, "image_offset");
}

int fdw_job_save(const struct fdw_job *job)
{
	struct json_object *o;
	char path[PATH_MAX];
	int rc = fdw_state_dir_ensure();

	if (rc)
		return rc;
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(job->id));
	json_object_object_add(o, "address", json_object_new_string(job->address));
	json_object_object_add(o, "header_backup", json_object_new_string(job->header_backup));
	json_object_object_add(o, "header_backup_stale",
			       json_object_new_boolean(job->header_backup_stale));
	json_object_object_add(o, "detached_header", json_object_new_string(job->detached_header));
	json_object_object_add(o, "active_name", json_object_new_string(job->active_name));
	json_object_object_add(o, "fs_to_grow", json_object_new_string(job->fs_to_grow));
	json_object_object_add(o, "fstype", json_object_new_string(job->fstype));
	json_object_object_add(o, "cipher", json_object_new_string(job->cipher));
	json_object_object_add(o, "bench_before", json_object_new_string(job->bench_before));
	json_object_object_add(o, "bench_after", json_object_new_string(job->bench_after));
	json_object_object_add(o, "bench_note", json_object_new_string(job->bench_note));
	json_object_object_add(o, "bench_predicted",
			       json_object_new_string(job->bench_predicted));
	json_object_object_add(o, "bench_scale", json_object_new_string(job->bench_scale));
	json_object_object_add(o, "pace", json_object_new_string(job->pace));
	json_object_object_add(o, "created", json_object_new_int64(job->created));
	json_object_object_add(o, "identity", ident_json(&job->ident));
	job_path(job->id, path, sizeof(path));
	rc = fdw_json_write_atomic(path, o);
	json_object_put(o);
	return rc;
}

int fdw_job_load_file(const char *path, struct fdw_job *job)
{
	struct json_object *o = json_object_from_file(path);

	memset(job, 0, sizeof(*job));
	if (!o)
		return -EINVAL;
	fdw_json_get_str(o, "id", job->id, sizeof(job->id));
	fdw_json_get_str(o, "address", job->address, sizeof(job->address));
	fdw_json_get_str(o, "header_backup", job->header_backup, sizeof(job->header_backup));
	job->header_backup_stale = fdw_json_get_int(o, "header_backup_stale") != 0;
	fdw_json_get_str(o, "detached_header", job->detached_header, sizeof(job->detached_header));
	fdw_json_get_str(o, "active_name", job->active_name, sizeof(job->active_name));
	fdw_json_get_str(o, "fs_to_grow", job->fs_to_grow, sizeof(job->fs_to_grow));
	fdw_json_get_str(o, "fstype", job->fstype, sizeof(job->fstype));
	fdw_json_get_str(o, "cipher", job->cipher, sizeof(job->cipher));
	fdw_json_get_str(o, "bench_before", job->bench_before, sizeof(job->bench_before));
	fdw_json_get_str(o, "bench_after", job->bench_after, sizeof(job->bench_after));
	fdw_json_get_str(o, "bench_note", job->bench_note, sizeof(job->bench_note));
	fdw_json_get_str(o, "bench_predicted", job->bench_predicted,
			 sizeof(job->bench_predicted));
	fdw_json_get_str(o, "bench_scale", job->bench_scale, sizeof(job->bench_scale));
	fdw_json_get_str(o, "pace", job->pace, sizeof(job->pace));
	job->created = fdw_json_get_int(o, "created");
	ident_load(o, &job->ident);
	json_object_put(o);
	return job->id[0] && job->address[0] ? 0 : -EINVAL;
}

static int newest_first(const void *a, const void *b)
{
	const struct fdw_job *x = a, *y = b;

	return (x->created < y->created) - (x->created > y->created);
}

int fdw_job_list(struct fdw_job **out, size_t *n)
{
	char dir[PATH_MAX];
	struct dirent *de;
	struct fdw_job *v = NULL;
	size_t count = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/jobs", fdw_state_dir());
	/* Records in a directory others can write are not trusted (and not read). */
	if (access(dir, F_OK) == 0 && (fdw_private_dir_check(fdw_state_dir()) ||
				       fdw_private_dir_check(dir)))
		return -EPERM;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[PATH_MAX + NAME_MAX + 2];
		struct fdw_job job, *nv;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (fdw_job_load_file(path, &job) != 0)
			continue;
		nv = realloc(v, (count + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		v[count++] = job;
	}
	closedir(d);
	if (count > 1)	/* qsort of a NULL array is undefined even for 0 items */
		qsort(v, count, sizeof(*v), newest_first);
	*out = v;
	*n = count;
	return 0;
}

int fdw_job_find_id(const char *id, struct fdw_job *job)
{
	char path[PATH_MAX];

	/* Ids are UUIDs fdewiz made or read from a header: never a path. */
	if (!id[0] || strchr(id, '/') || id[0] == '.')
		return -ENOENT;
	job_path(id, path, sizeof(path));
	if (access(path, F_OK) != 0)
		return -ENOENT;
	return fdw_job_load_file(path, job);
}

bool fdw_job_has_worker(const struct fdw_progress *p)
{
	/* Paused with a pid: its worker waits for the charger (worker.c) and goes on. */
	return p->pid > 0 && (p->state == FDW_JOB_RUNNING || p->state == FDW_JOB_PAUSED);
}

void fdw_job_forget(const struct fdw_job *job)
{
	char path[PATH_MAX];

	/* A record's id is read from its file: never let one name a path outside jobs/. */
	if (!fdw_uuid_valid(job->id))
		return;
	for (int s = FDW_JOB_RECORD; s <= FDW_JOB_SYSTEM; s++) {
		fdw_job_file_path(job, (enum fdw_job_file)s, path, sizeof(path));
		unlink(path);
	}
	/* The mount points only when empty: rmdir leaves a folder with files in it, or with
	 * a filesystem still mounted on it, as it is. */
	fdw_job_file_path(job, FDW_JOB_OWNER_ROOT, path, sizeof(path));
	rmdir(path);
	fdw_job_file_path(job, FDW_JOB_ROOT, path, sizeof(path));
	rmdir(path);
}
