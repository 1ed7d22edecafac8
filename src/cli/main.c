/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fdewiz entry point: global options, logging to stderr, and command dispatch. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_restart.h"
#include "core/base/base_api.h"
#include "tui/tui.h"

static int verbosity;

static void stderr_log_sink(enum fdw_log_level level, const char *msg, void *ctx)
{
	static const char *const prefix[] = { "debug", "info", "warning", "error" };

	(void)ctx;
	if (level == FDW_LOG_DEBUG && verbosity < 1)
		return;
	if (level == FDW_LOG_INFO && verbosity < 1 && !cli_info_shown())
		return;
	cli_line_break();
	fprintf(stderr, "%s: %s: %s\n", fdw_progname, prefix[level], cli_safe(msg));
}

static void usage(FILE *out)
{
	fprintf(out, _("Usage: %s [OPTIONS] [COMMAND] [ARGS...]\n"
		       "\n"
		       "Encrypt a partition in place with LUKS2, keeping its data.\n"
		       "\n"
		       "Commands:\n"
		       "  list [--json] [DEVICE|IMAGE ...]   show disks, partitions and what can be "
		       "encrypted\n"
		       "  encrypt [OPTIONS] DEVICE|IMAGE:N   encrypt a partition in place "
		       "(see encrypt --help)\n"
		       "  status [--json] [--watch] [DEVICE|IMAGE:N]   show conversions\n"
		       "  pause DEVICE|IMAGE:N                  stop a running conversion safely\n"
		       "  pace DEVICE|IMAGE:N auto|gentle|full  how it shares the disk meanwhile\n"
		       "  resume [--key-file FILE] [--foreground] DEVICE|IMAGE:N   continue one\n"
		       "  decrypt [OPTIONS] DEVICE|IMAGE:N   turn it back into plain data in place "
		       "(see decrypt --help)\n"
		       "  bench [OPTIONS] DIR|DEVICE   measure I/O, a build and the ciphers "
		       "(see bench --help)\n"
		       "  bench --compare A.json B.json   plain against encrypted, side by side\n"
		       "  recovery-key add|test [--key-file FILE] DEVICE|IMAGE:N   a second key, "
		       "shown once\n"
		       "  header-backup DEVICE|IMAGE:N FILE    save the LUKS2 header to a new file\n"
		       "  header-restore [--yes] DEVICE|IMAGE:N FILE   put a saved header back\n"
		       "  erase-encrypt [OPTIONS] DEVICE|IMAGE:N   destroy the data, make a new "
		       "encrypted volume\n"
		       "  crypttab [--root DIR] [--name NAME] [--discard] DEVICE|IMAGE:N   open it "
		       "at boot\n"
		       "  cancel   undo 'encrypt --at-restart' before the restart\n"
		       "  tpm status|enrol|remove DEVICE|IMAGE:N   unlock with this computer's "
		       "TPM 2.0\n"
		       "\n"
		       "With no command, or with only devices or images, the wizard opens on "
		       "them\n(all disks when none are named); when the output is not a "
		       "terminal, they are\nlisted instead.\n"
		       "\n"
		       "Options:\n"
		       "  -v, --verbose   say more about what is happening (on stderr)\n"
		       "  -h, --help      show this help\n"
		       "  -V, --version   show the version\n"),
		fdw_progname);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c;

	setlocale(LC_ALL, "");
	/* getopt names the program by argv[0]; subcommands would otherwise say "list:". */
	program_invocation_name = (char *)fdw_progname;
	bindtextdomain(PACKAGE, LOCALEDIR);
	textdomain(PACKAGE);
	fdw_log_set_sink(stderr_log_sink, NULL);

	/* Stop at the first non-option: the rest belongs to the command. */
	while ((c = getopt_long(argc, argv, "+vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			verbosity++;
			break;
		case 'h':
			usage(stdout);
			return FDW_EXIT_OK;
		case 'V':
			printf("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
			return FDW_EXIT_OK;
		default:
			cli_usage_error(NULL);
			return FDW_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* let the command parse its own options from the start */

	if (argc > 0 && !strcmp(argv[0], "list"))
		return cmd_list(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "encrypt"))
		return cmd_encrypt(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "decrypt"))
		return cmd_decrypt(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "resume"))
		return cmd_resume(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "pause"))
		return cmd_pause(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "pace"))
		return cmd_pace(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "status"))
		return cmd_status(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "bench"))
		return cmd_bench(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "recovery-key"))
		return cmd_recovery_key(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "tpm"))
		return cmd_tpm(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "header-backup"))
		return cmd_header_backup(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "header-restore"))
		return cmd_header_restore(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "erase-encrypt"))
		return cmd_erase_encrypt(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "crypttab"))
		return cmd_crypttab(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "cancel"))
		return cmd_cancel(argc, argv);
	/* Not in the help: the initramfs's boot script and the service run these. */
	if (argc > 0 && !strcmp(argv[0], "restart-step"))
		return cmd_restart_step(argc, argv);
	if (argc > 0 && !strcmp(argv[0], "restart-continue"))
		return cmd_restart_continue(argc, argv);
	if (argc > 0 && argv[0][0] != '/' && argv[0][0] != '.' && !strchr(argv[0], '/') &&
	    !strchr(argv[0], '.')) {
		fprintf(stderr, _("%s: unknown command '%s'. Nothing was changed. "
				  "See '%s --help'.\n"), fdw_progname, argv[0], fdw_progname);
		return FDW_EXIT_USAGE;
	}
	/* No command: the wizard on these disks (or all) on a terminal, else the list. */
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return tui_run(argv, argc);
	argv[-1] = (char *)"list";
	return cmd_list(argc + 1, argv - 1);
}
