/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs a conversion detached from any terminal and publishes its progress. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_flow.h"
#include "restart.h"
#include "base/clock.h"
#include "base/pace.h"
#include "base/stopsig.h"
#include "luks2/convert.h"
#include "luks2/final_window.h"
#include "disk/fsresize.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/power.h"
#include "base/procid.h"
#include "base/secret.h"
#include "state/progress.h"
#include "base/units.h"
#include "boot/system_boot.h"
#include "boot/system_data.h"
#include "base/testhook.h"
#include "worker.h"

/* Publish at most this often: a status file is for people, not a log. */
#define PUBLISH_INTERVAL_S 0.25
/* How often the battery is looked at while converting, and while waiting for the charger. */
#define POWER_CHECK_S 1.0
/* Between two steps of the conversion (a hotzone may take long on a slow disk), the time
 * left is published again this often, so it counts down, or grows while a step is late. */
#define ETA_REFRESH_S 1.0
/* A gap in CLOCK_BOOTTIME over CLOCK_MONOTONIC this long is the machine having slept. */
#define SLEEP_NOTE_S 1.0

struct publisher {
	char path[PATH_MAX];
	struct fdw_progress p;
	struct fdw_speed_window window;
	double start;
	double last_publish;
	volatile sig_atomic_t *stop;
	fdw_convert_progress_fn echo;
	void *echo_ctx;
	bool power_guard;	/* pause on a low battery (not when started on one by force) */
	bool battery_low;	/* stopped for that: wait for the charger, then go on */
	double last_power;
	double asleep_seen;	/* fdw_asleep_s() when last looked */
	/* While converting, the refresher thread publishes too: @lock guards @p and @window. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool refreshing;
	pthread_t refresher;
	/* Sharing the disk (base/pace.h): the pace as the job record says it, looked at again
	 * each PACE_CHECK_S so that `fdewiz pace` reaches a running conversion. */
	char job_id[40];
	enum fdw_pace pace;
	double last_pace_check;
	struct fdw_pacer pacer;
};

/* How often a running conversion reads its pace again from its record. */
#define PACE_CHECK_S 1.0

static double now_since(const double *t0)
{
	return fdw_now_s() - *t0;
}

static void publish(struct publisher *pub)
{
	pub->p.updated = time(NULL);
	if (fdw_progress_write(pub->path, &pub->p) != 0)
		fdw_log(FDW_LOG_WARN, "could not publish progress to %s", pub->path);
}

/* The pace in @job's record: auto when it names none. */
static enum fdw_pace pace_of(const struct fdw_job *job)
{
	int pace = fdw_pace_parse(job->pace);

	return pace < 0 ? FDW_PACE_AUTO : (enum fdw_pace)pace;
}

/* Take up the pace its record says now, and what the disk's other work looked like. */
static void pace_follow(struct publisher *pub, double t)
{
	struct fdw_job now;

	if (t - pub->last_pace_check < PACE_CHECK_S || fdw_job_find_id(pub->job_id, &now) != 0)
		return;
	pub->last_pace_check = t;
	if (pace_of(&now) == pub->pace)
		return;
	pub->pace = pace_of(&now);
	fdw_pace_priority(pub->pace);
	fdw_log(FDW_LOG_INFO, "pace: %s from now on", fdw_pace_name(pub->pace));
}

/* Between two hotzones: wait as the pace says, and say so in the status record. */
static void pace_step(struct publisher *pub, uint64_t done, double t)
{
	bool changed;

	pace_follow(pub, t);
	pthread_mutex_lock(&pub->lock);
	/* The status says at once when the pace changed or the waiting began or ended. */
	changed = strcmp(pub->p.pace, fdw_pace_name(pub->pace)) != 0;
	snprintf(pub->p.pace, sizeof(pub->p.pace), "%s", fdw_pace_name(pub->pace));
	if (changed)
		publish(pub);
	pthread_mutex_unlock(&pub->lock);
	fdw_pacer_step(&pub->pacer, pub->pace, done, pub->stop);
	pthread_mutex_lock(&pub->lock);
	changed = pub->p.yielding != pub->pacer.yielding;
	pub->p.yielding = pub->pacer.yielding;
	pub->p.others_bps = pub->pacer.yielding ? pub->pacer.others_bps : 0;
	if (changed)
		publish(pub);
	pthread_mutex_unlock(&pub->lock);
}

/*
 * The machine slept (suspend to RAM, a closed lid) since this was last looked at. The
 * speed and the time left go by the monotonic clock, which stood still meanwhile, so they
 * need nothing; the journal and the status record say how long it slept and where, so that
 * the gap is explained. True when it did (to be published).
 */
