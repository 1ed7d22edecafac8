/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The benchmarks an encryption runs on its own: a quick baseline on the plain filesystem
 * before anything changes, and the same benchmark on the opened dm-crypt volume when done.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "bench_flow.h"
#include "i18n.h"
#include "log.h"
#include "target.h"

/* Mount @device privately under the lock directory; the caller unmounts. */
static int mount_private(const char *device, const char *fstype, const char *tag, char *dir,
			 size_t len)
{
	if (mkdir(FDW_LOCK_DIR, 0700) != 0 && errno != EEXIST)
		return -errno;
	snprintf(dir, len, "%s/bench-%s", FDW_LOCK_DIR, tag);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (mount(device, dir, fstype, MS_NOATIME | MS_NOSUID | MS_NODEV, NULL) != 0) {
		int rc = -errno;

		rmdir(dir);
		return rc;
	}
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
	rmdir(dir);
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

int fdw_bench_before(struct fdw_job *job, const char *device, const char *fstype,
		     char *why, size_t len)
{
	char dir[PATH_MAX];
	int rc = mount_private(device, fstype, job->id, dir, sizeof(dir));

	if (rc) {
		snprintf(why, len, _("the filesystem could not be mounted for the baseline "
				     "benchmark (%s)."), strerror(-rc));
		return rc;
	}
	rc = bench_in(dir, "before", job, "", true, NULL, job->bench_before,
		      sizeof(job->bench_before), why, len);
	unmount_private(dir);
	return rc;
}

int fdw_bench_after(struct fdw_job *job, const char *active_name, const char *fstype,
		    volatile sig_atomic_t *stop)
{
	char dir[PATH_MAX], device[PATH_MAX], why[512] = "";
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
	rc = mount_private(device, fstype, job->id, dir, sizeof(dir));
	if (rc) {
		snprintf(job->bench_note, sizeof(job->bench_note), "the encrypted volume could "
			 "not be mounted for the after-benchmark (%s)", strerror(-rc));
		return fdw_job_save(job);
	}
	rc = bench_in(dir, "after", job, job->cipher, false, stop, job->bench_after,
		      sizeof(job->bench_after), why, sizeof(why));
	unmount_private(dir);
	if (rc) {
		snprintf(job->bench_note, sizeof(job->bench_note), "the after-benchmark did not "
			 "finish: %s", why);
		fdw_log(FDW_LOG_WARN, "%s: %s", job->address, job->bench_note);
	}
	return fdw_job_save(job);
}
