/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A recorded conversion run in this process: progress, stop requests, what to tell the person. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "encrypt_flow.h"
#include "foreground.h"
#include "launch.h"
#include "encrypt_internal.h"
#include "base/i18n.h"
#include "results.h"
#include "base/stopsig.h"
#include "boot/system_boot.h"
#include "boot/system_data.h"
#include "base/units.h"
#include "worker.h"

/* A progress report at most this often (and always for the last step). */
#define PROGRESS_EVERY_S 0.25

struct fg_run {
	const struct fdw_foreground_ops *ops;
	struct fdw_foreground_progress p;	/* the last step seen: where a failed run stopped */
	double start, last_report;
};

static volatile sig_atomic_t stop_requested;

void fdw_ops_say(const struct fdw_foreground_ops *ops, enum fdw_say kind, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ops->say)
		ops->say(kind, line, ops->ctx);
}

void fdw_ops_progress(const struct fdw_foreground_ops *ops, struct fdw_foreground_progress *p,
		      double *last_report, uint64_t done, uint64_t total, double t)
{
	p->done = done;
	p->total = total;
	p->percent = total ? 100.0 * (double)done / (double)total : 0.0;
	p->seconds = t;
	if (ops->progress && (t - *last_report >= PROGRESS_EVERY_S || done == total)) {
		*last_report = t;
		ops->progress(p, ops->ctx);
	}
}

static int on_step(uint64_t done, uint64_t total, void *ctx)
{
	struct fg_run *run = ctx;

	fdw_ops_progress(run->ops, &run->p, &run->last_report, done, total,
			 fdw_now_s() - run->start);
	return 0;
}

/* The worker records a header backup it could not refresh: say so, and how to make one. */
static void say_backup(const struct fdw_foreground_ops *ops, const struct fdw_job *job)
{
	static struct fdw_job rec;
	char why[PATH_MAX * 2 + 512];

	if (fdw_job_find_id(job->id, &rec) == 0 && fdw_results_backup_stale(&rec, why,
									    sizeof(why)))
		fdw_ops_say(ops, FDW_SAY_WARNING, "%s", why);
}

/* What the worker's return means for the person, after the header is on. */
static void say_outcome(const struct fg_run *run, const struct fdw_job *job,
			const struct fdw_volume *v, int rc)
{
	const struct fdw_foreground_ops *ops = run->ops;
	char d[32], tot[32];

	if (rc == 0) {
		fdw_ops_say(ops, FDW_SAY_INFO, _("%s is now encrypted (%.0f s)."), job->address,
			    fdw_now_s() - run->start);
		if (v->active_name)
			fdw_ops_say(ops, FDW_SAY_INFO,
				    _("It stays open as /dev/mapper/%s; close it with "
				      "'cryptsetup close %s' once it is unmounted."),
				    v->active_name, v->active_name);
		say_backup(ops, job);
	} else if (rc == -EINTR && fdw_stop_by_system(stop_requested)) {
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("Stopped at a safe point at %.1f%%, as the system asked (a "
			      "shutdown or restart). The data is intact; it goes on with "
			      "'fdewiz resume %s' (after the restart of 'encrypt "
			      "--at-restart', by itself)."),
			    run->p.percent, job->address);
	} else if (rc == -EINTR) {
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("Stopped at a safe point. The data is intact; continue "
			      "with 'fdewiz resume %s'."),
			    job->address);
	} else if (rc == -EPERM) {
		/* The header is on by now: "nothing was changed" would be false, and -ENOENT
		 * (a device or file gone) is no passphrase problem. */
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("the passphrase does not open %s. The data is intact; "
			      "continue with 'fdewiz resume %s' and the right "
			      "passphrase."),
			    job->address, job->address);
	} else if (rc == -EIO || rc == -ENXIO || rc == -ENODEV) {
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("the disk failed (%s) at %.1f%% (%s of %s encrypted). "
			      "Nothing is lost: every step is journalled in the LUKS2 "
			      "header, so the conversion can go on from there. Check the "
			      "disk and its cable (dmesg), then continue with 'fdewiz "
			      "resume %s'."),
			    strerror(-rc), run->p.percent,
			    fdw_format_size(run->p.done, d, sizeof(d)),
			    fdw_format_size(run->p.total, tot, sizeof(tot)), job->address);
	} else {
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("the conversion stopped: %s. Its state is recorded in "
			      "the header; see 'fdewiz status %s', then 'fdewiz resume "
			      "%s'."),
			    strerror(-rc), job->address, job->address);
	}
}

