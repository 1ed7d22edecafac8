/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmarks an encryption runs on its own: a quick baseline on the plain filesystem
 * before anything changes, and the same benchmark on the opened dm-crypt volume when done.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "bench_flow.h"
#include "base/testhook.h"
#include "base/clock.h"
#include "base/child.h"
#include "base/i18n.h"
#include "base/log.h"
#include "disk/private_mount.h"

/*
 * In a mount namespace of its own (the caller is a child made for this): everything is
 * private from "/" down, and a small tmpfs of its own covers the lock directory, so neither
 * the mount nor its directory is ever seen by, or left to, anyone else.
 */
static int mount_private(const char *device, const char *fstype, const char *tag, char *dir,
			 size_t len)
{
	char name[64];
	int rc;

	snprintf(name, sizeof(name), "bench-%s", tag);
	rc = fdw_private_mount_dir(name, dir, len);
	if (rc)
		return rc;
	if (mount(device, dir, fstype, MS_NOATIME | MS_NOSUID | MS_NODEV, NULL) != 0)
		return -errno;
	return 0;
}

static void unmount_private(const char *dir)
{
	/* A benchmark just closed its files; a busy unmount clears within moments. */
	for (int i = 0; i < 50; i++) {
		if (umount2(dir, 0) == 0 || errno == EINVAL)
			break;
		usleep(100000);
	}
}

void fdw_bench_status_make(struct fdw_bench_status *s, const char *what, double base,
			   double weight, double fraction, double took)
{
	double whole = base + weight * fraction;

	whole = whole < 0 ? 0 : whole > 1 ? 1 : whole;
	snprintf(s->what, sizeof(s->what), "%s", what ? what : "");
	s->fraction = whole;
	/* Only once there is something to go by: the first steps say little of the rest. */
	s->left = whole >= 0.03 && took >= 2 ? took / whole * (1 - whole) : -1;
}

/* The child's side of the status: the whole benchmark's figures, down a pipe. */
struct relay {
	int fd;			/* write end, non-blocking; -1: nobody listens */
	double start;		/* fdw_now_s() when the first kind began */
	double base, weight;	/* the share done before the running kind, and its own */
};

static int relay_progress(const char *what, double fraction, void *ctx)
{
	struct relay *rl = ctx;
	struct fdw_bench_status s;

	if (rl->fd < 0)
		return 0;
	fdw_bench_status_make(&s, what, rl->base, rl->weight, fraction, fdw_now_s() - rl->start);
	/* One record is far below PIPE_BUF, so it arrives whole; a full pipe drops this step
	 * (the next one says more) rather than slowing the measurement down. */
	if (write(rl->fd, &s, sizeof(s)) < 0 && errno != EAGAIN)
		rl->fd = -1;
	return 0;	/* a stop request reaches the tests through o->stop */
}

typedef int (*bench_kind_fn)(const struct fdw_bench_options *, struct fdw_bench_run *,
			     char *, size_t);

/* The kinds one after the other, each given its share of the whole for the status. */
static int run_kinds(const struct fdw_bench_options *o, struct fdw_bench_run *run,
		     struct relay *rl, bool with_cipher, char *why, size_t len)
{
	/* Each kind's rough share of the time, for one bar over the whole benchmark. */
	static const struct {
		bench_kind_fn fn;
		double weight;
	} kinds[] = {
		{ fdw_bench_io, 6 },
		{ fdw_bench_build, 3 },
		{ fdw_bench_cipher, 1 },
	};
	size_t i, n = with_cipher ? 3 : 2;
	double total = 0;
	int rc;

	for (i = 0; i < n; i++)
		total += kinds[i].weight;
	rl->start = fdw_now_s();
	rl->base = 0;
	rl->weight = 0;
	for (i = 0; i < n; i++) {
		rl->base += rl->weight;
		rl->weight = kinds[i].weight / total;
		rc = kinds[i].fn(o, run, why, len);
		if (rc)
			return rc;
	}
	return 0;
}

