/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finding a conversion by address and pausing its worker (resume.c takes it on again). */
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
#include "job_control.h"
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