int fdw_system_boot_report(const struct fdw_job *job, const struct fdw_foreground_ops *ops)
{
	struct fdw_system_boot_result res;
	bool done = false;

	if (fdw_system_boot_status(job, &res, &done) != 0)
		return 0;
	if (!done) {
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("the installed system's boot is not set up yet (the log "
			      "says why); the data is intact and encrypted. Run 'fdewiz "
			      "resume %s' before starting that system."),
			    job->address);
		return -EAGAIN;
	}
	fdw_ops_say(ops, FDW_SAY_INFO,
		    _("The installed system's boot is set up. Files changed (each "
		      "kept as a backup):"));
	for (char *line = res.changed, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		fdw_ops_say(ops, FDW_SAY_LIST_ITEM, "%s", line);
	}
	if (res.tpm_pcrs[0] && res.tpm_slot >= 0)
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("It unlocks with this computer's TPM at its start (keyslot "
			      "%d, sealed to PCR %s); when the TPM refuses it asks for "
			      "the passphrase, and the recovery key works there too."),
			    res.tpm_slot, res.tpm_pcrs);
	else if (res.tpm_why[0])
		fdw_ops_say(ops, FDW_SAY_WARNING, "%s", res.tpm_why);
	return 0;
}

int fdw_system_data_report(const struct fdw_job *job, const struct fdw_foreground_ops *ops)
{
	struct fdw_system_data_result res;
	bool done = false;

	if (fdw_system_data_status(job, &res, &done) != 0)
		return 0;
	if (!done) {
		fdw_ops_say(ops, FDW_SAY_ERROR,
			    _("the crypttab of the system on %s is not written yet (the "
			      "log says why); the data is intact and encrypted. Run "
			      "'fdewiz resume %s' before starting that system."),
			    res.root_address, job->address);
		return -EAGAIN;
	}
	if (res.key_file)
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("The system on %s opens it at boot with a key file "
			      "inside its encrypted root (one passphrase at boot): its "
			      "etc/crypttab has '%s'."),
			    res.root_address, res.line);
	else
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("The system on %s opens it at boot (it asks for the "
			      "passphrase): its etc/crypttab has '%s'."),
			    res.root_address, res.line);
	if (res.changed[0])
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("Files changed in that system (each kept as a backup):"));
	for (char *line = res.changed, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		fdw_ops_say(ops, FDW_SAY_LIST_ITEM, "%s", line);
	}
	return 0;
}

int fdw_conversion_foreground(const struct fdw_job *job, struct fdw_target *t,
			      struct fdw_secret *pass, const char *mount_at,
			      const struct fdw_foreground_ops *ops)
{
	struct fg_run run = { .ops = ops, .last_report = -1 };
	struct fdw_volume v;
	bool offline, mount_failed;
	char why[1024] = "";
	int rc;

	rc = fdw_job_open_volume(job, t, &v, pass, mount_at, &offline, &mount_failed, why,
				 sizeof(why));
	if (rc) {
		fdw_ops_say(ops, FDW_SAY_ERROR, "%s", why);
		return rc;
	}
	if (offline)
		fdw_ops_say(ops, FDW_SAY_INFO,
			    _("This system has no device-mapper: continuing offline; "
			      "keep %s unmounted until it is done."),
			    job->address);
	if (mount_failed)
		fdw_ops_say(ops, FDW_SAY_WARNING, "%s", why);
	else if (mount_at && v.active_name)
		fdw_ops_say(ops, FDW_SAY_INFO, _("Mounted at %s; usable while it converts."),
			    mount_at);
	/* A Ctrl-C that came while the header was being written is honoured now. */
	fdw_stop_signals_catch(&stop_requested, false, NULL);
	run.start = fdw_now_s();
	rc = fdw_worker_run(job, &v, pass, &stop_requested, on_step, &run);
	if (ops->ended)
		ops->ended(ops->ctx);
	say_outcome(&run, job, &v, rc);
	/* The person at the terminal saw it end: the wizard need not bring it up again. */
	if (rc == 0)
		fdw_job_mark_seen(job);
	if (rc == 0)
		rc = fdw_system_boot_report(job, ops);
	if (rc == 0)
		rc = fdw_system_data_report(job, ops);
	return rc;
}