static bool note_sleep(struct publisher *pub, uint64_t total)
{
	double asleep = fdw_asleep_s(), gap = asleep - pub->asleep_seen;

	if (gap < SLEEP_NOTE_S)
		return false;
	pub->asleep_seen = asleep;
	pub->p.slept += gap;
	/* Where it was when it went to sleep: the last position published before. */
	fdw_log(FDW_LOG_INFO, "the machine slept %.0f s at %.1f %%; the conversion goes on", gap,
		total ? 100.0 * (double)pub->p.done / (double)total : 0.0);
	return true;
}

static int on_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct publisher *pub = ctx;
	double t = now_since(&pub->start);
	bool slept;

	pthread_mutex_lock(&pub->lock);
	fdw_speed_add(&pub->window, t, done);
	slept = note_sleep(pub, total);
	if (t - pub->last_publish >= PUBLISH_INTERVAL_S || done == total || slept) {
		pub->last_publish = t;
		pub->p.done = done;
		pub->p.total = total;
		pub->p.elapsed = t;
		pub->p.eta = fdw_speed_eta(&pub->window, t, total, &pub->p.speed);
		publish(pub);
	}
	pthread_mutex_unlock(&pub->lock);
	if (pub->echo)
		pub->echo(done, total, pub->echo_ctx);
	/* Between hotzones is a safe point: stop here rather than when the battery is empty. */
	if (pub->power_guard && t - pub->last_power >= POWER_CHECK_S) {
		struct fdw_power pw;

		pub->last_power = t;
		fdw_power_read(&pw);
		if (fdw_power_low(&pw, FDW_BATTERY_PAUSE_PERCENT)) {
			fdw_log(FDW_LOG_WARN, "on battery at %d %%: pausing at a safe point until "
				"the charger is connected", pw.charge);
			pub->battery_low = true;
			return 1;
		}
	}
	if (!*pub->stop && done < total)
		pace_step(pub, done, t);
	return *pub->stop ? 1 : 0;
}

/* The refresher: the time left again, as seen now, until told to stop. */
static void *refresh_main(void *arg)
{
	struct publisher *pub = arg;
	struct timespec until;
	double t;

	pthread_mutex_lock(&pub->lock);
	while (pub->refreshing) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)ETA_REFRESH_S;
		pthread_cond_timedwait(&pub->wake, &pub->lock, &until);
		t = now_since(&pub->start);
		if (!pub->refreshing || pub->window.count < 2 ||
		    t - pub->last_publish < ETA_REFRESH_S)
			continue;
		pub->last_publish = t;
		pub->p.elapsed = t;
		pub->p.eta = fdw_speed_eta(&pub->window, t, pub->p.total, &pub->p.speed);
		publish(pub);
	}
	pthread_mutex_unlock(&pub->lock);
	return NULL;
}

/* The conversion itself, with the refresher beside it (without one, it still runs). */
static int convert_refreshed(const struct fdw_volume *v, struct fdw_secret *pass,
			     struct publisher *pub)
{
	pthread_condattr_t ca;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pub->wake, &ca);
	pthread_condattr_destroy(&ca);
	pub->refreshing = true;
	if (pthread_create(&pub->refresher, NULL, refresh_main, pub) != 0)
		pub->refreshing = false;
	rc = fdw_convert_run(v, pass, on_progress, pub);
	if (pub->refreshing) {
		pthread_mutex_lock(&pub->lock);
		pub->refreshing = false;
		pthread_cond_signal(&pub->wake);
		pthread_mutex_unlock(&pub->lock);
		pthread_join(pub->refresher, NULL);
	}
	pthread_cond_destroy(&pub->wake);
	return rc;
}

/* The after-benchmark's steps, in the status record for whoever watches. */
static void on_bench(const struct fdw_bench_status *s, void *ctx)
{
	struct publisher *pub = ctx;
	double t = now_since(&pub->start);

	snprintf(pub->p.bench_what, sizeof(pub->p.bench_what), "%s", s->what);
	pub->p.bench_fraction = s->fraction;
	pub->p.bench_left = s->left;
	if (t - pub->last_publish >= PUBLISH_INTERVAL_S) {
		pub->last_publish = t;
		publish(pub);
	}
}

/*
 * Paused for a low battery: say so, and wait (holding the volume, so nothing else starts
 * on it) until mains power is back. 0 then; -EINTR when asked to stop meanwhile.
 */
