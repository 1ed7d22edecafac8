/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz decrypt`: turn an encrypted partition back into plain data, in place. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conversion.h"
#include "passphrase.h"
#include "core/base/base_api.h"
#include "core/convert/convert_api.h"
#include "core/disk/disk_api.h"

static void decrypt_usage(FILE *out)
{
	fprintf(out, _("Usage: %s decrypt [OPTIONS] DEVICE|IMAGE:N\n"
		       "Decrypt a LUKS2 partition in place: its data is moved back to the start of\n"
		       "the partition as plain data and its filesystem grown to fill it again.\n"
		       "The partition must be unmounted and closed. Ctrl-C stops at a safe point;\n"
		       "the same command goes on from there, after a power cut too.\n"
		       "\n"
		       "  --key-file FILE       read the passphrase (or the recovery key) from FILE\n"
		       "                        ('-' for standard input) instead of asking\n"
		       "  --header-backup FILE  where to save the header before anything changes\n"
		       "                        (default: a file in the state folder)\n"
		       "  --yes                 do not ask to confirm\n"
		       "  -h, --help            show this help\n"), fdw_progname);
}

struct decrypt_opts {
	const char *key_file, *header_backup;
	bool yes;
};

static int parse(int argc, char **argv, struct decrypt_opts *o)
{
	enum { OPT_KEY_FILE = 256, OPT_BACKUP, OPT_YES };
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, OPT_KEY_FILE },
		{ "header-backup", required_argument, NULL, OPT_BACKUP },
		{ "yes", no_argument, NULL, OPT_YES },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_KEY_FILE:
			o->key_file = optarg;
			break;
		case OPT_BACKUP:
			o->header_backup = optarg;
			break;
		case OPT_YES:
			o->yes = true;
			break;
		case 'h':
			decrypt_usage(stdout);
			return 1;
		default:
			cli_usage_error("decrypt");
			return -1;
		}
	}
	if (argc - optind != 1) {
		decrypt_usage(stderr);
		cli_usage_error("decrypt");
		return -1;
	}
	return 0;
}

/* The person agrees to give up the encryption (not asked again to go on with it). */
static bool confirmed(const char *address, bool continuing, bool yes)
{
	char prompt[PATH_MAX + 512];

	if (yes || continuing)
		return true;
	/* TRANSLATORS: the word the user types to confirm; keep it short. */
	snprintf(prompt, sizeof(prompt), _("This removes the encryption of %s: its data will be "
					   "readable without a passphrase.\nType %s to continue: "),
		 cli_safe(address), _("YES"));
	if (cli_confirm_typed(prompt, _("YES")))
		return true;
	fprintf(stderr, _("%s: not confirmed. Nothing was changed.\n"), fdw_progname);
	return false;
}

int cmd_decrypt(int argc, char **argv)
{
	struct decrypt_opts o = { 0 };
	struct fdw_secret *pass = NULL;
	struct fdw_decrypt *d = NULL;
	char why[PATH_MAX + 1024], backup[PATH_MAX * 2 + 2], cwd[PATH_MAX];
	int rc;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc > 0 ? FDW_EXIT_OK : FDW_EXIT_USAGE;
	/* A header holds the keyslots: no core dump may hold a copy of it. */
	fdw_secret_harden_process();
	/* The record keeps the backup's name: a whole one, whatever the folder of a later run. */
	if (o.header_backup && o.header_backup[0] != '/' && getcwd(cwd, sizeof(cwd)))
		snprintf(backup, sizeof(backup), "%s/%s", cwd, o.header_backup);
	else if (o.header_backup)
		snprintf(backup, sizeof(backup), "%s", o.header_backup);
	if (o.header_backup && access(backup, F_OK) == 0) {
		fprintf(stderr, _("%s: %s exists already; name a new file for --header-backup. "
				  "Nothing was changed.\n"), fdw_progname, cli_safe(backup));
		return FDW_EXIT_ERROR;
	}
	if (fdw_decrypt_prepare(argv[optind], &d, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	rc = FDW_EXIT_ERROR;
	if (confirmed(fdw_decrypt_address(d), fdw_decrypt_continuing(d), o.yes) &&
	    (pass = passphrase_get(o.key_file, false)) != NULL &&
	    fdw_decrypt_run(d, o.header_backup ? backup : NULL, pass, conversion_decrypt_ops()) == 0)
		rc = FDW_EXIT_OK;
	fdw_secret_free(pass);
	fdw_decrypt_close(d);
	return rc;
}