/* Run the chosen kinds in @dir and save the run as @label; the file goes to @out. */
static int bench_in(const char *dir, const char *label, const struct fdw_job *job,
		    const char *cipher, bool with_cipher, volatile sig_atomic_t *stop,
		    int status_fd, char *out, size_t out_len, char *why, size_t len)
{
	static struct fdw_bench_run run;	/* large: keep it off the worker's stack */
	struct relay rl = { .fd = status_fd };
	struct fdw_bench_options o = { .dir = dir, .stop = stop, .progress = relay_progress,
				       .progress_ctx = &rl };
	int rc;

	if (fdw_bench_scale_parse(job->bench_scale, &o.scale) != 0)
		o.scale = FDW_BENCH_QUICK;
	o.repeats = fdw_test_bench_repeats();

	memset(&run, 0, sizeof(run));
	snprintf(run.label, sizeof(run.label), "%s", label);
	snprintf(run.target, sizeof(run.target), "%s", job->address);
	snprintf(run.device, sizeof(run.device), "%s", job->address);
	snprintf(run.cipher, sizeof(run.cipher), "%s", cipher);
	fdw_bench_run_describe(&run);
	rc = run_kinds(&o, &run, &rl, with_cipher, why, len);
	if (rc)
		return rc;
	/* The scratch mount is gone after this: name what was measured instead. */
	snprintf(run.target, sizeof(run.target), "%s", job->address);
	rc = fdw_bench_dir_ensure();
	snprintf(out, out_len, "%s/%s-%.8s.json", fdw_bench_dir(), label, job->id);
	if (!rc)
		rc = fdw_bench_run_save(&run, out);
	if (rc) {
		snprintf(why, len, _("cannot save the results to %s: %s."), out, strerror(-rc));
		out[0] = '\0';
	}
	return rc;
}

/* What the benchmarking child tells its parent. */
struct bench_reply {
	int rc;
	bool mounted;
	char out[PATH_MAX];
	char why[1024];
};

/* One benchmark run: where, what, and who hears its steps. */
struct bench_req {
	const char *device, *fstype, *label, *cipher;
	const struct fdw_job *job;
	bool with_cipher;
	volatile sig_atomic_t *stop;
	fdw_bench_status_fn status;	/* may be NULL */
	void *ctx;
};

/* The child: mount, measure, unmount, report; its namespace and mount die with it. */
static int bench_child(void *ctx, int fd, int status_fd)
{
	static struct bench_reply r;	/* large: off the stack */
	const struct bench_req *q = ctx;
	char dir[PATH_MAX];

	if (status_fd >= 0 && fcntl(status_fd, F_SETFL, O_NONBLOCK) != 0)
		status_fd = -1;
	r.rc = mount_private(q->device, q->fstype, q->job->id, dir, sizeof(dir));
	if (!r.rc) {
		r.mounted = true;
		r.rc = bench_in(dir, q->label, q->job, q->cipher, q->with_cipher, q->stop,
				status_fd, r.out, sizeof(r.out), r.why, sizeof(r.why));
		unmount_private(dir);
	}
	return fdw_child_send(fd, &r, sizeof(r)) ? 1 : 0;
}

/* A step's status from the child: pass it on; false once that pipe is done. */
static bool status_read(int fd, const struct bench_req *q)
{
	struct fdw_bench_status s;
	ssize_t n = read(fd, &s, sizeof(s));

	if (n < 0 && errno == EINTR)
		return true;
	if (n != (ssize_t)sizeof(s))
		return false;
	s.what[sizeof(s.what) - 1] = '\0';
	if (q->status)
		q->status(&s, q->ctx);
	return true;
}

/*
 * The parent's side: the child's steps as they come, until its reply is read whole. A
 * stop request (@q->stop, set by a signal here) is passed on to the child as SIGTERM.
 */
