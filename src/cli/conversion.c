/* Starts a conversion in the foreground with a progress line, or hands it to a worker. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conversion.h"
#include "core/convert.h"
#include "core/fsresize.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/units.h"
#include "core/worker.h"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* SIGINT/SIGTERM stop at the next safe point; SIGHUP is ignored so a closed terminal
 * does not end a foreground run half-way (the worker has no terminal at all). */
static void stop_signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

void conversion_defer_signals(void)
{
	sigset_t set;

	stop_signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t set;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &ign, NULL);
	/* A Ctrl-C that came while the header was being written is honoured now. */
	stop_signal_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void syslog_sink(enum fdw_log_level level, const char *msg, void *ctx)
{
	static const int prio[] = { LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR };

	(void)ctx;
	syslog(prio[level], "%s", msg);
}

struct progress_line {
	struct timespec start;
	double last_print;
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static int print_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct progress_line *pl = ctx;
	double t = seconds_since(&pl->start);
	char d[32], tot[32];

	if (t - pl->last_print >= 0.25 || done == total) {
		pl->last_print = t;
		fprintf(stderr, "\r%s %5.1f%%  %s / %s   ", _("encrypting"),
			total ? 100.0 * (double)done / (double)total : 0.0,
			fdw_format_size(done, d, sizeof(d)), fdw_format_size(total, tot, sizeof(tot)));
	}
	return 0;
}

static int report(const struct fdw_job *job, const struct fdw_volume *v, int rc,
		  double seconds)
{
	if (rc == 0) {
		printf(_("%s is now encrypted (%.0f s).\n"), job->address, seconds);
		if (v->active_name)
			printf(_("It stays open as /dev/mapper/%s; close it with 'cryptsetup close "
				 "%s' once it is unmounted.\n"), v->active_name, v->active_name);
		return FDW_EXIT_OK;
	}
	if (rc == -EINTR) {
		printf(_("Stopped at a safe point. The data is intact; continue with "
			 "'%s resume %s'.\n"), fdw_progname, job->address);
		return FDW_EXIT_ERROR;
	}
	if (rc == -EPERM || rc == -ENOENT)
		fprintf(stderr, _("%s: the passphrase is wrong. Nothing was changed; try "
				  "again.\n"), fdw_progname);
	else
		fprintf(stderr, _("%s: the conversion stopped: %s. Its state is recorded in the "
				  "header; see '%s status %s', then '%s resume %s'.\n"),
			fdw_progname, strerror(-rc), fdw_progname, job->address, fdw_progname,
			job->address);
	return FDW_EXIT_ERROR;
}

/*
 * Online: the volume must be open under its name before the conversion can run through
 * it (after a reboot it is not). Offline there is nothing to open.
 */
static int ensure_active(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	char path[PATH_MAX];

	if (!v->active_name)
		return 0;
	snprintf(path, sizeof(path), "/dev/mapper/%s", v->active_name);
	if (access(path, F_OK) == 0)
		return 0;
	return fdw_convert_activate(v, pass);
}

/* After an online shrink, give the filesystem its room back inside the volume. */
static void grow_back(const struct fdw_job *job, const struct fdw_volume *v)
{
	char path[PATH_MAX];

	if (!job->fs_to_grow[0] || !v->active_name)
		return;
	snprintf(path, sizeof(path), "/dev/mapper/%s", v->active_name);
	/* Mounted: resize2fs grows it live; unmounted it wants a check first. */
	if (fdw_ext_grow_online(path) == 0 || fdw_ext_grow(path) == 0)
		fdw_log(FDW_LOG_INFO, "%s: filesystem grown to fill the volume", job->address);
	else
		fdw_log(FDW_LOG_WARN, "%s: the filesystem could not be grown; run resize2fs %s",
			job->address, path);
}

/* Mount the opened volume where the user wants it, with the filesystem it had. */
static int mount_volume(const struct fdw_volume *v, const char *fstype, const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/dev/mapper/%s", v->active_name);
	return mount(path, dir, fstype, 0, NULL) == 0 ? 0 : -errno;
}

