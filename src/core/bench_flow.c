/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmarks an encryption runs on its own: a quick baseline on the plain filesystem
 * before anything changes, and the same benchmark on the opened dm-crypt volume when done.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "bench_flow.h"
#include "i18n.h"
#include "log.h"
#include "target.h"

/*
 * In a mount namespace of its own (the caller is a child made for this): everything is
 * private from "/" down, and a small tmpfs of its own covers the lock directory, so neither
 * the mount nor its directory is ever seen by, or left to, anyone else.
 */
static int mount_private(const char *device, const char *fstype, const char *tag, char *dir,
			 size_t len)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -errno;
	if (mkdir(FDW_LOCK_DIR, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount("fdewiz-bench", FDW_LOCK_DIR, "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0700,size=64k") != 0)
		return -errno;
	snprintf(dir, len, "%s/bench-%s", FDW_LOCK_DIR, tag);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
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

/* Run the chosen kinds in @dir and save the run as @label; the file goes to @out. */
static int bench_in(const char *dir, const char *label, const struct fdw_job *job,
		    const char *cipher, bool with_cipher, volatile sig_atomic_t *stop,
		    char *out, size_t out_len, char *why, size_t len)
{
	static struct fdw_bench_run run;	/* large: keep it off the worker's stack */
	struct fdw_bench_options o = { .dir = dir, .stop = stop };
	int rc;

	if (fdw_bench_scale_parse(job->bench_scale, &o.scale) != 0)
		o.scale = FDW_BENCH_QUICK;

	memset(&run, 0, sizeof(run));
	snprintf(run.label, sizeof(run.label), "%s", label);
	snprintf(run.target, sizeof(run.target), "%s", job->address);
	snprintf(run.device, sizeof(run.device), "%s", job->address);
	snprintf(run.cipher, sizeof(run.cipher), "%s", cipher);
	fdw_bench_run_describe(&run);
	rc = fdw_bench_io(&o, &run, why, len);
	if (!rc)
		rc = fdw_bench_build(&o, &run, why, len);
	if (!rc && with_cipher)
		rc = fdw_bench_cipher(&o, &run, why, len);
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

/* The child: mount, measure, unmount, report; its namespace and mount die with it. */
static void __attribute__((noreturn))
bench_child(int fd, pid_t parent, const char *device, const char *fstype, const char *label,
	    const struct fdw_job *job, const char *cipher, bool with_cipher,
	    volatile sig_atomic_t *stop)
{
	static struct bench_reply r;	/* large: off the stack */
	char dir[PATH_MAX];

	/* Dies with the one who waits for it: a SIGKILL there ends this run here. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(1);
	r.rc = mount_private(device, fstype, job->id, dir, sizeof(dir));
	if (!r.rc) {
		r.mounted = true;
		r.rc = bench_in(dir, label, job, cipher, with_cipher, stop, r.out, sizeof(r.out),
				r.why, sizeof(r.why));
		unmount_private(dir);
	}
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
	_exit(0);
}

/*
 * Benchmark the filesystem on @device mounted in a child's private mount namespace, so a
 * kill of this process (or of the child) takes the mount with it. A stop request (@stop,
 * set by a signal here) is passed on to the child as SIGTERM.
 */
static int bench_mounted(const char *device, const char *fstype, const char *label,
			 const struct fdw_job *job, const char *cipher, bool with_cipher,
			 volatile sig_atomic_t *stop, struct bench_reply *r)
{
	pid_t parent = getpid(), pid;
	int pipefd[2], status;
	size_t got = 0;

	memset(r, 0, sizeof(*r));
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return r->rc = -errno;
	pid = fork();
	if (pid < 0) {
		r->rc = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return r->rc;
	}
	if (pid == 0) {
		close(pipefd[0]);
		bench_child(pipefd[1], parent, device, fstype, label, job, cipher, with_cipher,
			    stop);
	}
	close(pipefd[1]);
	while (got < sizeof(*r)) {
		ssize_t n = read(pipefd[0], (char *)r + got, sizeof(*r) - got);

		if (n < 0 && errno == EINTR) {
			if (stop && *stop)
				kill(pid, SIGTERM);
			continue;
		}
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(*r)) {
		memset(r, 0, sizeof(*r));
		r->rc = -ECHILD;
		snprintf(r->why, sizeof(r->why), _("the benchmark ended without a result."));
	}
	return r->rc;
}

int fdw_bench_before(struct fdw_job *job, const char *device, const char *fstype,
		     char *why, size_t len)
{
	static struct bench_reply r;
	int rc = bench_mounted(device, fstype, "before", job, "", true, NULL, &r);

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
		    volatile sig_atomic_t *stop)
{
	static struct bench_reply r;
	char device[PATH_MAX];
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
	rc = bench_mounted(device, fstype, "after", job, job->cipher, false, stop, &r);
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
