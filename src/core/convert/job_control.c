/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finding a conversion by address, pausing its worker, and getting it ready to resume. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "luks2/convert.h"
#include "encrypt_flow.h"
#include "disk/job_locate.h"
#include "disk/job_observe.h"
#include "boot/boot_move.h"
#include "disk/lvm_room.h"
#include "boot/system_boot.h"
#include "boot/system_data.h"
#include "disk/holders.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/procid.h"
#include "bench/bench_flow.h"
#include "restart.h"
#include "disk/volume_id.h"

/*
 * Can the partition's first and last 4 KiB be read from the disk itself (not a cache)?
 * A scan of a failing disk finds no signature; this tells "no LUKS2 here" from "cannot
 * read here". 0, or -EIO (or another -errno) when the disk does not answer.
 */
static int partition_readable(const struct fdw_target *t)
{
	const char *path = t->part->node ? t->part->node : t->disk.path;
	uint64_t base = t->part->node ? 0 : t->part->start, size = t->part->size;
	void *buf = NULL;
	int fd, rc = 0;

	if (size < 4096 || posix_memalign(&buf, 4096, 4096) != 0)
		return 0;
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);	/* tmpfs and friends lack O_DIRECT */
	if (fd < 0) {
		rc = -errno;
	} else {
		if (pread(fd, buf, 4096, (off_t)base) < 0 ||
		    pread(fd, buf, 4096, (off_t)(base + (size & ~4095ULL) - 4096)) < 0)
			rc = -errno;
		close(fd);
	}
	free(buf);
	return rc;
}

int fdw_job_for_target(const struct fdw_target *t, struct fdw_job *job, bool *recorded)
{
	struct fdw_volume_id now;
	int rc;

	fdw_volume_id_of(&t->disk, t->part, &now);
	rc = fdw_job_for_volume(&now, job);
	if (rc != -ENOENT) {
		*recorded = rc == 0;
		return rc;
	}
	*recorded = false;
	/* Started by another tool (cryptsetup reencrypt): the header is all there is. */
	memset(job, 0, sizeof(*job));
	if (t->part->luks_version != 2 || !now.luks_uuid[0]) {
		int readable = partition_readable(t);

		return readable ? readable : -ENOENT;
	}
	snprintf(job->id, sizeof(job->id), "%s", now.luks_uuid);
	snprintf(job->address, sizeof(job->address), "%s", t->part->address);
	job->ident = now;
	return 0;
}

int fdw_job_for_address(const char *address, struct fdw_job *job, bool *recorded)
{
	struct fdw_target t;
	int rc = fdw_target_open_locate(address, &t);

	if (rc)
		return rc;
	rc = fdw_job_for_target(&t, job, recorded);
	/* The record follows its volume: it is found here now. */
	if (!rc)
		snprintf(job->address, sizeof(job->address), "%s", t.part->address);
	fdw_target_close(&t);
	return rc;
}

int fdw_job_set_pace(struct fdw_job *job, enum fdw_pace pace)
{
	if (!fdw_pace_name(pace))
		return -EINVAL;
	snprintf(job->pace, sizeof(job->pace), "%s", fdw_pace_name(pace));
	return fdw_job_save(job);
}

int fdw_job_pause(const struct fdw_job *job, int timeout_s, char *note, size_t note_len)
{
	struct fdw_proc_id worker = { 0 };
	struct fdw_progress p;
	struct fdw_target t;
	bool located;
	int rc = 0;

	if (note && note_len)
		note[0] = '\0';
	if (fdw_job_observe(job, &p) != 0 || !fdw_job_has_worker(&p))
		return -ESRCH;
	worker.pid = p.pid;
	worker.start_ticks = p.pid_start;
	snprintf(worker.boot_id, sizeof(worker.boot_id), "%s", p.boot_id);
	/*
	 * The record names the worker; the lock proves it. The run converting these bytes
	 * keeps their lock file open (a forked worker inherits it): a process that does not
	 * is no worker of this volume, whatever a record says, and gets no signal.
	 */
	located = fdw_job_locate(job, &t) == 0;
	if (located && !fdw_target_lock_open_in(&t, p.pid)) {
		fdw_log(FDW_LOG_WARN, "%s: worker %d named by job %s holds no lock of it",
			t.part->address, (int)p.pid, job->id);
		fdw_target_close(&t);
		return -ESTALE;
	}
	/* SIGINT: the person's pause. SIGTERM is the system's (a shutdown), after which the
	 * conversion is interrupted, not paused, and the restart's service goes on. */
	if (kill(p.pid, SIGINT) != 0)
		rc = -errno;
	/*
	 * The worker finishes the hotzone it is writing, records where it stopped and
	 * releases the device; paused means all of that is done.
	 */
	for (int i = 0; !rc && i < timeout_s * 10 && fdw_proc_id_alive(&worker); i++)
		usleep(100000);
	if (!rc && fdw_proc_id_alive(&worker))
		rc = -ETIMEDOUT;
	/* A holder that appeared while it ran is not the pause's business, but resume's. */
	if (!rc && located && note && note_len &&
	    fdw_holders_check(&t, job->active_name, note, note_len) == 0)
		note[0] = '\0';
	if (located)
		fdw_target_close(&t);
	return rc;
}

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

