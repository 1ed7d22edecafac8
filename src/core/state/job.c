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
#include "step_record.h"
#include "base/procid.h"
#include "base/sysstate.h"

/* In the order of enum fdw_job_file; the last two are folders. */
static const char *const file_suffix[] = {
	"json", "status", "log", "seen", "owner", "system", "decrypting", "ownerroot", "root",
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

/* The partition's identity as the record keeps it (its LUKS2 UUID is the job's id). */
static const struct fdw_record_field ident_fields[] = {
	FDW_REC_FIELD(struct fdw_volume_id, partuuid, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_volume_id, fs_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_volume_id, label, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_volume_id, fstype, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_volume_id, disk, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_volume_id, number, FDW_REC_INT),
	FDW_REC_FIELD(struct fdw_volume_id, start, FDW_REC_U64),
	FDW_REC_FIELD(struct fdw_volume_id, size, FDW_REC_U64),
	FDW_REC_FIELD(struct fdw_volume_id, image, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_volume_id, image_dev, FDW_REC_U64),
	FDW_REC_FIELD(struct fdw_volume_id, image_ino, FDW_REC_U64),
	FDW_REC_FIELD(struct fdw_volume_id, image_offset, FDW_REC_U64),
};

/* Records written before identities were kept have no "identity": it stays empty. */
static const struct fdw_record_field job_fields[] = {
	FDW_REC_FIELD(struct fdw_job, id, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, address, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, header_backup, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, header_backup_stale, FDW_REC_BOOL),
	FDW_REC_FIELD(struct fdw_job, detached_header, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, active_name, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, fs_to_grow, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, fstype, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, cipher, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, bench_before, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, bench_after, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, bench_note, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, bench_predicted, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, bench_scale, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, pace, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, direction, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_job, created, FDW_REC_I64),
	FDW_REC_OBJECT(struct fdw_job, ident, "identity", ident_fields),
};

static bool job_fits(const void *rec)
{
	const struct fdw_job *job = rec;

	return job->id[0] && job->address[0];
}

/* The job's record, jobs/<id>.json; no steps, its id in its name (fdw_job_find_id). */
static const struct fdw_step_record job_kind = {
	.kind = "job",
	.size = sizeof(struct fdw_job),
	.fields = job_fields,
	.n_fields = sizeof(job_fields) / sizeof(job_fields[0]),
	.fits = job_fits,
	.misfit = "a job record without its id or the volume's address",
};

int fdw_job_save(const struct fdw_job *job)
{
	char path[PATH_MAX];
	int rc = fdw_state_dir_ensure();

	if (rc)
		return rc;
	job_path(job->id, path, sizeof(path));
	return fdw_step_record_save_file(&job_kind, path, job);
}

int fdw_job_load_file(const char *path, struct fdw_job *job)
{
	char why[PATH_MAX + 128];

	return fdw_step_record_load_file(&job_kind, path, NULL, job, why, sizeof(why)) ? -EINVAL
										       : 0;
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
