/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a job record's volume says now: its worker's published progress while one runs,
 * else its LUKS2 header, found wherever the volume is on this machine. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/i18n.h"
#include "state/job.h"
#include "job_locate.h"
#include "job_observe.h"
#include "luks2/luks2_peek.h"
#include "luks2/luks2_progress.h"
#include "base/procid.h"
#include "target.h"

static bool worker_alive(const struct fdw_progress *p)
{
	struct fdw_proc_id id = { .pid = p->pid, .start_ticks = p->pid_start };

	snprintf(id.boot_id, sizeof(id.boot_id), "%s", p->boot_id);
	return fdw_proc_id_alive(&id);
}

/*
 * Without a worker, the header is the truth: clean, crashed or finished. It is read by
 * hand, O_RDONLY, straight from the partition's bytes (fdw_luks2_peek()), not through
 * libcryptsetup on a loop device of our own, and without the partition lock:
 *  - crypt_load() repairs a header whose two copies disagree, in place: a viewer (status,
 *    list, pause, the wizard's screens) would write to a partition it holds no lock on,
 *    maybe while a `resume` repairs the same header under that lock;
 *  - taking the lock for a look, even shared, would make an `encrypt` or `resume` that
 *    starts in that instant refuse as if another run held the partition, and a look must
 *    work while a conversion runs, also one `cryptsetup reencrypt` started;
 *  - a loop device attached for the look is itself a holder a starting `resume` refuses.
 * Each copy of the header carries its own checksum: one caught mid-write is passed over
 * for the other, and when both fail the header is being written right now: busy.
 */
static void segment_progress(json_object *json, uint64_t device_size, struct fdw_progress *p)
{
	uint64_t done = 0, total = 0;
	const char *text = json_object_to_json_string_ext(json, JSON_C_TO_STRING_PLAIN);

	if (text && !fdw_luks2_progress(text, device_size, &done, &total) && total) {
		p->done = done;
		p->total = total;
	}
}

static int state_from_header(const struct fdw_job *job, const struct fdw_target *t,
			     struct fdw_progress *p)
{
	bool detached = job->detached_header[0] != '\0';
	const char *path = detached ? job->detached_header :
			   t->part->node ? t->part->node : t->disk.path;
	uint64_t off = detached || t->part->node ? 0 : t->part->start;
	struct fdw_luks2_peek h;
	int rc;

	/* A detached header leaves no signature on the device: the file tells. */
	if (!detached && !t->part->luks_version)
		return -ENOENT;
	rc = fdw_luks2_peek(path, off, detached ? 0 : t->part->size, &h);
	if (rc == -EAGAIN) {
		p->state = p->state == FDW_JOB_PAUSED ? FDW_JOB_PAUSED : FDW_JOB_INTERRUPTED;
		snprintf(p->message, sizeof(p->message), _("busy: neither copy of its LUKS2 "
			 "header reads whole right now: being converted (written this moment), "
			 "or damaged; look again in a moment"));
		return 0;
	}
	if (rc == -EIO)
		return rc;
	if (rc) {
		p->state = FDW_JOB_FAILED;
		return 0;
	}
	if (!h.reencrypt)
		p->state = FDW_JOB_COMPLETE;
	else if (h.crashed)
		p->state = FDW_JOB_NEEDS_REPAIR;
	else
		p->state = p->state == FDW_JOB_PAUSED ? FDW_JOB_PAUSED : FDW_JOB_INTERRUPTED;
	/* How far it got, from the segments: the same for a run of ours and one of cryptsetup's. */
	if (h.reencrypt && h.json)
		segment_progress(h.json, t->part->size, p);
	fdw_luks2_peek_release(&h);
	/* Someone holds the partition now: a `resume` or `encrypt` on its way, say so. */
	if (p->state != FDW_JOB_COMPLETE && fdw_target_lock_held(t))
		snprintf(p->message, sizeof(p->message), _("busy: another fdewiz is working on "
			 "it right now (being converted); look again in a moment"));
	return 0;
}

/* When the header corrects what the record last said, say so in words. */
static void note_disagreement(bool had, enum fdw_job_state said, struct fdw_progress *p)
{
	if (!had || said == p->state)
		return;
	if (said == FDW_JOB_COMPLETE) {
		snprintf(p->message, sizeof(p->message), _("the record says complete, but the "
			 "LUKS2 header says the conversion is unfinished; the header is right"));
	} else if (p->state == FDW_JOB_COMPLETE) {
		snprintf(p->message, sizeof(p->message), _("the LUKS2 header says the conversion "
			 "is complete; the record said %s"), fdw_job_state_name(said));
		p->done = p->total;
	}
}

int fdw_job_observe_at(const struct fdw_job *job, struct fdw_progress *p, char *where,
		       size_t len)
{
	enum fdw_job_state said;
	char path[PATH_MAX];
	struct fdw_target t;
	bool had;
	int rc;

	if (where && len)
		where[0] = '\0';
	fdw_job_status_path(job, path, sizeof(path));
	rc = fdw_progress_read(path, p);
	if (rc && rc != -ENOENT)
		return rc;
	if (rc)
		memset(p, 0, sizeof(*p));
	had = rc == 0;
	said = p->state;
	if (had && fdw_job_has_worker(p) && worker_alive(p)) {
		if (where && len)
			snprintf(where, len, "%s", job->address);
		return 0;
	}
	p->pid = 0;
	p->speed = 0;
	p->eta = -1;
	if (fdw_job_locate(job, &t) != 0) {
		/* Not on this machine now: what was last published is all there is. */
		if (!had || p->state == FDW_JOB_RUNNING)
			p->state = FDW_JOB_INTERRUPTED;
		return had && p->state == FDW_JOB_COMPLETE ? 0 : -ENODEV;
	}
	if (where && len)
		snprintf(where, len, "%s", t.part->address);
	rc = state_from_header(job, &t, p);
	fdw_target_close(&t);
	if (!rc)
		note_disagreement(had, said, p);
	return rc;
}

int fdw_job_observe(const struct fdw_job *job, struct fdw_progress *p)
{
	return fdw_job_observe_at(job, p, NULL, 0);
}

int fdw_job_prune(int days)
{
	time_t cutoff = time(NULL) - (time_t)days * 86400;
	struct fdw_progress p;
	struct fdw_job *v;
	char path[PATH_MAX];
	size_t n;
	int rc = fdw_job_list(&v, &n);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		fdw_job_status_path(&v[i], path, sizeof(path));
		/* Only what the worker itself published as complete, long ago; never a
		 * decryption's record, the one way to its header while it runs. */
		if (v[i].direction[0] || fdw_progress_read(path, &p) != 0 || p.state != FDW_JOB_COMPLETE ||
		    p.updated >= cutoff || v[i].created >= cutoff)
			continue;
		/* The header must agree, or the volume be gone from this machine. */
		if (fdw_job_observe(&v[i], &p) != 0 || p.state != FDW_JOB_COMPLETE)
			continue;
		fdw_job_forget(&v[i]);
	}
	free(v);
	return 0;
}
