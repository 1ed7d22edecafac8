/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz header-backup` and `header-restore`, and the target helpers of the finishing commands. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/convert/convert_api.h"
#include "core/luks2/luks2_api.h"
#include "core/base/base_api.h"
#include "core/disk/disk_api.h"

int cli_open_target(const char *address, struct fdw_target *t)
{
	int rc = fdw_target_open(address, t);

	if (rc) {
		fprintf(stderr, _("%s: %s: %s. Nothing was changed.\n"), fdw_progname,
			cli_safe(address), fdw_scan_error_text(rc));
		return rc;
	}
	rc = fdw_target_attach(t);
	if (rc) {
		fprintf(stderr, _("%s: %s: could not attach a loop device to reach the partition: "
				  "%s. Nothing was changed.\n"), fdw_progname,
			cli_safe(address), strerror(-rc));
		fdw_target_close(t);
	}
	return rc;
}

int cli_lock_target(const struct fdw_target *t, const char *address)
{
	int fd = fdw_target_lock(t);

	if (fd == -EBUSY)
		fprintf(stderr, _("%s: %s: another fdewiz is converting this partition right now. "
				  "Nothing was changed; wait until it is done (see '%s status') or "
				  "pause it first.\n"), fdw_progname, cli_safe(address),
			fdw_progname);
	else if (fd < 0)
		fprintf(stderr, _("%s: %s: cannot take the partition's lock in %s: %s. Nothing was "
				  "changed.\n"), fdw_progname, cli_safe(address), FDW_LOCK_DIR,
			strerror(-fd));
	return fd;
}

bool cli_confirm_typed(const char *prompt, const char *expect)
{
	char answer[4096];
	size_t len = 0;

	fputs(prompt, stdout);
	fflush(stdout);
	/* Byte by byte: a key that follows on stdin must stay there for the next reader. */
	for (;;) {
		char c;
		ssize_t r = read(STDIN_FILENO, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			putchar('\n');
			return false;
		}
		if (c == '\n')
			break;
		if (len + 1 < sizeof(answer))
			answer[len++] = c;
	}
	answer[len] = '\0';
	return strcmp(answer, expect) == 0;
}

static void backup_usage(FILE *out)
{
	fprintf(out, _("Usage: %s header-backup DEVICE|IMAGE:N FILE\n"
		       "\n"
		       "Write the LUKS2 header of an encrypted partition to FILE, a new file (never\n"
		       "overwritten). Keep it on another disk: with it, a damaged header can be\n"
		       "restored with header-restore.\n"), fdw_progname);
}

static void restore_usage(FILE *out)
{
	fprintf(out, _("Usage: %s header-restore [--yes] DEVICE|IMAGE:N FILE\n"
		       "\n"
		       "Write the LUKS2 header backup FILE back onto the partition it was taken from.\n"
		       "A backup of another volume is refused. Keyslots added or removed since the\n"
		       "backup are undone.\n"
		       "\n"
		       "  --yes    do not ask for the typed confirmation\n"), fdw_progname);
}

int cmd_header_backup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct fdw_target t;
	char why[1024];
	int c, rc, lock;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			backup_usage(stdout);
			return FDW_EXIT_OK;
		}
		cli_usage_error("header-backup");
		return FDW_EXIT_USAGE;
	}
	/* A header holds the keyslots: no core dump may hold a copy of it. */
	fdw_secret_harden_process();
	if (argc - optind != 2) {
		backup_usage(stderr);
		cli_usage_error("header-backup");
		return FDW_EXIT_USAGE;
	}
	if (cli_open_target(argv[optind], &t))
		return FDW_EXIT_ERROR;
	/*
	 * A backup copies keyslots and all through libcryptsetup, whose load may repair the
	 * header in place: that is a write, made under the partition's lock like every other.
	 * While a conversion holds it, the copy would be stale a moment later anyway.
	 */
	lock = cli_lock_target(&t, argv[optind]);
	if (lock < 0) {
		fdw_target_close(&t);
		return FDW_EXIT_ERROR;
	}
	/* With a detached header, that file is the header to back up. */
	rc = fdw_header_backup(t.part->detached_header ? t.part->detached_header : t.device,
			       argv[optind + 1], why, sizeof(why));
	if (rc)
		fprintf(stderr, _("%s: header-backup %s: %s. Nothing was written.\n"),
			fdw_progname, cli_safe(argv[optind]), cli_safe(why));
	else if (fdw_job_backup_replaced(argv[optind], argv[optind + 1]) != 0)
		fprintf(stderr, _("%s: the header of %s is saved in %s, but its conversion's "
				  "record could not be updated to name it.\n"), fdw_progname,
			cli_safe(argv[optind]), cli_safe(argv[optind + 1]));
	if (!rc)
		printf(_("The LUKS2 header of %s is saved in %s.\n"
			 "Keep that file on another disk: with any passphrase that was valid when it "
			 "was taken,\nit opens the volume, and header-restore puts it back.\n"),
		       cli_safe(argv[optind]), cli_safe(argv[optind + 1]));
	close(lock);
	fdw_target_close(&t);
	return rc ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}

int cmd_header_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *address, *file;
	struct fdw_target t;
	char why[1024], prompt[1024];
	bool yes = false;
	int c, rc, lock;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'y':
			yes = true;
			break;
		case 'h':
			restore_usage(stdout);
			return FDW_EXIT_OK;
		default:
			cli_usage_error("header-restore");
			return FDW_EXIT_USAGE;
		}
	}
	/* A header holds the keyslots: no core dump may hold a copy of it. */
	fdw_secret_harden_process();
	if (argc - optind != 2) {
		restore_usage(stderr);
		cli_usage_error("header-restore");
		return FDW_EXIT_USAGE;
	}
	address = argv[optind];
	file = argv[optind + 1];
	if (cli_open_target(address, &t))
		return FDW_EXIT_ERROR;
	rc = -EBUSY;
	if (t.part->n_mountpoints || t.part->n_holders) {
		fprintf(stderr, _("%s: header-restore %s: the volume is in use (%s); close it "
				  "first. Nothing was changed.\n"), fdw_progname, cli_safe(address),
			cli_safe(t.part->n_mountpoints ? t.part->mountpoints[0] :
				 t.part->holders[0]));
		goto out;
	}
	lock = cli_lock_target(&t, address);
	if (lock < 0)
		goto out;
	rc = fdw_header_check_restore(t.device, file, why, sizeof(why));
	if (rc) {
		fprintf(stderr, _("%s: header-restore %s: %s. Nothing was changed.\n"),
			fdw_progname, cli_safe(address), cli_safe(why));
		goto out_lock;
	}
	/* TRANSLATORS: the word the user types to confirm; keep it short. */
	snprintf(prompt, sizeof(prompt), _("This replaces the LUKS2 header of %s by the one in "
					   "%s. Type %s to continue: "), cli_safe(address), cli_safe(file),
		 _("YES"));
	if (!yes && !cli_confirm_typed(prompt, _("YES"))) {
		fprintf(stderr, _("%s: not confirmed. Nothing was changed.\n"), fdw_progname);
		rc = -ECANCELED;
		goto out_lock;
	}
	rc = fdw_header_restore(t.device, file, why, sizeof(why));
	if (rc)
		fprintf(stderr, _("%s: header-restore %s: %s.\n"), fdw_progname, cli_safe(address),
			cli_safe(why));
	else
		printf(_("The LUKS2 header of %s was restored from %s.\n"), cli_safe(address), cli_safe(file));
out_lock:
	close(lock);
out:
	fdw_target_close(&t);
	return rc ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}