static int wait_for_charger(struct publisher *pub)
{
	struct fdw_power pw;

	pub->battery_low = false;
	pub->p.state = FDW_JOB_PAUSED;
	pub->p.speed = 0;
	pub->p.eta = -1;
	pub->p.phase = FDW_PHASE_ON_BATTERY;
	snprintf(pub->p.message, sizeof(pub->p.message),
		 _("paused: battery low, waiting for the charger"));
	publish(pub);
	for (;;) {
		if (*pub->stop) {
			pub->p.message[0] = '\0';
			return -EINTR;
		}
		fdw_power_read(&pw);
		if (!pw.on_battery)
			break;
		usleep((useconds_t)(POWER_CHECK_S * 1e6));
	}
	fdw_log(FDW_LOG_INFO, "mains power is back: the conversion goes on");
	pub->p.state = FDW_JOB_RUNNING;
	pub->p.message[0] = '\0';
	pub->p.phase = FDW_PHASE_ENCRYPTING;
	publish(pub);
	return 0;
}

/* After an online shrink, give the filesystem its room back inside the volume. */
static void grow_back(const struct fdw_job *job, const struct fdw_volume *v)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/dev/mapper/%s", v->active_name);
	if (fdw_fs_grow(path, job->fs_to_grow) == 0)
		fdw_log(FDW_LOG_INFO, "%s: filesystem grown to fill the volume", job->address);
	else
		fdw_log(FDW_LOG_WARN, "%s: the filesystem could not be grown; %s %s",
			job->address, strcmp(job->fs_to_grow, "btrfs") ? "run resize2fs on" :
			"mount it and run btrfs filesystem resize max on the mount point of",
			path);
}

/*
 * Why the conversion stopped, where, and what to do: a failing disk (I/O errors, gone)
 * stops it between hotzones or inside one, and either way the LUKS2 header's resilience
 * data lets `resume` (which repairs first) finish the same bytes once the disk answers.
 */
static void stopped_message(struct fdw_progress *p, const struct fdw_job *job, int rc)
{
	char done[32], total[32];
	const char *cause;

	fdw_format_size(p->done, done, sizeof(done));
	fdw_format_size(p->total, total, sizeof(total));
	cause = rc == -EIO || rc == -ENXIO || rc == -ENODEV ?
		_("the disk reported an input/output error or went away") : strerror(-rc);
	snprintf(p->message, sizeof(p->message),
		 _("Stopped at %s of %s: %s. Nothing is lost: the encryption header records "
		   "where the conversion stands. Check the disk (its cable, 'dmesg'), then run "
		   "'fdewiz resume %s'."), done, total, cause, job->address);
}

/*
 * The status record at the start of a run: running, by this process, with the last known
 * position kept (a resumed run does not start at 0 %).
 */
static void publish_start(struct publisher *pub, const struct fdw_job *job,
			  const struct fdw_volume *v)
{
	struct fdw_proc_id self;

	fdw_job_status_path(job, pub->path, sizeof(pub->path));
	if (fdw_progress_read(pub->path, &pub->p) != 0)
		memset(&pub->p, 0, sizeof(pub->p));
	pub->start = fdw_now_s();
	pub->p.state = FDW_JOB_RUNNING;
	if (fdw_proc_id_self(&self) == 0) {
		pub->p.pid = self.pid;
		pub->p.pid_start = self.start_ticks;
		snprintf(pub->p.boot_id, sizeof(pub->p.boot_id), "%s", self.boot_id);
	}
	pub->p.eta = -1;
	pub->p.speed = 0;
	pub->p.message[0] = '\0';
	pub->p.bench_what[0] = '\0';
	pub->p.phase = FDW_PHASE_ENCRYPTING;
	snprintf(pub->job_id, sizeof(pub->job_id), "%s", job->id);
	pub->pace = pace_of(job);
	snprintf(pub->p.pace, sizeof(pub->p.pace), "%s", fdw_pace_name(pub->pace));
	pub->p.yielding = false;
	pub->p.others_bps = 0;
	pub->asleep_seen = fdw_asleep_s();
	fdw_pacer_init(&pub->pacer, v->device);
	publish(pub);
	fdw_log(FDW_LOG_INFO, "%s: conversion running on %s%s, pace %s", job->address, v->device,
		v->active_name ? " (online)" : "", fdw_pace_name(pub->pace));
}

/* Started on a low battery by force: the person chose to run it on battery. */
static bool power_guard_wanted(void)
{
	struct fdw_power pw;

	if (fdw_power_guard_insisted())
		return true;
	fdw_power_read(&pw);
	return !fdw_power_low(&pw, FDW_BATTERY_START_PERCENT);
}