static size_t reply_read(int fd, int status_fd, pid_t pid, const struct bench_req *q,
			 struct bench_reply *r)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
				 { .fd = status_fd, .events = POLLIN } };
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(*r)) {
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno != EINTR)
				break;
			if (q->stop && *q->stop)
				kill(pid, SIGTERM);
			continue;
		}
		/* Steps first: they were written before the reply. */
		if (pfd[1].fd >= 0 && pfd[1].revents && !status_read(pfd[1].fd, q))
			pfd[1].fd = -1;
		if (!pfd[0].revents)
			continue;
		n = read(fd, (char *)r + got, sizeof(*r) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/*
 * Benchmark the filesystem on @q->device mounted in a child's private mount namespace, so
 * a kill of this process (or of the child) takes the mount with it.
 */
static int bench_mounted(const struct bench_req *q, struct bench_reply *r)
{
	/* Dies with the one who waits for it: a SIGKILL there ends this run here. */
	const struct fdw_child_opts o = { .status_pipe = true, .parent_death_signal = SIGKILL };
	struct fdw_child c;
	size_t got;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = fdw_child_start(&c, &o, bench_child, (void *)q);
	if (rc)
		return r->rc = rc;
	got = reply_read(c.reply_fd, c.status_fd, c.pid, q, r);
	fdw_child_reap(&c);
	if (got != sizeof(*r)) {
		memset(r, 0, sizeof(*r));
		r->rc = -ECHILD;
		snprintf(r->why, sizeof(r->why), _("the benchmark ended without a result."));
	}
	return r->rc;
}

int fdw_bench_before(struct fdw_job *job, const char *device, const char *fstype,
		     fdw_bench_status_fn status, void *ctx, char *why, size_t len)
{
	static struct bench_reply r;
	const struct bench_req q = { .device = device, .fstype = fstype, .label = "before",
				     .cipher = "", .job = job, .with_cipher = true,
				     .status = status, .ctx = ctx };
	int rc = bench_mounted(&q, &r);

	if (rc && !r.mounted)
		snprintf(why, len, _("the filesystem could not be mounted for the baseline "
				     "benchmark (%s)."), strerror(-rc));
	else if (rc)
		snprintf(why, len, "%s", r.why);
	else
		snprintf(job->bench_before, sizeof(job->bench_before), "%s", r.out);
	return rc;
}

int fdw_bench_after(struct fdw_job *job, const char *active_name, const char *fstype,
		    volatile sig_atomic_t *stop, fdw_bench_status_fn status, void *ctx)
{
	static struct bench_reply r;
	char device[PATH_MAX];
	struct bench_req q = { .device = device, .fstype = fstype, .label = "after",
			       .cipher = job->cipher, .job = job, .stop = stop,
			       .status = status, .ctx = ctx };
	int rc;

	if (!job->bench_before[0])
		return 0;
	if (!active_name) {
		snprintf(job->bench_note, sizeof(job->bench_note), "the encrypted volume is not "
			 "open (this system has no device-mapper or the run was offline), so the "
			 "after-benchmark could not run");
		return fdw_job_save(job);
	}
	snprintf(device, sizeof(device), "/dev/mapper/%s", active_name);
	rc = bench_mounted(&q, &r);
	if (rc && !r.mounted) {
		snprintf(job->bench_note, sizeof(job->bench_note), "the encrypted volume could "
			 "not be mounted for the after-benchmark (%s)", strerror(-rc));
	} else if (rc) {
		snprintf(job->bench_note, sizeof(job->bench_note), "the after-benchmark did not "
			 "finish: %.200s", r.why);
		fdw_log(FDW_LOG_WARN, "%s: %s", job->address, job->bench_note);
	} else {
		snprintf(job->bench_after, sizeof(job->bench_after), "%s", r.out);
	}
	return fdw_job_save(job);
}
