/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz decrypt`: a LUKS2 volume turned back into plain data in place, in this process. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decrypt_flow.h"
#include "encrypt_internal.h"
#include "job_control.h"
#include "base/clock.h"
#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/procid.h"
#include "base/statedir.h"
#include "base/stopsig.h"
#include "base/testhook.h"
#include "base/uuid.h"
#include "boot/crypttab.h"
#include "disk/fsresize.h"
#include "luks2/convert.h"
#include "luks2/decrypt.h"
#include "state/job.h"
#include "state/progress.h"

/* The running system's table of volumes opened at its start. */
#define CRYPTTAB_PATH "/etc/crypttab"

static volatile sig_atomic_t stop_requested;

struct fdw_decrypt {
	struct fdw_target t;
	int lock;
	bool continuing;
};

struct dec_run {
	const struct fdw_foreground_ops *ops;
	struct fdw_foreground_progress p;
	double start, last_report, last_published;
	/* What status, the wizard and pause read: the job's status file, as a worker's. */
	char path[PATH_MAX];
	struct fdw_progress pub;
	struct fdw_speed_window speed;
};

static void publish(struct dec_run *run)
{
	run->pub.updated = time(NULL);
	if (fdw_progress_write(run->path, &run->pub) != 0)
		fdw_log(FDW_LOG_WARN, "could not publish progress to %s", run->path);
}

/* Running, by this process (pause signals it), decrypting. */
static void publish_start(struct dec_run *run, const struct fdw_job *job)
{
	struct fdw_proc_id self;

	fdw_job_status_path(job, run->path, sizeof(run->path));
	memset(&run->pub, 0, sizeof(run->pub));
	run->pub.state = FDW_JOB_RUNNING;
	run->pub.phase = FDW_PHASE_DECRYPTING;
	run->pub.eta = -1;
	if (fdw_proc_id_self(&self) == 0) {
		run->pub.pid = self.pid;
		run->pub.pid_start = self.start_ticks;
		snprintf(run->pub.boot_id, sizeof(run->pub.boot_id), "%s", self.boot_id);
	}
	run->start = fdw_now_s();
	publish(run);
}

/* Stopped: paused by the person, interrupted by the system, or failed. */
static void publish_end(struct dec_run *run, int rc)
{
	run->pub.state = rc == -EINTR ? (fdw_stop_by_system(stop_requested) ? FDW_JOB_INTERRUPTED
									    : FDW_JOB_PAUSED)
				      : FDW_JOB_FAILED;
	run->pub.pid = 0;
	run->pub.speed = 0;
	run->pub.eta = -1;
	if (rc != -EINTR)
		snprintf(run->pub.message, sizeof(run->pub.message), "%s", strerror(-rc));
	publish(run);
}

static int on_step(uint64_t done, uint64_t total, void *ctx)
{
	struct dec_run *run = ctx;
	double t = fdw_now_s() - run->start;

	fdw_ops_progress(run->ops, &run->p, &run->last_report, done, total, t);
	fdw_speed_add(&run->speed, t, done);
	if (t - run->last_published >= 1.0 || done == total) {
		run->last_published = t;
		run->pub.done = done;
		run->pub.total = total;
		run->pub.elapsed = t;
		run->pub.eta = fdw_speed_eta(&run->speed, t, total, &run->pub.speed);
		publish(run);
	}
	return stop_requested != 0;
}

/*
 * This system opens the volume at its start: once it is plain, that start would wait for
 * a LUKS2 volume that is no more, and fstab's mount of /dev/mapper/NAME would fail with
 * it. Until fdewiz rewrites those lines itself, the person does, first.
 */
static int opened_at_boot(const struct fdw_partition *p, const char *uuid, const char *header,
			  char *why, size_t len)
{
	char *text = NULL, name[128];
	unsigned line = 0;
	int found;

	if (fdw_read_file(CRYPTTAB_PATH, 1 << 20, 0, &text, NULL, NULL) != 0)
		return 0;
	found = fdw_crypttab_find_uuid(text, uuid, name, sizeof(name), &line) ||
		(header && fdw_crypttab_find_header(text, header, name, sizeof(name), &line));
	free(text);
	if (!found)
		return 0;
	snprintf(why, len, _("%s opens %s at each start (line %u, as %s): once it is plain, "
			     "the start would wait for it. Remove that line, and make the fstab "
			     "line that mounts /dev/mapper/%s name the filesystem (UUID=), then "
			     "decrypt. Nothing was changed."), CRYPTTAB_PATH, p->address, line,
		 name, name);
	return -EBUSY;
}

static int decrypt_check(const struct fdw_target *t, bool *continuing, char *why, size_t len)
{
	const struct fdw_partition *p = t->part;
	const char *uuid;
	struct fdw_job job;
	bool recorded = false;

	*continuing = fdw_job_for_target(t, &job, &recorded) == 0 && recorded &&
		      !strcmp(job.direction, "decrypt");
	if (p->n_mountpoints || p->n_holders) {
		snprintf(why, len, _("%s is in use (%s): unmount and close it first; fdewiz "
				     "decrypts offline. Nothing was changed."), p->address,
			 p->n_mountpoints ? p->mountpoints[0] : p->holders[0]);
		return -EBUSY;
	}
	if (*continuing)
		return 0;
	if (p->luks_version != 2) {
		snprintf(why, len, _("%s is not a LUKS2 volume: there is nothing to decrypt. "
				     "Nothing was changed."), p->address);
		return -EINVAL;
	}
	if (p->luks_reencrypt_unfinished) {
		snprintf(why, len, _("the encryption of %s is unfinished: finish it first with "
				     "'fdewiz resume %s'. Nothing was changed."), p->address,
			 p->address);
		return -EINVAL;
	}
	/* A detached header's volume is known by its record, whose id is its UUID. */
	uuid = p->detached_header ? (recorded ? job.id : NULL) : p->uuid;
	if (!uuid || !fdw_uuid_valid(uuid)) {
		snprintf(why, len, _("the LUKS2 header of %s has no valid UUID. Nothing was "
				     "changed."), p->address);
		return -EINVAL;
	}
	return opened_at_boot(p, uuid, p->detached_header, why, len);
}

/* "disk.img:2" -> STATE/disk.img-2-TIME.before-decrypt: a colon confuses scp. */
static void default_backup_path(const char *address, char *out, size_t len)
{
	const char *base = strrchr(address, '/');

	base = base ? base + 1 : address;
	snprintf(out, len, "%s/%s-%ld.before-decrypt.header", fdw_state_dir(), base,
		 (long)time(NULL));
	for (char *c = strrchr(out, '/'); c && *c; c++)
		if (*c == ':')
			*c = '-';
}

/* The record of the decryption: its header copy in the state folder, its backup. */
static void fill_job(const struct fdw_target *t, struct fdw_job *job, const char *backup)
{
	snprintf(job->address, sizeof(job->address), "%s", t->part->address);
	snprintf(job->direction, sizeof(job->direction), "decrypt");
	fdw_job_file_path(job, FDW_JOB_DECRYPT_HEADER, job->detached_header,
			  sizeof(job->detached_header));
	if (backup)
		snprintf(job->header_backup, sizeof(job->header_backup), "%s", backup);
	else
		default_backup_path(t->part->address, job->header_backup,
				    sizeof(job->header_backup));
	job->header_backup_stale = false;
	job->created = (int64_t)time(NULL);
}

/* What libblkid finds on the plain device now: the filesystem to grow. */
static void plain_fstype(const char *device, char *out, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(device);
	const char *type = NULL;

	out[0] = '\0';
	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0)
		snprintf(out, len, "%s", type);
	blkid_free_probe(pr);
}

/* The data is plain and at the start: the filesystem gets the header's room back, then
 * the copy of the header and the record go. */
static int finish(const struct fdw_target *t, const struct fdw_job *job,
		  const struct fdw_foreground_ops *ops)
{
	char fstype[32];

	fdw_test_point("decrypt-before-grow");
	plain_fstype(t->device, fstype, sizeof(fstype));
	if (!fstype[0])
		fdw_ops_say(ops, FDW_SAY_WARNING,
			    _("no filesystem was recognised on %s after the decryption; its "
			      "size was left as it was."), job->address);
	else if (fdw_fs_grow(t->device, fstype) != 0)
		fdw_ops_say(ops, FDW_SAY_WARNING,
			    _("the %s filesystem on %s could not be grown to fill the "
			      "partition (the log says why); the data is intact and plain. "
			      "Grow it by hand (resize2fs, or btrfs filesystem resize max)."),
			    fstype, job->address);
	fdw_test_point("decrypt-grown");
	if (unlink(job->detached_header) != 0 && errno != ENOENT)
		return -errno;
	fdw_sync_path(fdw_state_dir());
	fdw_job_forget(job);
	return 0;
}

/*
 * The record saved: before anything changes when the header is on the partition (after a
 * kill it is the one way to the header, once the partition's is wiped); with a detached
 * header only once the copy records the decryption (until then the encryption's record
 * names the header file, as it must).
 */
static int save_record(const struct fdw_job *job, const struct fdw_foreground_ops *ops)
{
	int rc = fdw_job_save(job);

	if (rc)
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("the record of the decryption could not be written in %s (%s). "
			      "Nothing was changed."), fdw_state_dir(), strerror(-rc));
	return rc;
}

/* Begin (or begin again) unless the working header already records the decryption. */
static int begin(struct fdw_target *t, const char *backup, struct fdw_secret *pass,
		 struct fdw_job *job, bool had, const struct fdw_foreground_ops *ops)
{
	struct fdw_job before = *job;
	bool fresh = strcmp(job->direction, "decrypt") != 0;
	const char *source = fresh && t->part->detached_header ? before.detached_header : NULL;
	char why[1024], path[PATH_MAX];
	int rc;

	if (!fresh && fdw_decrypt_state(t->device, NULL, job->detached_header) >=
			      FDW_DECRYPT_RUNNING)
		return 0;
	if (fresh)
		fill_job(t, job, backup);
	if (fresh && !source && (rc = save_record(job, ops)) != 0)
		return rc;
	rc = fdw_decrypt_begin(t->device, source, job->detached_header, job->header_backup, pass,
			       why, sizeof(why));
	if (!rc && source && (rc = save_record(job, ops)) != 0) {
		unlink(job->detached_header);
		return rc;
	}
	if (!rc) {
		/* The encryption's published ending is not this job's. */
		fdw_job_status_path(job, path, sizeof(path));
		unlink(path);
		fdw_ops_say(ops, FDW_SAY_INFO, _("The header of %s is saved in %s."),
			    job->address, job->header_backup);
		if (source)
			fdw_ops_say(ops, FDW_SAY_INFO,
				    _("Its header file %s describes nothing once the data is "
				      "plain: delete it then."), source);
		return 0;
	}
	if (fdw_decrypt_state(t->device, source, job->detached_header) == FDW_DECRYPT_NOT_BEGUN) {
		/* Nothing changed: the encryption's record, if there was one, as it was. */
		if (had && fresh)
			fdw_job_save(&before);
		else if (!had)
			fdw_job_forget(job);
		fdw_ops_say(ops, FDW_SAY_ERROR, _("%s: %s. Nothing was changed."), job->address,
			    why);
	} else {
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("%s: %s. The data is intact; its header is kept in %s. Run "
			      "'fdewiz decrypt %s' again to go on."), job->address, why,
			    job->detached_header, job->address);
	}
	return rc;
}

static void say_stopped(const struct dec_run *run, const struct fdw_job *job, int rc)
{
	if (rc == -EINTR)
		fdw_ops_say(run->ops, FDW_SAY_INFO,
			    _("Stopped at a safe point at %.1f%%. The data is intact; continue "
			      "with 'fdewiz decrypt %s'."), run->p.percent, job->address);
	else if (rc == -EPERM)
		fdw_ops_say(run->ops, FDW_SAY_ERROR,
			    _("the passphrase does not open %s. The data is intact; run "
			      "'fdewiz decrypt %s' again with the right passphrase."),
			    job->address, job->address);
	else
		fdw_ops_say(run->ops, FDW_SAY_ERROR,
			    _("the decryption stopped at %.1f%%: %s. The data is intact: every "
			      "step is journalled in its header (%s). Run 'fdewiz decrypt %s' "
			      "again to go on."), run->p.percent, strerror(-rc),
			    job->detached_header, job->address);
}

static int decrypt_foreground(struct fdw_target *t, const char *backup, struct fdw_secret *pass,
			      const struct fdw_foreground_ops *ops)
{
	struct dec_run run = { .ops = ops, .last_report = -1 };
	struct fdw_stop_signals saved;
	struct fdw_job job;
	bool recorded;
	int rc;

	rc = fdw_target_attach(t);
	if (!rc)
		rc = fdw_job_for_target(t, &job, &recorded);
	if (rc) {
		fdw_ops_say(ops, FDW_SAY_ERROR, _("%s cannot be opened (%s). Nothing was changed."),
			    t->part->address, strerror(-rc));
		return rc;
	}
	fdw_stop_signals_defer();
	rc = begin(t, backup, pass, &job, recorded, ops);
	if (rc)
		return rc;
	/* The wizard's own handlers come back afterwards. */
	fdw_stop_signals_catch(&stop_requested, false, &saved);
	publish_start(&run, &job);
	if (fdw_decrypt_state(t->device, NULL, job.detached_header) == FDW_DECRYPT_RUNNING)
		rc = fdw_convert_run(&(struct fdw_volume){ .device = t->device,
							   .header = job.detached_header },
				     pass, on_step, &run);
	if (ops->ended)
		ops->ended(ops->ctx);
	if (rc) {
		publish_end(&run, rc);
		fdw_stop_signals_restore(&saved);
		say_stopped(&run, &job, rc);
		return rc;
	}
	fdw_stop_signals_defer();
	rc = finish(t, &job, ops);
	fdw_stop_signals_restore(&saved);
	if (rc) {
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("%s is plain again, but its header copy %s could not be removed "
			      "(%s)."), job.address, job.detached_header, strerror(-rc));
		return rc;
	}
	fdw_ops_say(ops, FDW_SAY_INFO,
		    _("%s is decrypted (%.0f s): its data is plain and at the start of the "
		      "partition again. The header backup %s describes the encrypted volume "
		      "that is no more; delete it when you no longer need it."),
		    job.address, fdw_now_s() - run.start, job.header_backup);
	return 0;
}

int fdw_decrypt_prepare(const char *address, struct fdw_decrypt **out, char *why, size_t len)
{
	struct fdw_decrypt *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d) {
		snprintf(why, len, _("out of memory. Nothing was changed."));
		return -ENOMEM;
	}
	d->lock = -1;
	rc = fdw_target_open_to_change(address, &d->t);
	if (rc) {
		snprintf(why, len, _("%s: %s. Nothing was changed."), address,
			 fdw_scan_error_text(rc));
		free(d);
		return rc;
	}
	d->lock = fdw_target_lock(&d->t);
	if (d->lock == -EBUSY)
		snprintf(why, len, _("another fdewiz is working on %s right now. Nothing was "
				     "changed; wait until it is done (see 'fdewiz status')."), address);
	else if (d->lock < 0)
		snprintf(why, len, _("cannot take the lock of %s in %s (%s). Nothing was changed."),
			 address, FDW_LOCK_DIR, strerror(-d->lock));
	rc = d->lock < 0 ? d->lock : decrypt_check(&d->t, &d->continuing, why, len);
	if (rc) {
		fdw_decrypt_close(d);
		return rc;
	}
	*out = d;
	return 0;
}

bool fdw_decrypt_continuing(const struct fdw_decrypt *d)
{
	return d->continuing;
}

const char *fdw_decrypt_address(const struct fdw_decrypt *d)
{
	return d->t.part->address;
}

int fdw_decrypt_run(struct fdw_decrypt *d, const char *backup, struct fdw_secret *pass,
		    const struct fdw_foreground_ops *ops)
{
	stop_requested = 0;
	return decrypt_foreground(&d->t, backup, pass, ops);
}

void fdw_decrypt_request_stop(void)
{
	stop_requested = SIGINT;
}

void fdw_decrypt_close(struct fdw_decrypt *d)
{
	if (!d)
		return;
	if (d->lock >= 0)
		close(d->lock);
	fdw_target_close(&d->t);
	free(d);
}
