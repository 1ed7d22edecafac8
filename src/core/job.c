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

#include "convert.h"
#include "job.h"
#include "jsonfile.h"
#include "procid.h"
#include "sysstate.h"
#include "target.h"

int fdw_new_uuid(char *buf, size_t len)
{
	return fdw_read_line_file("/proc/sys/kernel/random/uuid", buf, len);
}

static void job_path(const char *id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/jobs/%s.json", fdw_state_dir(), id);
}

void fdw_job_status_path(const struct fdw_job *job, char *buf, size_t len)
{
	snprintf(buf, len, "%s/jobs/%s.status", fdw_state_dir(), job->id);
}

void fdw_job_log_path(const struct fdw_job *job, char *buf, size_t len)
{
	snprintf(buf, len, "%s/jobs/%s.log", fdw_state_dir(), job->id);
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
	json_object_object_add(o, "detached_header", json_object_new_string(job->detached_header));
	json_object_object_add(o, "active_name", json_object_new_string(job->active_name));
	json_object_object_add(o, "fs_to_grow", json_object_new_string(job->fs_to_grow));
	json_object_object_add(o, "fstype", json_object_new_string(job->fstype));
	json_object_object_add(o, "cipher", json_object_new_string(job->cipher));
	json_object_object_add(o, "bench_before", json_object_new_string(job->bench_before));
	json_object_object_add(o, "bench_after", json_object_new_string(job->bench_after));
	json_object_object_add(o, "bench_note", json_object_new_string(job->bench_note));
	json_object_object_add(o, "bench_scale", json_object_new_string(job->bench_scale));
	json_object_object_add(o, "created", json_object_new_int64(job->created));
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
	fdw_json_get_str(o, "detached_header", job->detached_header, sizeof(job->detached_header));
	fdw_json_get_str(o, "active_name", job->active_name, sizeof(job->active_name));
	fdw_json_get_str(o, "fs_to_grow", job->fs_to_grow, sizeof(job->fs_to_grow));
	fdw_json_get_str(o, "fstype", job->fstype, sizeof(job->fstype));
	fdw_json_get_str(o, "cipher", job->cipher, sizeof(job->cipher));
	fdw_json_get_str(o, "bench_before", job->bench_before, sizeof(job->bench_before));
	fdw_json_get_str(o, "bench_after", job->bench_after, sizeof(job->bench_after));
	fdw_json_get_str(o, "bench_note", job->bench_note, sizeof(job->bench_note));
	fdw_json_get_str(o, "bench_scale", job->bench_scale, sizeof(job->bench_scale));
	job->created = fdw_json_get_int(o, "created");
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

int fdw_job_find(const char *address, struct fdw_job *job)
{
	struct fdw_job *v;
	size_t n;
	int rc = fdw_job_list(&v, &n);

	if (rc)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < n && rc; i++)
		if (!strcmp(v[i].address, address)) {
			*job = v[i];
			rc = 0;
		}
	free(v);
	return rc;
}

static bool worker_alive(const struct fdw_progress *p)
{
	struct fdw_proc_id id = { .pid = p->pid, .start_ticks = p->pid_start };

	snprintf(id.boot_id, sizeof(id.boot_id), "%s", p->boot_id);
	return fdw_proc_id_alive(&id);
}

/* Without a worker, the header is the truth: clean, crashed or finished. */
static int state_from_header(const struct fdw_job *job, struct fdw_progress *p)
{
	struct fdw_convert_status cs;
	struct fdw_volume v = { 0 };
	struct fdw_target t;
	bool detached = job->detached_header[0] != '\0';
	int rc = fdw_target_open(job->address, &t);

	if (rc)
		return rc;
	/* A detached header leaves no signature on the device: the file tells. */
	if (!detached && !t.part->luks_version) {
		fdw_target_close(&t);
		return -ENOENT;
	}
	if (!detached && !t.part->luks_reencrypt_unfinished) {
		p->state = FDW_JOB_COMPLETE;
		fdw_target_close(&t);
		return 0;
	}
	/* Telling a crash from a clean stop needs libcryptsetup and a device. */
	rc = fdw_target_attach(&t);
	v.device = t.device;
	v.header = detached ? job->detached_header : NULL;
	if (!rc)
		rc = fdw_convert_status(&v, &cs);
	fdw_target_close(&t);
	if (rc)
		return rc;
	if (cs.state == FDW_CONVERT_COMPLETE || cs.state == FDW_CONVERT_NONE) {
		p->state = cs.state == FDW_CONVERT_COMPLETE ? FDW_JOB_COMPLETE : FDW_JOB_FAILED;
		return 0;
	}
	p->state = cs.state == FDW_CONVERT_NEEDS_REPAIR ? FDW_JOB_NEEDS_REPAIR :
		   p->state == FDW_JOB_PAUSED ? FDW_JOB_PAUSED : FDW_JOB_INTERRUPTED;
	return 0;
}

int fdw_job_observe(const struct fdw_job *job, struct fdw_progress *p)
{
	char path[PATH_MAX];
	int rc;

	fdw_job_status_path(job, path, sizeof(path));
	rc = fdw_progress_read(path, p);
	if (rc && rc != -ENOENT)
		return rc;
	if (!rc && p->state == FDW_JOB_RUNNING && worker_alive(p))
		return 0;
	if (!rc && p->state == FDW_JOB_COMPLETE)
		return 0;
	p->pid = 0;
	p->speed = 0;
	p->eta = -1;
	return state_from_header(job, p);
}
