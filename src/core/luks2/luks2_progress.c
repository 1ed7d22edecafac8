/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Progress of a LUKS2 reencryption from its header's segments, and its speed from two readings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "state/job.h"
#include "base/jsonfile.h"
#include "base/log.h"
#include "luks2_progress.h"
#include "luks2_json.h"

/* Is segment @key bound to a digest that also covers segment @final? */
static bool same_digest(json_object *root, const char *key, const char *final)
{
	json_object *digests;
	bool has_key, has_final;

	if (!json_object_object_get_ex(root, "digests", &digests) ||
	    !json_object_is_type(digests, json_type_object))
		return false;
	json_object_object_foreach(digests, name, d) {
		json_object *segs;
		size_t n;

		(void)name;
		if (!json_object_object_get_ex(d, "segments", &segs) ||
		    !json_object_is_type(segs, json_type_array))
			continue;
		has_key = has_final = false;
		n = json_object_array_length(segs);
		for (size_t i = 0; i < n; i++) {
			const char *s = json_object_get_string(json_object_array_get_idx(segs, i));

			has_key |= s && !strcmp(s, key);
			has_final |= s && !strcmp(s, final);
		}
		if (has_key && has_final)
			return true;
	}
	return false;
}

static int progress_of(json_object *root, uint64_t device_size, uint64_t *done, uint64_t *total)
{
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	const struct fdw_luks2_segment *final = NULL;
	uint64_t sum = 0, bytes;
	size_t n;
	int rc = fdw_luks2_segments(root, segs, FDW_LUKS2_MAX_SEGMENTS, &n);

	if (rc)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (fdw_luks2_segment_flag(&segs[i], "backup-final"))
			final = &segs[i];
	if (!final)
		return -ENOENT;
	if (!fdw_luks2_segment_bytes(final, device_size, total) || !*total)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct fdw_luks2_segment *s = &segs[i];

		if (fdw_luks2_segment_flag(s, "backup-") ||
		    fdw_luks2_segment_flag(s, "in-reencryption") || strcmp(s->type, final->type))
			continue;
		/* Re-encryption: old and new are both "crypt"; the new key's digest tells. */
		if (!strcmp(s->type, "crypt") && !same_digest(root, s->key, final->key))
			continue;
		if (!fdw_luks2_segment_bytes(s, device_size, &bytes) || bytes > UINT64_MAX - sum)
			return -EINVAL;
		sum += bytes;
	}
	*done = sum < *total ? sum : *total;
	return 0;
}

int fdw_luks2_progress(const char *json, uint64_t device_size, uint64_t *done, uint64_t *total)
{
	json_object *root = json ? json_tokener_parse(json) : NULL;
	int rc;

	*done = *total = 0;
	if (!root)
		return -EINVAL;
	rc = json_object_is_type(root, json_type_object) ?
	     progress_of(root, device_size, done, total) : -EINVAL;
	json_object_put(root);
	if (rc)
		*done = *total = 0;
	return rc;
}

uint64_t fdw_device_bytes(const char *path)
{
	uint64_t bytes = 0;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		bytes = (uint64_t)st.st_size;
	else if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
		bytes = 0;
	close(fd);
	return bytes;
}

int fdw_outside_busy(const char *uuid)
{
	char path[PATH_MAX];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/LN_LUKS2-reencryption-%s", FDW_CRYPTSETUP_LOCK_DIR,
		 uuid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return access(FDW_CRYPTSETUP_LOCK_DIR, F_OK) == 0 ? 0 : -ENOENT;
	if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		rc = errno == EWOULDBLOCK ? 1 : -errno;
	close(fd);	/* and with it the shared lock, when it was free */
	return rc;
}

int fdw_outside_rate_from(int busy, uint64_t before_done, uint64_t before_total, double t0,
			  struct fdw_progress *p, double t1)
{
	bool moved = t0 > 0 && before_total == p->total && p->done > before_done && t1 > t0 &&
		     t1 - t0 <= FDW_OUTSIDE_SAMPLE_MAX_S;

	if (p->state == FDW_JOB_COMPLETE || p->state == FDW_JOB_FAILED || busy == 0 ||
	    (busy < 0 && !moved))
		return 0;
	p->state = FDW_JOB_RUNNING;
	p->phase = FDW_PHASE_ENCRYPTING;
	p->pid = 0;
	p->speed = 0;
	p->eta = -1;
	if (moved) {
		p->speed = (double)(p->done - before_done) / (t1 - t0);
		p->eta = (double)(p->total - p->done) / p->speed;
	}
	return 1;
}

void fdw_outside_rate(const struct fdw_job *job, struct fdw_progress *p, double now)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	json_object *o;

	if (!job->id[0] || strchr(job->id, '/') || job->id[0] == '.')
		return;
	snprintf(dir, sizeof(dir), "%s/outside", fdw_state_dir());
	snprintf(path, sizeof(path), "%s/%s.seen", dir, job->id);
	o = json_object_from_file(path);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	fdw_outside_rate_from(fdw_outside_busy(job->id),
			      o ? (uint64_t)fdw_json_get_int(o, "done") : 0,
			      o ? (uint64_t)fdw_json_get_int(o, "total") : 0,
			      o ? fdw_json_get_double(o, "time") : 0, p, now);
	json_object_put(o);
	if (p->state == FDW_JOB_COMPLETE || !p->total) {
		unlink(path);
		return;
	}
	/* Only root's own folder keeps readings; a status that cannot write just has none. */
	if (fdw_state_dir_ensure() != 0 || fdw_private_dir_ensure(dir) != 0)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "time", json_object_new_double(now));
	json_object_object_add(o, "done", json_object_new_int64((int64_t)p->done));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)p->total));
	if (fdw_json_write_atomic(path, o) != 0)
		fdw_log(FDW_LOG_DEBUG, "could not keep the reading of %s in %s", job->id, path);
	json_object_put(o);
}