int fdw_resume_prepare(struct fdw_resume *r, const char *address, char *why, size_t len)
{
	struct fdw_progress p;
	int rc;

	memset(r, 0, sizeof(*r));
	r->lock_fd = -1;
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
	if (!rc && p.state == FDW_JOB_COMPLETE &&
	    (fdw_system_boot_pending(&r->job) || fdw_system_data_pending(&r->job))) {
		/* A power cut between the conversion and the boot step: that step is left. */
		r->boot_only = true;
		return fdw_holders_check(&r->target, r->job.active_name, why, len);
	}
	if (rc == -ENOENT && fdw_boot_move_unfinished(&r->target)) {
		/* Cut inside the move of its /boot: nothing is encrypted yet. */
		r->boot_move_only = true;
		return fdw_holders_check(&r->target, NULL, why, len);
	}
	if (rc == -ENOENT && fdw_lvm_room_unfinished(&r->target)) {
		/* Cut inside the room-making at its PV's end: nothing is encrypted yet. Its own
		 * logical volumes may hold it; the step deactivates them or says who uses them. */
		r->lvm_room_only = true;
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

int fdw_resume_layout_step(struct fdw_resume *r, char *why, size_t len)
{
	int rc = r->lvm_room_only ? fdw_lvm_room_run(&r->target, why, len)
				  : fdw_boot_move_run(&r->target, why, len);

	r->target_open = r->target.part != NULL;
	return rc;
}

/* Checked up front so a background resume does not fail out of sight. */
int fdw_resume_check_passphrase(struct fdw_resume *r, const struct fdw_secret *pass,
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

pid_t fdw_resume_start(struct fdw_resume *r, const struct fdw_secret *pass,
		       const char *mount_at, char *why, size_t len)
{
	int rc = fdw_resume_check_passphrase(r, pass, why, len);

	if (rc)
		return rc;
	return fdw_launch_background(&r->job, &r->target, pass, mount_at, why, len);
}

void fdw_resume_close(struct fdw_resume *r)
{
	if (r->target_open)
		fdw_target_close(&r->target);
	r->target_open = false;
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
}

int fdw_job_backup_replaced(const char *address, const char *file)
{
	static struct fdw_job job;
	char *abs;
	bool recorded = false;
	int rc;

	if (fdw_job_for_address(address, &job, &recorded) != 0 || !recorded ||
	    !job.header_backup_stale)
		return 0;
	abs = realpath(file, NULL);
	if (!abs)
		return -errno;
	snprintf(job.header_backup, sizeof(job.header_backup), "%s", abs);
	free(abs);
	job.header_backup_stale = false;
	rc = fdw_job_save(&job);
	if (!rc)
		fdw_log(FDW_LOG_INFO, "%s: the record now names the header backup %s", address,
			job.header_backup);
	return rc;
}

/*
 * The status record a power cut left saying "running" (the worker was setting up the
 * boot): complete now, as the worker would have published it.
 */
static void mark_complete(const struct fdw_job *job)
{
	struct fdw_progress p;
	char path[PATH_MAX];

	fdw_job_status_path(job, path, sizeof(path));
	if (fdw_progress_read(path, &p) != 0 || p.state == FDW_JOB_COMPLETE)
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

int fdw_resume_boot_steps(const struct fdw_job *job, const struct fdw_secret *pass,
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

int fdw_resume_bench_after(const struct fdw_job *job)
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
