/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs a conversion in the foreground with a progress line, or hands it to a worker. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "conversion.h"
#include "core/clock.h"
#include "core/system_boot.h"
#include "core/convert.h"
#include "core/encrypt_flow.h"
#include "core/i18n.h"
#include "core/stopsig.h"
#include "core/units.h"
#include "core/worker.h"

static volatile sig_atomic_t stop_requested;

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

struct progress_line {
	double start;
	double last_print;
	uint64_t done, total;	/* the last step seen: where a failed run stopped */
};

static double seconds_since(const double *t0)
{
	return fdw_now_s() - *t0;
}

static int print_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct progress_line *pl = ctx;
	double t = seconds_since(&pl->start);
	char d[32], tot[32];

	pl->done = done;
	pl->total = total;
	if (t - pl->last_print >= 0.25 || done == total) {
		pl->last_print = t;
		fprintf(stderr, "\r%s %5.1f%%  %s / %s   ", _("encrypting"),
			total ? 100.0 * (double)done / (double)total : 0.0,
			fdw_format_size(done, d, sizeof(d)), fdw_format_size(total, tot, sizeof(tot)));
	}
	return 0;
}

static int report(const struct fdw_job *job, const struct fdw_volume *v, int rc,
		  const struct progress_line *pl)
{
	double seconds = seconds_since(&pl->start);
	char d[32], tot[32];

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
	/*
	 * The header is on by now: "nothing was changed" would be false, and -ENOENT (a
	 * device or file gone) is no passphrase problem.
	 */
	if (rc == -EPERM)
		fprintf(stderr, _("%s: the passphrase does not open %s. The data is intact; "
				  "continue with '%s resume %s' and the right passphrase.\n"),
			fdw_progname, cli_safe(job->address), fdw_progname, cli_safe(job->address));
	else if (rc == -EIO || rc == -ENXIO || rc == -ENODEV)
		fprintf(stderr, _("%s: the disk failed (%s) at %.1f%% (%s of %s encrypted). "
				  "Nothing is lost: every step is journalled in the LUKS2 header, "
				  "so the conversion can go on from there. Check the disk and its "
				  "cable (dmesg), then continue with '%s resume %s'.\n"),
			fdw_progname, strerror(-rc),
			pl->total ? 100.0 * (double)pl->done / (double)pl->total : 0.0,
			fdw_format_size(pl->done, d, sizeof(d)),
			fdw_format_size(pl->total, tot, sizeof(tot)), fdw_progname,
			cli_safe(job->address));
	else
		fprintf(stderr, _("%s: the conversion stopped: %s. Its state is recorded in the "
				  "header; see '%s status %s', then '%s resume %s'.\n"),
			fdw_progname, strerror(-rc), fdw_progname, cli_safe(job->address),
			fdw_progname, cli_safe(job->address));
	return FDW_EXIT_ERROR;
}

static int said_background(pid_t pid, const struct fdw_job *job, const char *why)
{
	if (pid < 0) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	printf(_("Converting in the background (worker %d). Follow it with "
		 "'%s status --watch %s'.\n"), (int)pid, fdw_progname, job->address);
	return FDW_EXIT_OK;
}

int conversion_resume(struct fdw_resume *r, const struct fdw_secret *pass)
{
	char why[1024] = "";

	return said_background(fdw_resume_start(r, pass, NULL, why, sizeof(why)), &r->job, why);
}

int conversion_launch(struct fdw_encrypt *e, const struct fdw_secret *pass, const char *mount_at)
{
	char why[1024] = "";

	return said_background(fdw_encrypt_launch(e, pass, mount_at, why, sizeof(why)), &e->job,
			       why);
}

int conversion_start(const struct fdw_job *job, struct fdw_target *t, struct fdw_secret *pass,
		     bool foreground, const char *mount_at)
{
	struct progress_line pl = { .last_print = -1 };
	struct fdw_volume v;
	bool offline, mount_failed;
	char why[1024] = "";
	pid_t pid;
	int rc;

	if (!foreground) {
		pid = fdw_launch_background(job, t, pass, mount_at, why, sizeof(why));
		return said_background(pid, job, why);
	}
	rc = fdw_job_open_volume(job, t, &v, pass, mount_at, &offline, &mount_failed, why,
				 sizeof(why));
	if (rc) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	if (offline)
		printf(_("This system has no device-mapper: continuing offline; keep %s "
			 "unmounted until it is done.\n"), job->address);
	if (mount_failed)
		fprintf(stderr, _("%s: warning: %s\n"), fdw_progname, cli_safe(why));
	else if (mount_at && v.active_name)
		printf(_("Mounted at %s; usable while it converts.\n"), mount_at);
	/* A Ctrl-C that came while the header was being written is honoured now. */
	fdw_stop_signals_catch(&stop_requested, false, NULL);
	pl.start = fdw_now_s();
	rc = fdw_worker_run(job, &v, pass, &stop_requested, print_progress, &pl);
	fputc('\n', stderr);
	rc = report(job, &v, rc, &pl);
	if (rc == FDW_EXIT_OK)
		rc = conversion_report_system(job);
	return rc;
}

int conversion_report_system(const struct fdw_job *job)
{
	struct fdw_system_boot_result res;
	bool done = false;

	if (fdw_system_boot_status(job, &res, &done) != 0)
		return FDW_EXIT_OK;
	if (!done) {
		fprintf(stderr, _("%s: the installed system's boot is not set up yet (the log "
				  "says why); the data is intact and encrypted. Run '%s resume %s' "
				  "before starting that system.\n"), fdw_progname, fdw_progname,
			job->address);
		return FDW_EXIT_ERROR;
	}
	printf(_("The installed system's boot is set up. Files changed (each kept as a "
		 "backup):\n"));
	for (char *line = res.changed, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		printf("  %s\n", cli_safe(line));
	}
	return FDW_EXIT_OK;
}
