/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Resume: what an unfinished job needs, decided once and done for every front-end. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/log.h"
#include "bench/bench_flow.h"
#include "boot/boot_move.h"
#include "boot/system_boot.h"
#include "boot/system_data.h"
#include "disk/holders.h"
#include "disk/job_observe.h"
#include "disk/lvm_room.h"
#include "encrypt_internal.h"
#include "restart.h"
#include "resume.h"
#include "job_control.h"
#include "launch.h"

struct fdw_resume {
	struct fdw_job job;
	enum fdw_resume_kind kind;
	char address[PATH_MAX];		/* as the front-end gave it */
	bool recorded;			/* false: started by another tool (its header) */
	bool moved;			/* the record named another address: saved anew */
	struct fdw_target target;
	bool target_open;
	int lock_fd;
};

/* Open @address for @r (@locate: only to find its bytes): 0, or -errno with @why. */
static int resume_open_target(struct fdw_resume *r, const char *address, bool locate, char *why,
			      size_t len)
{
	int rc = locate ? fdw_target_open_locate(address, &r->target)
			: fdw_target_open(address, &r->target);

	if (rc) {
		snprintf(why, len, _("%s: %s. Nothing was changed."), address,
			 fdw_scan_error_text(rc));
		return rc;
	}
	r->target_open = true;
	return 0;
}

/* Find what is unfinished on @address, open it and take its lock: fdw_resume_open(). */
static int prepare(struct fdw_resume *r, const char *address, char *why, size_t len)
{
	struct fdw_progress p;
	int rc;

	snprintf(r->address, sizeof(r->address), "%s", address);
	/*
	 * The lock comes before the header is read: loading a header that a crash left
	 * half-written makes libcryptsetup repair it, and a second resume reading at that
	 * moment would see no LUKS at all. A block device's lock needs no scan of its disk; an
	 * image's is keyed by the file and the partition's offset, which its scan finds (and
	 * the scan says best what is wrong with an address that opens no lock).
	 */
	r->lock_fd = fdw_target_lock_node(address);
	if (r->lock_fd < 0 && r->lock_fd != -EBUSY) {
		rc = resume_open_target(r, address, true, why, len);
		if (rc)
			return rc;
		r->lock_fd = fdw_target_lock(&r->target);
	}
	if (r->lock_fd == -EBUSY) {
		snprintf(why, len, _("another fdewiz is converting %s right now. Nothing was "
				     "changed."), address);
		return -EBUSY;
	}
	if (r->lock_fd < 0) {
		snprintf(why, len, _("cannot lock %s (%s). Nothing was changed."), address,
			 strerror(-r->lock_fd));
		return r->lock_fd;
	}
	/* Look again under the lock: the run that held it may have just changed it. */
	if (r->target_open)
		fdw_target_close(&r->target);
	r->target_open = false;
	rc = resume_open_target(r, address, false, why, len);
	if (rc)
		return rc;
	rc = fdw_job_for_target(&r->target, &r->job, &r->recorded);
	if (!rc && r->recorded && r->job.direction[0]) {
		snprintf(why, len, _("%s is being decrypted: continue with 'fdewiz decrypt %s'. "
				     "Nothing was changed."), address, address);
		return -EINVAL;
	}
	if (!rc && strcmp(r->job.address, r->target.part->address)) {
		/* The same volume under another name now (a reused loop device, a new slot). */
		snprintf(r->job.address, sizeof(r->job.address), "%s", r->target.part->address);
		r->moved = true;
	}
	if (!rc)
		rc = fdw_job_observe(&r->job, &p);
	if (rc && rc != -ENOENT) {
		snprintf(why, len, _("cannot read the state of %s: %s. Nothing was changed; try "
				     "again."), address, strerror(-rc));
		return rc;
	}
	if (!rc && p.state == FDW_JOB_COMPLETE && fdw_job_unfinished(&r->job, &p)) {
		/* A power cut between the conversion and the boot step: that step is left. */
		r->kind = FDW_RESUME_BOOT_STEPS;
		return fdw_holders_check(&r->target, r->job.active_name, why, len);
	}
	if (rc == -ENOENT && fdw_boot_move_unfinished(&r->target)) {
		/* Cut inside the move of its /boot: nothing is encrypted yet. */
		r->kind = FDW_RESUME_BOOT_MOVE;
		return fdw_holders_check(&r->target, NULL, why, len);
	}
	if (rc == -ENOENT && fdw_lvm_room_unfinished(&r->target)) {
		/* Cut inside the room-making at its PV's end: nothing is encrypted yet. Its own
		 * logical volumes may hold it; the step deactivates them or says who uses them. */
		r->kind = FDW_RESUME_LVM_ROOM;
		return 0;
	}
	if (rc || p.state == FDW_JOB_COMPLETE) {
		snprintf(why, len, _("%s has no unfinished conversion. Nothing was changed."),
			 address);
		return -ENOENT;
	}
	if (p.state == FDW_JOB_RUNNING) {
		snprintf(why, len, _("the conversion of %s is already running (worker %d)."),
			 address, (int)p.pid);
		return -EALREADY;
	}
	/* Nobody else may hold its bytes; the job's own open volume (online) is no holder. */
	return fdw_holders_check(&r->target, r->job.active_name, why, len);
}

