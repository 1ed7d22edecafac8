/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The running system's root encrypted with one restart: `encrypt --at-restart` prepares
 * it, `cancel` undoes that, `restart-step` runs in the initramfs and `restart-continue`
 * is the booted system's service. The engine decides everything (convert/restart.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_restart.h"
#include "conversion.h"
#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "core/disk/disk_api.h"
#include "events.h"
#include "passphrase.h"

/* Exit status of restart-step for a wrong passphrase: the boot script asks again. */
#define STEP_EXIT_WRONG_PASSPHRASE 3

static void print_restart_plan(const struct fdw_restart_stage *st)
{
	char steps[FDW_RESTART_PLAN_STEPS][FDW_RESTART_PLAN_LEN];

	printf(_("Plan for %s, the running system's root, with one restart:\n"),
	       cli_safe(st->address));
	fdw_restart_plan(st, steps);
	for (int i = 0; i < FDW_RESTART_PLAN_STEPS; i++)
		printf("  %d. %s\n", i + 1, cli_safe(steps[i]));
}

static void print_restart_bench(const struct cli_restart_opts *o, bool can)
{
	if (!can)
		printf(_("  benchmark:       none (an LVM physical volume holds no filesystem of "
			 "its own to measure)\n"));
	else if (o->no_bench)
		printf(_("  benchmark:       off\n"));
	else
		printf(_("  benchmark:       I/O and build benchmark (%s) of the plain root now, "
			 "and of the encrypted one when done ('fdewiz status' shows the "
			 "slowdown)\n"), o->bench_scale ? o->bench_scale : "quick");
}

static void say_armed(const struct fdw_restart_result *res)
{
	if (res->recovery)
		cli_show_recovery_key(res->stage.address, res->recovery_slot, res->recovery);
	printf(_("Prepared: %s carries fdewiz's step. Restart when you are ready; the "
		 "passphrase is asked before the system starts.\n"), cli_safe(res->initrd));
}