int conversion_start(const struct fdw_job *job, struct fdw_target *t, struct fdw_secret *pass,
		     bool foreground, const char *mount_at)
{
	struct progress_line pl = { .last_print = -1 };
	struct fdw_volume v = { 0 };
	pid_t pid;
	int rc;

	rc = fdw_target_attach(t);
	if (rc) {
		fprintf(stderr, _("%s: cannot attach a loop device for %s: %s. Nothing was "
				  "changed.\n"), fdw_progname, job->address, strerror(-rc));
		return FDW_EXIT_ERROR;
	}
	v.device = t->device;
	v.header = job->detached_header[0] ? job->detached_header : NULL;
	v.active_name = job->active_name[0] ? job->active_name : NULL;
	if (v.active_name && !fdw_have_device_mapper()) {
		printf(_("This system has no device-mapper: continuing offline; keep %s "
			 "unmounted until it is done.\n"), job->address);
		v.active_name = NULL;
	}
	rc = ensure_active(&v, pass);
	if (rc) {
		fprintf(stderr, _("%s: cannot open the volume as /dev/mapper/%s: %s. The data is "
				  "intact; try '%s resume %s'.\n"), fdw_progname, v.active_name,
			strerror(-rc), fdw_progname, job->address);
		return FDW_EXIT_ERROR;
	}
	if (mount_at && v.active_name) {
		rc = mount_volume(&v, t->part->fstype, mount_at);
		if (rc)
			fprintf(stderr, _("%s: warning: /dev/mapper/%s could not be mounted at %s "
					  "(%s); the conversion goes on.\n"), fdw_progname,
				v.active_name, mount_at, strerror(-rc));
		else
			printf(_("Mounted at %s; usable while it converts.\n"), mount_at);
	}
	catch_stop_signals();
	if (foreground) {
		clock_gettime(CLOCK_MONOTONIC, &pl.start);
		rc = fdw_worker_run(job, &v, pass, &stop_requested, print_progress, &pl);
		fputc('\n', stderr);
		if (rc == 0)
			grow_back(job, &v);
		return report(job, &v, rc, seconds_since(&pl.start));
	}
	fflush(stdout);
	fflush(stderr);
	pid = fdw_daemonize();
	if (pid < 0) {
		fprintf(stderr, _("%s: cannot start the background worker: %s. Nothing more was "
				  "changed; run '%s resume %s'.\n"), fdw_progname, strerror((int)-pid),
			fdw_progname, job->address);
		return FDW_EXIT_ERROR;
	}
	if (pid > 0) {
		/* The loop device now belongs to the worker: the caller must not detach it. */
		t->loop_attached = false;
		printf(_("Converting in the background (worker %d). Follow it with "
			 "'%s status --watch %s'.\n"), (int)pid, fdw_progname, job->address);
		return FDW_EXIT_OK;
	}
	/* The worker: locks are not inherited across fork, so lock the secret again. */
	if (fdw_secret_relock(pass) != 0)
		_exit(FDW_EXIT_ERROR);
	openlog("fdewiz", LOG_PID, LOG_DAEMON);
	fdw_log_set_sink(syslog_sink, NULL);
	rc = fdw_worker_run(job, &v, pass, &stop_requested, NULL, NULL);
	if (rc == 0)
		grow_back(job, &v);
	fdw_secret_free(pass);
	fdw_target_close(t);
	_exit(rc == 0 ? FDW_EXIT_OK : FDW_EXIT_ERROR);
}

int conversion_lock(const struct fdw_target *t, const char *address)
{
	int lock = fdw_target_lock(t);

	if (lock == -EBUSY)
		fprintf(stderr, _("%s: another fdewiz is converting %s right now; follow it with "
				  "'%s status --watch %s'. Nothing was changed.\n"), fdw_progname,
			address, fdw_progname, address);
	else if (lock < 0)
		fprintf(stderr, _("%s: cannot lock %s (%s). Nothing was changed.\n"),
			fdw_progname, address, strerror(-lock));
	return lock;
}