/* Convert, waiting for the charger each time a low battery paused it. */
static int convert_on_power(const struct fdw_volume *v, struct fdw_secret *pass,
			    struct publisher *pub)
{
	int rc;

	for (;;) {
		rc = convert_refreshed(v, pass, pub);
		if (rc != -EINTR || !pub->battery_low)
			break;
		rc = wait_for_charger(pub);
		if (rc)
			break;
	}
	return rc;
}

/* An installed system's boot step, which opens the volume under its crypttab name. */
static void boot_setup(const struct fdw_job *job, const struct fdw_volume *v,
		       struct fdw_secret *pass, struct publisher *pub)
{
	struct fdw_system_boot_result res;

	pub->p.phase = FDW_PHASE_BOOT_SETUP;
	publish(pub);
	fdw_test_point("before-system-boot");
	if (fdw_system_boot_finish(job, v->active_name, pass, &res, pub->p.message,
				   sizeof(pub->p.message)) != 0)
		fdw_log(FDW_LOG_ERROR, "%s: %s", job->address, pub->p.message);
	fdw_secret_wipe(pass);
}

/* Another system's partition: that system's crypttab and fstab (no passphrase needed). */
static void data_setup(const struct fdw_job *job, struct fdw_secret *pass,
		       struct publisher *pub)
{
	struct fdw_system_data_result res;

	pub->p.phase = FDW_PHASE_BOOT_SETUP;
	publish(pub);
	fdw_test_point("before-system-data");
	if (fdw_system_data_finish(job, pass, &res, pub->p.message, sizeof(pub->p.message)) != 0)
		fdw_log(FDW_LOG_ERROR, "%s: %s", job->address, pub->p.message);
	fdw_secret_wipe(pass);
}

/*
 * The header backup, made before the conversion, refreshed to describe the finished
 * volume. When that fails, the record says the backup is stale (status and the results
 * then say there is no valid backup and how to make one): that file cannot restore this
 * volume any more.
 */
static int backup_header(const struct fdw_job *job, const struct fdw_volume *v)
{
	if (fdw_test_fail("header-backup-refresh"))
		return -ENOSPC;
	return fdw_convert_backup_header(v, job->header_backup);
}

/* Is there room beside @path for a file of its size (the refreshed copy, then renamed)? */
static bool room_beside(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct statvfs vfs;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	/* Not known: the refresh is tried and says so itself when it fails. */
	if (stat(path, &st) != 0 || statvfs(slash ? dir : ".", &vfs) != 0)
		return true;
	return (uint64_t)vfs.f_bavail * vfs.f_frsize >= (uint64_t)st.st_size + (1u << 20);
}

static void refresh_backup(struct fdw_job *job, const struct fdw_volume *v)
{
	int rc;

	if (!job->header_backup[0])
		return;
	/*
	 * An end-window repair keeps two copies of the header in the state folder, which can
	 * fill a small one. The final header is proven on the device now, and the backup is
	 * to hold it: they go first when the refresh would not fit, or when it failed.
	 */
	if (!room_beside(job->header_backup))
		fdw_final_window_forget(job->id);
	rc = backup_header(job, v);
	if (rc && fdw_final_window_forget(job->id) > 0)
		rc = backup_header(job, v);
	if (!rc) {
		if (job->header_backup_stale) {
			job->header_backup_stale = false;
			fdw_job_save(job);
		}
		return;
	}
	job->header_backup_stale = true;
	if (fdw_job_save(job) != 0)
		fdw_log(FDW_LOG_ERROR, "%s: could not record that the header backup is stale",
			job->address);
	fdw_log(FDW_LOG_ERROR, "%s: could not refresh the header backup %s (%s); it still "
		"describes the volume before conversion, so there is no valid header backup. The "
		"volume itself is fine. Make one with 'fdewiz header-backup %s FILE', FILE on "
		"another disk", job->address, job->header_backup, strerror(-rc), job->address);
}

/*
 * After a conversion that succeeded: the header backup refreshed, the filesystem grown
 * back, the boot step, the after-benchmark; each published as it begins.
 */
static void after_conversion(const struct fdw_job *done, const struct fdw_volume *v,
			     struct fdw_secret *pass, volatile sig_atomic_t *stop,
			     struct publisher *pub)
{
	struct fdw_job cur = *done;
	const struct fdw_job *job = &cur;

