/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz crypttab`: the crypttab entry and fstab changes that open a partition at boot. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/boot/boot_api.h"
#include "core/base/base_api.h"
#include "core/disk/disk_api.h"

static void crypttab_usage(FILE *out)
{
	fprintf(out, _("Usage: %s crypttab [--root DIR] [--name NAME] [--discard] [--no-fstab] "
		       "DEVICE|IMAGE:N\n"
		       "\n"
		       "Add the line that opens this encrypted partition at boot to DIR/etc/crypttab\n"
		       "(\"NAME UUID=<LUKS UUID> none luks\"; the passphrase is asked for at boot), and\n"
		       "change DIR/etc/fstab lines that name the partition itself (its device, PARTUUID=\n"
		       "or PARTLABEL=) to /dev/mapper/NAME. UUID= and LABEL= lines name the filesystem,\n"
		       "which keeps them inside the volume: they stay. Changed files are kept as\n"
		       "FILE.fdewiz-TIME.bak. Running it again changes nothing.\n"
		       "\n"
		       "  --root DIR     the system's root directory (default /)\n"
		       "  --name NAME    the name under /dev/mapper (default: from the label, or data)\n"
		       "  --discard      pass TRIM through (faster SSDs, reveals which blocks are free)\n"
		       "  --no-fstab     leave fstab alone\n"), fdw_progname);
}

/* Say what fdw_boot_entries_write() did (@rc, @res, @why); shared with `encrypt --crypttab`. */
int cli_boot_report(const char *address, const struct fdw_boot_request *rq, int rc,
		    const struct fdw_boot_result *res, const char *why)
{
	if (rc < 0) {
		fprintf(stderr, _("%s: crypttab: %s\n"), fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	if (res->crypttab_present)
		printf(_("crypttab already opens %s as /dev/mapper/%s; nothing to add.\n"),
		       address, res->name);
	else if (res->header[0])
		printf(_("Added to %s/etc/crypttab: %s %s none luks,header=%s%s\n"),
		       strcmp(rq->root, "/") ? rq->root : "", res->name, res->source, res->header,
		       rq->discard ? ",discard" : "");
	else
		printf(_("Added to %s/etc/crypttab: %s UUID=%s none luks%s\n"),
		       strcmp(rq->root, "/") ? rq->root : "", res->name, res->uuid,
		       rq->discard ? ",discard" : "");
	if (!res->crypttab_present && res->crypttab.backup[0])
		printf(_("  (the old file is kept as %s)\n"), res->crypttab.backup);
	if (!rq->fstab)
		return FDW_EXIT_OK;
	if (res->fstab_failed) {
		fprintf(stderr, _("%s: fstab: %s. crypttab was written; fstab was not changed.\n"),
			fdw_progname, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	if (res->partlabel_shared > 1)
		printf(_("fstab: lines that say PARTLABEL=%s were left alone: %d partitions on "
			 "this machine have that name, so it does not say which one is meant. If "
			 "such a line means this partition, change it to /dev/mapper/%s by hand.\n"),
		       cli_safe(res->partlabel), res->partlabel_shared, res->name);
	if (res->fstab.changed)
		printf(dngettext(PACKAGE, "fstab: %d line that named the partition now names "
				 "/dev/mapper/%s\n  (the old file is kept as %s)\n",
				 "fstab: %d lines that named the partition now name /dev/mapper/%s\n"
				 "  (the old file is kept as %s)\n", (unsigned long)res->fstab.lines),
		       res->fstab.lines, res->name, res->fstab.backup);
	else
		printf(_("fstab: no line names the partition itself; nothing to change.\n"));
	return FDW_EXIT_OK;
}

int cli_boot_entries(const char *address, const struct fdw_boot_request *rq)
{
	struct fdw_boot_result res;
	char why[1024];
	int rc = fdw_boot_entries_write(address, rq, &res, why, sizeof(why));

	return cli_boot_report(address, rq, rc, &res, why);
}

int cmd_crypttab(int argc, char **argv)
{
	enum { OPT_NO_FSTAB = 256 };
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "name", required_argument, NULL, 'n' },
		{ "discard", no_argument, NULL, 'd' },
		{ "no-fstab", no_argument, NULL, OPT_NO_FSTAB },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *root = "/", *name = NULL;
	bool discard = false, fstab = true;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'd':
			discard = true;
			break;
		case OPT_NO_FSTAB:
			fstab = false;
			break;
		case 'h':
			crypttab_usage(stdout);
			return FDW_EXIT_OK;
		default:
			cli_usage_error("crypttab");
			return FDW_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		crypttab_usage(stderr);
		cli_usage_error("crypttab");
		return FDW_EXIT_USAGE;
	}
	if (name && !fdw_crypttab_name_valid(name)) {
		fprintf(stderr, _("%s: --name %s: use letters, digits, '-', '_' and '.' (at most "
				  "127). Nothing was changed.\n"), fdw_progname, name);
		return FDW_EXIT_USAGE;
	}
	{
		struct fdw_boot_request rq = { .root = root, .name = name, .discard = discard,
					       .fstab = fstab };

		return cli_boot_entries(argv[optind], &rq);
	}
}