int cli_encrypt_at_restart(const char *address, const struct cli_restart_opts *o)
{
	struct fdw_restart_options ro = { .fast_pbkdf = o->fast_pbkdf, .bench = !o->no_bench,
					  .bench_scale = o->bench_scale, .escrow = &o->escrow };
	struct fdw_restart_result res = { .recovery = NULL };
	struct fdw_restart_stage st;
	struct fdw_secret *pass = NULL;
	char why[1024], prompt[256];
	int rc;

	rc = fdw_restart_check(address, &st, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	print_restart_plan(&st);
	ro.bench = ro.bench && fdw_restart_can_bench(&st);
	print_restart_bench(o, fdw_restart_can_bench(&st));
	if (o->dry_run) {
		printf(_("Dry run: nothing was changed.\n"));
		return FDW_EXIT_OK;
	}
	/* TRANSLATORS: the word the user types to confirm; the same as in 'encrypt'. */
	snprintf(prompt, sizeof(prompt), _("Type %s to encrypt it at the next restart: "),
		 _("YES"));
	if (!o->yes && !cli_confirm_typed(prompt, _("YES"))) {
		printf(_("Not confirmed. Nothing was changed.\n"));
		return FDW_EXIT_ERROR;
	}
	pass = passphrase_get(o->key_file, true);
	if (!pass || passphrase_check_new(pass, o->accept_weak, !o->yes && isatty(STDIN_FILENO))) {
		fdw_secret_free(pass);
		return FDW_EXIT_ERROR;
	}
	if (ro.bench)
		printf(_("Benchmarking the plain root (--no-bench skips it)...\n"));
	printf(_("Preparing (the header's key derivation and the initramfs take a while)...\n"));
	fflush(stdout);
	rc = fdw_restart_arm(address, pass, &ro, &res, why, sizeof(why));
	fdw_secret_free(pass);
	if (rc) {
		cli_event("failed", "device", address, "reason", why, NULL);
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	cli_event("prepared", "device", address, "luks_uuid", res.stage.uuid, "initramfs",
		  res.initrd, "escrowed", fdw_escrow_wanted(&o->escrow) ? "yes" : "no", NULL);
	cli_event("restart-needed", "device", address, NULL);
	say_armed(&res);
	fdw_restart_result_wipe(&res);
	return FDW_EXIT_OK;
}

int cmd_cancel(int argc, char **argv)
{
	char why[1024] = "";

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf(_("Usage: %s cancel\nUndo the preparation of an encryption at the next "
			 "restart, before that restart.\n"), fdw_progname);
		return FDW_EXIT_OK;
	}
	if (argc != 1 || geteuid() != 0) {
		fprintf(stderr, argc != 1 ? _("Usage: %s cancel\nUndo the preparation of an "
					      "encryption at the next restart, before that "
					      "restart.\n") :
			_("%s: cancel needs root; run it with sudo. Nothing was changed.\n"),
			fdw_progname);
		return argc != 1 ? FDW_EXIT_USAGE : FDW_EXIT_ERROR;
	}
	if (fdw_restart_cancel(why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	printf(_("Cancelled: the initramfs no longer carries fdewiz's step, the prepared "
		 "header is removed; the system starts as before.\n"));
	return FDW_EXIT_OK;
}

/* On the console before the system starts: what the step is doing, for the person waiting. */
static void say_step_phase(enum fdw_phase phase, void *ctx)
{
	(void)ctx;
	if (phase == FDW_PHASE_MOVING_BOOT)
		fprintf(stderr, _("fdewiz: making /boot a partition of its own (the root shrunk, "
				  "/boot copied, GRUB reinstalled)...\n"));
	else if (phase == FDW_PHASE_SHRINKING)
		fprintf(stderr, _("fdewiz: checking and shrinking the root filesystem...\n"));
	else if (phase == FDW_PHASE_INITIALISING)
		fprintf(stderr, _("fdewiz: writing the LUKS2 header...\n"));
}

/*
 * In the initramfs everything the engine logs goes to the step's log (the started system
 * keeps it in /run), warnings and errors to the console too, as everywhere.
 */
static FILE *step_log;

static void step_log_sink(enum fdw_log_level level, const char *msg, void *ctx)
{
	static const char *const prefix[] = { "debug", "info", "warning", "error" };

	(void)ctx;
	if (step_log) {
		fprintf(step_log, "%s: %s\n", prefix[level], cli_safe(msg));
		fflush(step_log);
	}
	if (level >= FDW_LOG_WARN)
		fprintf(stderr, "%s: %s: %s\n", fdw_progname, prefix[level], cli_safe(msg));
}

static void step_log_open(void)
{
	int fd;

	if (mkdir("/run/" FDW_RESTART_NAME, 0700) != 0 && errno != EEXIST)
		return;
	fd = open(FDW_RESTART_STEP_LOG, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	step_log = fd < 0 ? NULL : fdopen(fd, "a");
	if (fd >= 0 && !step_log)
		close(fd);
	if (step_log)
		fdw_log_set_sink(step_log_sink, NULL);
}

int cmd_restart_step(int argc, char **argv)
{
	struct fdw_secret *pass = NULL;
	char why[1024] = "", mapper[128];
	double start;
	int rc;

	if (argc != 2)
		return FDW_EXIT_USAGE;
	fdw_secret_harden_process();
	step_log_open();
	rc = fdw_secret_new(&pass, 8192);
	if (!rc)
		rc = fdw_secret_read_file(pass, "-");
	start = fdw_now_s();
	if (!rc)
		rc = fdw_restart_step(argv[1], pass, say_step_phase, NULL, mapper, sizeof(mapper), why,
				      sizeof(why));
	fdw_secret_free(pass);
	if (rc == -EKEYREJECTED) {
		fprintf(stderr, _("fdewiz: that passphrase does not open the prepared header; try "
				  "again.\n"));
		return STEP_EXIT_WRONG_PASSPHRASE;
	}
	if (rc) {
		fprintf(stderr, "fdewiz: %s\n", why[0] ? why : strerror(-rc));
		if (step_log)
			fprintf(stderr, _("fdewiz: its log, kept until the next restart: %s\n"),
				FDW_RESTART_STEP_LOG);
		return FDW_EXIT_ERROR;
	}
	fprintf(stderr, _("fdewiz: the root is encrypted from here on (this step took %.0f s); "
			  "it converts in the background once the system has started.\n"),
		fdw_now_s() - start);
	printf("%s\n", mapper);
	return FDW_EXIT_OK;
}

int cmd_restart_continue(int argc, char **argv)
{
	/* Its passphrase opened the volume in the step already: not checked again. */
	const struct fdw_resume_how how = { .foreground = true, .passphrase_known = true,
					    .ops = conversion_ops() };
	struct fdw_restart_stage st;
	struct fdw_secret *pass = NULL;
	struct fdw_resume *r = NULL;
	char why[1024] = "", device[PATH_MAX];
	int rc, exit_code = FDW_EXIT_ERROR;

	(void)argv;
	if (argc != 1)
		return FDW_EXIT_USAGE;
	/* The service's standard error is its journal: the engine's notes belong there, as a
	 * background conversion's go to the system log. */
	cli_show_info();
	fdw_secret_harden_process();
	rc = fdw_restart_take_over(&st, &pass, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		/* Not begun, or paused by the person: nothing failed here. */
		return rc == -EAGAIN || rc == -EINTR ? FDW_EXIT_OK : FDW_EXIT_ERROR;
	}
	if (!realpath(st.device, device))
		snprintf(device, sizeof(device), "%s", st.device);
	rc = fdw_resume_open(device, &r, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
	} else if (fdw_resume_kind(r) == FDW_RESUME_CONVERSION && !pass) {
		fprintf(stderr, _("%s: the passphrase typed at this start is not in the kernel's "
				  "keyring; go on with: fdewiz resume %s\n"), fdw_progname,
			cli_safe(st.address));
	} else {
		/* Converted, the power gone while the boot was set up: that step is left.
		 * Else the conversion, in this process (the service is its worker). */
		exit_code = conversion_resume(r, pass, &how);
		/* 'fdewiz pause' or a shutdown stopped it at a safe point: the service ends
		 * without a failure (a shutdown's goes on at the next start). */
		if (exit_code != FDW_EXIT_OK && fdw_resume_kind(r) == FDW_RESUME_CONVERSION &&
		    fdw_restart_stopped_safely(&st))
			exit_code = FDW_EXIT_OK;
	}
	fdw_resume_close(r);
	fdw_secret_free(pass);
	return exit_code;
}