static int layout_step(struct fdw_resume *r, char *why, size_t len)
{
	int rc = r->kind == FDW_RESUME_LVM_ROOM ? fdw_lvm_room_run(&r->target, why, len)
				  : fdw_boot_move_run(&r->target, why, len);

	r->target_open = r->target.part != NULL;
	return rc;
}

/* Checked up front so a background resume does not fail out of sight. */
static int check_passphrase(struct fdw_resume *r, const struct fdw_secret *pass,
			    char *why, size_t len)
{
	struct fdw_volume v = { .header = r->job.detached_header[0] ?
					  r->job.detached_header : NULL };
	int rc = fdw_target_attach(&r->target);

	v.device = r->target.device;
	if (!rc)
		rc = fdw_convert_check_passphrase(&v, pass);
	if (rc == -EPERM)
		snprintf(why, len, _("the passphrase is wrong. Nothing was changed; try again."));
	else if (rc)
		snprintf(why, len, _("cannot read the header of %s: %s. Nothing was changed."),
			 r->job.address, strerror(-rc));
	if (!rc && !r->recorded) {
		/* A conversion started by another tool gets a record now, so status follows. */
		r->job.created = (int64_t)time(NULL);
		fdw_job_save(&r->job);
		r->recorded = true;
	} else if (!rc && r->moved) {
		fdw_job_save(&r->job);
	}
	return rc;
}

void fdw_resume_close(struct fdw_resume *r)
{
	if (!r)
		return;
	if (r->target_open)
		fdw_target_close(&r->target);
	r->target_open = false;
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
	free(r);
}

/*
 * The boot steps done: the status record complete, as the worker would have published it,
 * whether a power cut left it saying "running" (the worker was setting up the boot) or
 * a failed step left its message there (status would still say the step is left).
 */
static void mark_complete(const struct fdw_job *job)
{
	struct fdw_progress p;
	char path[PATH_MAX];

	fdw_job_status_path(job, path, sizeof(path));
	if (fdw_progress_read(path, &p) != 0 || (p.state == FDW_JOB_COMPLETE && !p.message[0]))
		return;
	p.state = FDW_JOB_COMPLETE;
	p.pid = 0;
	p.done = p.total;
	p.phase = FDW_PHASE_DONE;
	p.eta = 0;
	p.speed = 0;
	p.message[0] = '\0';
	if (fdw_progress_write(path, &p) != 0)
		fdw_log(FDW_LOG_WARN, "%s: the status record could not be marked complete",
			job->address);
}

static int boot_steps(const struct fdw_job *job, const struct fdw_secret *pass,
		      struct fdw_system_boot_result *res, char *why, size_t len)
{
	struct fdw_system_data_result data;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (fdw_system_boot_pending(job))
		rc = fdw_system_boot_finish(job, NULL, pass, res, why, len);
	if (!rc && fdw_system_data_pending(job))
		rc = fdw_system_data_finish(job, pass, &data, why, len);
	if (!rc) {
		mark_complete(job);
		fdw_restart_conclude(job);
	}
	return rc;
}

/*
 * The after-benchmark the conversion's end could not run (a power cut came during the boot
 * step), when the job has a baseline and its volume is open under the record's name.
 */
static int bench_after(const struct fdw_job *job)
{
	static struct fdw_job rec;	/* large: off the stack */
	char path[PATH_MAX];

	if (fdw_job_find_id(job->id, &rec) != 0 || !rec.bench_before[0] || rec.bench_after[0] ||
	    !rec.active_name[0])
		return 0;
	snprintf(path, sizeof(path), "/dev/mapper/%s", rec.active_name);
	if (access(path, F_OK) != 0)
		return 0;
	return fdw_bench_after(&rec, rec.active_name, rec.fstype, NULL, NULL, NULL);
}

