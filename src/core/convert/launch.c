/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening a job's volume and handing its conversion to a detached background worker. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "luks2/convert.h"
#include "encrypt_flow.h"
#include "launch.h"
#include "base/child.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/stopsig.h"
#include "state/progress.h"
#include "worker.h"

int fdw_job_open_volume(const struct fdw_job *job, struct fdw_target *t,
			struct fdw_volume *v, const struct fdw_secret *pass, const char *mount_at,
			bool *went_offline, bool *mount_failed, char *why, size_t len)
{
	char path[PATH_MAX];
	int rc;

	*went_offline = false;
	*mount_failed = false;
	rc = fdw_target_attach(t);
	if (rc) {
		snprintf(why, len, _("cannot attach a loop device for %s: %s. Nothing was "
				     "changed."), job->address, strerror(-rc));
		return rc;
	}
	memset(v, 0, sizeof(*v));
	v->device = t->device;
	v->header = job->detached_header[0] ? job->detached_header : NULL;
	v->active_name = job->active_name[0] ? job->active_name : NULL;
	if (v->active_name && !fdw_have_device_mapper()) {
		v->active_name = NULL;
		*went_offline = true;
	}
	if (!v->active_name)
		return 0;
	/* Online, the volume must be open before the conversion can run through it
	 * (after a reboot it is not). */
	snprintf(path, sizeof(path), "/dev/mapper/%s", v->active_name);
	if (access(path, F_OK) != 0) {
		rc = fdw_convert_activate(v, pass);
		if (rc) {
			snprintf(why, len, _("cannot open the volume as %s: %s. The data is intact; "
					     "try resuming again."), path, strerror(-rc));
			return rc;
		}
	}
	if (mount_at && mount(path, mount_at, t->part->fstype, 0, NULL) != 0) {
		*mount_failed = true;
		snprintf(why, len, _("%s could not be mounted at %s (%s); the conversion goes "
				     "on."), path, mount_at, strerror(errno));
	}
	return 0;
}

static volatile sig_atomic_t stop_requested;

/* The worker has no terminal: its messages go to syslog and to the job's log file. */
struct worker_log {
	int fd;
};

static void worker_log_sink(enum fdw_log_level level, const char *msg, void *ctx)
{
	static const int prio[] = { LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR };
	static const char *const name[] = { "debug", "info", "warning", "error" };
	struct worker_log *wl = ctx;
	char line[1200], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	syslog(prio[level], "%s", msg);
	if (wl->fd < 0 || level == FDW_LOG_DEBUG)
		return;
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	n = snprintf(line, sizeof(line), "%s %s: %s\n", stamp, name[level], msg);
	if (n > 0 && write(wl->fd, line, (size_t)n < sizeof(line) ? (size_t)n :
			   sizeof(line) - 1) < 0)
		return;	/* a full disk must not stop the conversion */
}

/*
 * Wait (at most 10 s) until the worker @pid has made the job's status record its own, so
 * that a `status` right after `resume` says running, not the paused state it found: a
 * watcher that read "paused" then stopped watching a conversion that was going on. A
 * worker that ends before that (it failed to start) ends the wait too.
 */
static void wait_worker_published(const struct fdw_job *job, pid_t pid)
{
	char path[PATH_MAX];

	fdw_job_status_path(job, path, sizeof(path));
	for (int i = 0; i < 500; i++) {
		struct fdw_progress p;

		if (fdw_progress_read(path, &p) == 0 && p.pid == pid)
			return;
		if (kill(pid, 0) != 0)
			return;
		usleep(20000);
	}
	fdw_log(FDW_LOG_WARN, "the background worker %d has not recorded its start yet",
		(int)pid);
}

pid_t fdw_launch_background(const struct fdw_job *job, struct fdw_target *t,
			    const struct fdw_secret *pass, const char *mount_at, char *why,
			    size_t len)
{
	struct worker_log wl = { .fd = -1 };
	struct fdw_volume v;
	char log_path[PATH_MAX];
	bool offline, mount_failed;
	pid_t pid;
	int rc;

	rc = fdw_job_open_volume(job, t, &v, pass, mount_at, &offline, &mount_failed, why,
				 len);
	if (rc)
		return rc;
	fflush(stdout);
	fflush(stderr);
	pid = fdw_child_detach();
	if (pid < 0) {
		snprintf(why, len, _("cannot start the background worker: %s. The data is intact; "
				     "resume continues it."), strerror((int)-pid));
		return pid;
	}
	if (pid > 0) {
		/* The worker holds its own copy of the loop device's descriptor: the device
		 * lives exactly as long as the worker (or the volume opened on it). */
		t->loop_handed_over = true;
		wait_worker_published(job, pid);
		return pid;
	}
	/* The worker. Memory locks do not survive fork: lock the secret again. */
	if (fdw_secret_relock((struct fdw_secret *)pass) != 0)
		_exit(1);
	/* SIGINT (pause) and SIGTERM (the system's, at a shutdown) stop at the next safe
	 * point; there is no terminal to hang up. */
	fdw_stop_signals_catch(&stop_requested, false, NULL);
	openlog("fdewiz", LOG_PID, LOG_DAEMON);
	fdw_job_log_path(job, log_path, sizeof(log_path));
	wl.fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	fdw_log_set_sink(worker_log_sink, &wl);
	rc = fdw_worker_run(job, &v, (struct fdw_secret *)pass, &stop_requested, NULL, NULL);
	explicit_bzero(pass->data, pass->len);
	fdw_target_close(t);
	_exit(rc == 0 ? 0 : 1);
}