	refresh_backup(&cur, v);
	if (job->fs_to_grow[0] && v->active_name) {
		pub->p.phase = FDW_PHASE_GROWING_FS;
		publish(pub);
		grow_back(job, v);
	}
	if (fdw_system_boot_pending(job))
		boot_setup(job, v, pass, pub);
	if (fdw_system_data_pending(job))
		data_setup(job, pass, pub);
	/* Before the benchmark: a power cut during it must not leave the restart's service. */
	fdw_restart_conclude(job);
	if (job->bench_before[0]) {
		struct fdw_job updated = *job;

		pub->p.phase = FDW_PHASE_BENCHMARKING;
		publish(pub);
		fdw_bench_after(&updated, v->active_name, job->fstype, stop, on_bench, pub);
		pub->p.bench_what[0] = '\0';
	}
}

/* The run's outcome in the status record and the log. */
static void publish_outcome(struct publisher *pub, const struct fdw_job *job, int rc)
{
	/* Only now: with its pid gone, readers take the header's word ("complete"), but the
	 * growing and the after-benchmark still belong to the running conversion. */
	pub->p.pid = 0;
	if (rc == 0) {
		pub->p.state = FDW_JOB_COMPLETE;
		pub->p.done = pub->p.total;
		pub->p.phase = FDW_PHASE_DONE;
		fdw_log(FDW_LOG_INFO, "%s: conversion complete", job->address);
	} else if (rc == -EINTR && fdw_stop_by_system(*pub->stop)) {
		/* Not the person's pause: it goes on at the next start (the restart's service)
		 * or with 'resume', as after any interruption, only without a hotzone to replay. */
		pub->p.state = FDW_JOB_INTERRUPTED;
		snprintf(pub->p.message, sizeof(pub->p.message),
			 _("stopped at a safe point when the system asked (a shutdown or "
			   "restart); the data is intact"));
		fdw_log(FDW_LOG_INFO, "%s: stopped for shutdown at %.1f %% (a safe point)",
			job->address, pub->p.total ? 100.0 * (double)pub->p.done /
			(double)pub->p.total : 0.0);
	} else if (rc == -EINTR) {
		pub->p.state = FDW_JOB_PAUSED;
		fdw_log(FDW_LOG_INFO, "%s: paused at a safe point", job->address);
	} else {
		pub->p.state = FDW_JOB_FAILED;
		stopped_message(&pub->p, job, rc);
		fdw_log(FDW_LOG_ERROR, "%s: conversion stopped at %llu of %llu bytes: %s",
			job->address, (unsigned long long)pub->p.done,
			(unsigned long long)pub->p.total, strerror(-rc));
	}
	publish(pub);
}

/*
 * The conversion runs under the root it converts (the restart's, from the service or
 * 'resume'): its pages locked. Only then: locking all of a process is no small thing.
 */
static void lock_if_under_root(const struct fdw_volume *v)
{
	char path[PATH_MAX];
	struct stat dev, root;

	if (!v->active_name)
		return;
	snprintf(path, sizeof(path), "/dev/mapper/%s", v->active_name);
	if (stat(path, &dev) != 0 || stat("/", &root) != 0 || dev.st_rdev != root.st_dev)
		return;
	fdw_process_lock_pages();
}

int fdw_worker_run(const struct fdw_job *job, const struct fdw_volume *v,
		   struct fdw_secret *pass,
		   volatile sig_atomic_t *stop, fdw_convert_progress_fn echo, void *echo_ctx)
{
	struct publisher pub = { .stop = stop, .last_publish = -1, .echo = echo,
				 .echo_ctx = echo_ctx, .lock = PTHREAD_MUTEX_INITIALIZER };
	int rc;

	lock_if_under_root(v);
	publish_start(&pub, job, v);
	pub.power_guard = power_guard_wanted();
	/* Its priorities for the conversion alone: the boot step and the after-benchmark run
	 * as the process did before (a benchmark at the idle I/O class would measure
	 * nothing). */
	fdw_pace_priority(pub.pace);
	rc = convert_on_power(v, pass, &pub);
	fdw_pace_priority(FDW_PACE_FULL);
	pub.p.yielding = false;
	pub.p.others_bps = 0;
	/* The keyslots are written: nothing after this needs the passphrase, but an installed
	 * system's boot step, which opens the volume under its crypttab name, and another
	 * system's data step, which adds a keyslot for a key file when that system's root is
	 * encrypted. Each wipes it once done. */
	if (rc != 0 || (!fdw_system_boot_pending(job) && !fdw_system_data_pending(job)))
		fdw_secret_wipe(pass);

	pub.p.speed = 0;
	pub.p.eta = rc == 0 ? 0 : -1;
	pub.p.elapsed = now_since(&pub.start);
	if (rc == 0)
		after_conversion(job, v, pass, stop, &pub);
	publish_outcome(&pub, job, rc);
	return rc;
}