int fdw_resume_open(const char *address, struct fdw_resume **out, char *why, size_t len)
{
	struct fdw_resume *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r) {
		snprintf(why, len, _("out of memory. Nothing was changed."));
		return -ENOMEM;
	}
	r->lock_fd = -1;
	r->kind = FDW_RESUME_CONVERSION;
	rc = prepare(r, address, why, len);
	if (rc) {
		fdw_resume_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

enum fdw_resume_kind fdw_resume_kind(const struct fdw_resume *r)
{
	return r->kind;
}

bool fdw_resume_needs_passphrase(const struct fdw_resume *r)
{
	return r->kind == FDW_RESUME_CONVERSION || r->kind == FDW_RESUME_BOOT_STEPS;
}

const struct fdw_job *fdw_resume_job(const struct fdw_resume *r)
{
	return &r->job;
}

int fdw_resume_want_tpm(struct fdw_resume *r, const char *pcrs, char *why, size_t len)
{
	if (!fdw_resume_needs_passphrase(r)) {
		snprintf(why, len, _("--tpm goes with the encryption of the root, which has not "
				     "begun: 'fdewiz encrypt --tpm %s' after this. Nothing was "
				     "changed."), r->address);
		return -EINVAL;
	}
	return fdw_system_boot_want_tpm(&r->job, pcrs, why, len);
}

int fdw_resume_set_pace(struct fdw_resume *r, enum fdw_pace pace)
{
	if (r->recorded)
		return fdw_job_set_pace(&r->job, pace);
	snprintf(r->job.pace, sizeof(r->job.pace), "%s", fdw_pace_name(pace));
	return 0;
}

/* A layout step cut short, finished: the system starts unencrypted as before. */
static int run_layout_step(struct fdw_resume *r, const struct fdw_foreground_ops *ops, char *why,
			   size_t len)
{
	bool lvm = r->kind == FDW_RESUME_LVM_ROOM;
	int rc;

	if (lvm)
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("%s: making room for the header at the end of the physical volume "
			      "was cut short; going on..."), r->address);
	else
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("%s: making /boot a partition of its own was cut short; going on..."),
			    r->address);
	rc = layout_step(r, why, len);
	if (rc)
		return rc;
	if (lvm)
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("The header's room is made at the end of the physical volume; the "
			      "system starts unencrypted as before. Nothing is encrypted yet: run "
			      "'fdewiz encrypt %s' to encrypt it."), r->address);
	else
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("/boot is a partition of its own now, and GRUB reads it there; the "
			      "system starts unencrypted as before. Nothing is encrypted yet: run "
			      "'fdewiz encrypt %s' to encrypt its root."), r->address);
	return 0;
}

/* Converted: the installed system's boot step (or another system's crypttab) done here. */
static int run_boot_steps(struct fdw_resume *r, struct fdw_secret *pass,
			  const struct fdw_foreground_ops *ops, char *why, size_t len)
{
	static const struct fdw_secret none = { .data = (char *)"", .len = 0 };
	struct fdw_system_boot_result res;

	fdw_ops_say(ops, FDW_SAY_INFO, _("%s is encrypted; setting up the installed system's "
					 "boot."), r->job.address);
	fdw_target_close(&r->target);
	r->target_open = false;
	if (boot_steps(&r->job, pass ? pass : &none, &res, why, len) != 0)
		return -EIO;
	if (res.loader_note[0])
		fdw_ops_say(ops, FDW_SAY_INFO, "%s", res.loader_note);
	if (r->job.bench_before[0] && !r->job.bench_after[0]) {
		fdw_ops_say(ops, FDW_SAY_INFO, _("Benchmarking the encrypted volume..."));
		bench_after(&r->job);
	}
	if (fdw_system_boot_report(&r->job, ops) || fdw_system_data_report(&r->job, ops))
		return -EAGAIN;
	return 0;
}

int fdw_resume_run(struct fdw_resume *r, struct fdw_secret *pass, const struct fdw_resume_how *how,
		   pid_t *worker, char *why, size_t len)
{
	pid_t pid;
	int rc;

	*worker = 0;
	if (len)
		why[0] = '\0';
	if (r->kind == FDW_RESUME_BOOT_MOVE || r->kind == FDW_RESUME_LVM_ROOM)
		return run_layout_step(r, how->ops, why, len);
	/* Only the restart's boot step may go on without one: its volume is open already. */
	if (!pass && (!how->passphrase_known || r->kind == FDW_RESUME_CONVERSION)) {
		snprintf(why, len, _("the passphrase of %s is needed to go on. Nothing was "
				     "changed."), r->job.address);
		return -EINVAL;
	}
	if (pass && !how->passphrase_known) {
		rc = check_passphrase(r, pass, why, len);
		if (rc)
			return rc;
	}
	if (r->kind == FDW_RESUME_BOOT_STEPS)
		return run_boot_steps(r, pass, how->ops, why, len);
	if (how->foreground)
		return fdw_conversion_foreground(&r->job, &r->target, pass, how->mount_at,
						 how->ops);
	pid = fdw_launch_background(&r->job, &r->target, pass, how->mount_at, why, len);
	if (pid < 0)
		return (int)pid;
	*worker = pid;
	return 0;
}

bool fdw_job_unfinished(const struct fdw_job *job, const struct fdw_progress *p)
{
	switch (p->state) {
	case FDW_JOB_RUNNING:
	case FDW_JOB_PAUSED:
	case FDW_JOB_INTERRUPTED:
	case FDW_JOB_NEEDS_REPAIR:
		return true;
	case FDW_JOB_COMPLETE:
		return fdw_system_boot_pending(job) || fdw_system_data_pending(job);
	default:
		return false;
	}
}

enum fdw_resume_offer fdw_resume_offer(const struct fdw_job *job, const struct fdw_progress *p,
				       bool by_service)
{
	if (p->state == FDW_JOB_RUNNING)
		return FDW_OFFER_RUNNING;
	if (by_service)
		return FDW_OFFER_SERVICE;
	if (p->state == FDW_JOB_FAILED)
		return FDW_OFFER_FAILED;
	if (!fdw_job_unfinished(job, p))
		return FDW_OFFER_COMPLETE;
	return FDW_OFFER_RESUME;
}
