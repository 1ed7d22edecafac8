/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shows a conversion the engine runs in the foreground, or hands to a worker. */
#include "config.h"

#include <stdio.h>

#include "cli.h"
#include "conversion.h"
#include "events.h"
#include "core/convert/convert_api.h"
#include "core/base/base_api.h"

static void print_progress_as(const char *doing, const struct fdw_foreground_progress *p)
{
	static double evented = -1;
	char d[32], tot[32];

	/* Events once a second, and the last one. */
	if (p->seconds - evented >= 1.0 || p->done == p->total || p->seconds < evented) {
		cli_event_progress(p->done, p->total, p->percent, p->seconds);
		evented = p->seconds;
	}
	fprintf(stderr, "\r%s %5.1f%%  %s / %s   ", doing, p->percent,
		fdw_format_size(p->done, d, sizeof(d)), fdw_format_size(p->total, tot, sizeof(tot)));
	cli_progress_pending(true);
}

static void print_progress(const struct fdw_foreground_progress *p, void *ctx)
{
	(void)ctx;
	print_progress_as(_("encrypting"), p);
}

static void print_decrypting(const struct fdw_foreground_progress *p, void *ctx)
{
	(void)ctx;
	print_progress_as(_("decrypting"), p);
}

static void end_progress(void *ctx)
{
	(void)ctx;
	fputc('\n', stderr);
	cli_progress_pending(false);
}

static void print_line(enum fdw_say kind, const char *line, void *ctx)
{
	static const char *const kinds[] = { [FDW_SAY_INFO] = "info",
		[FDW_SAY_LIST_ITEM] = "item", [FDW_SAY_WARNING] = "warning",
		[FDW_SAY_ERROR] = "error" };

	(void)ctx;
	cli_event("said", "kind", kinds[kind], "text", line, NULL);
	cli_line_break();
	switch (kind) {
	case FDW_SAY_INFO:
		/* Before a long step (the boot's): seen at once, in order with stderr. */
		printf("%s\n", cli_safe(line));
		fflush(stdout);
		break;
	case FDW_SAY_LIST_ITEM:
		printf("  %s\n", cli_safe(line));
		break;
	case FDW_SAY_WARNING:
		fprintf(stderr, _("%s: warning: %s\n"), fdw_progname, cli_safe(line));
		break;
	case FDW_SAY_ERROR:
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(line));
		break;
	}
}

static const struct fdw_foreground_ops shown = {
	.progress = print_progress,
	.ended = end_progress,
	.say = print_line,
};

static const struct fdw_foreground_ops shown_decrypting = {
	.progress = print_decrypting,
	.ended = end_progress,
	.say = print_line,
};

static int said_background(pid_t pid, const struct fdw_job *job, const char *why)
{
	if (pid < 0) {
		cli_event("failed", "device", job->address, "reason", why, NULL);
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	cli_event_launched(job->address, (long)pid);
	printf(_("Converting in the background (worker %d). Follow it with "
		 "'%s status --watch %s'.\n"), (int)pid, fdw_progname, cli_safe(job->address));
	return FDW_EXIT_OK;
}

int conversion_resume(struct fdw_resume *r, struct fdw_secret *pass,
		      const struct fdw_resume_how *how)
{
	char why[1024] = "";
	pid_t worker = 0;
	int rc = fdw_resume_run(r, pass, how, &worker, why, sizeof(why));

	if (rc) {
		/* What a foreground step said is said already; @why is the rest. */
		if (why[0])
			fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	if (worker)
		return said_background(worker, fdw_resume_job(r), why);
	return FDW_EXIT_OK;
}

const struct fdw_foreground_ops *conversion_ops(void)
{
	return &shown;
}

const struct fdw_foreground_ops *conversion_decrypt_ops(void)
{
	return &shown_decrypting;
}

int conversion_launch(struct fdw_encrypt *e, const struct fdw_secret *pass, const char *mount_at)
{
	char why[1024] = "";

	return said_background(fdw_encrypt_launch(e, pass, mount_at, why, sizeof(why)),
			       fdw_encrypt_job(e), why);
}

int conversion_foreground(const struct fdw_job *job, struct fdw_target *t,
			  struct fdw_secret *pass, const char *mount_at)
{
	return fdw_conversion_foreground(job, t, pass, mount_at, &shown) ? FDW_EXIT_ERROR
									  : FDW_EXIT_OK;
}

int conversion_foreground_started(struct fdw_encrypt *e, struct fdw_secret *pass,
				  const char *mount_at)
{
	return fdw_encrypt_foreground(e, pass, mount_at, &shown) ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}
