/* `fdewiz crypttab`: the crypttab entry and fstab changes that open a partition at boot. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/crypttab.h"
#include "core/i18n.h"
#include "core/target.h"

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

static int do_crypttab(const char *address, const char *root, const char *name_opt,
		       bool discard, bool fstab)
{
	struct fdw_part_ids ids = { 0 };
	struct fdw_tab_result res;
	struct fdw_target t;
	char name[128], why[1024], partuuid[64] = "";
	int rc;

	rc = fdw_target_open(address, &t);
	if (rc) {
		fprintf(stderr, _("%s: %s: %s. Nothing was changed.\n"), fdw_progname, address,
			fdw_scan_error_text(rc));
		return FDW_EXIT_ERROR;
	}
	rc = -EINVAL;
	if (t.part->luks_version != 2 || !t.part->uuid) {
		fprintf(stderr, _("%s: %s is not a LUKS2 volume, so there is nothing to open at "
				  "boot; encrypt it first. Nothing was changed.\n"), fdw_progname,
			address);
		goto out;
	}
	if (name_opt)
		snprintf(name, sizeof(name), "%s", name_opt);
	else
		fdw_crypttab_default_name(t.part, name, sizeof(name));
	rc = fdw_crypttab_add(root, name, t.part->uuid, discard, &res, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, _("%s: crypttab: %s. Nothing was changed.\n"), fdw_progname, why);
		goto out;
	}
	if (rc == 1)
		printf(_("crypttab already opens %s as /dev/mapper/%s; nothing to add.\n"),
		       address, name);
	else
		printf(_("Added to %s/etc/crypttab: %s UUID=%s none luks%s\n"),
		       strcmp(root, "/") ? root : "", name, t.part->uuid, discard ? ",discard" : "");
	if (rc == 0 && res.backup[0])
		printf(_("  (the old file is kept as %s)\n"), res.backup);
	rc = 0;
	if (!fstab)
		goto out;
	ids.node = t.part->node;
	ids.partlabel = t.part->name;
	/* Links under /dev describe this system only: follow them for its own root. */
	ids.resolve_links = !strcmp(root, "/");
	if (t.part->number > 0 && fdw_partuuid_probe(t.disk.path, t.part->number, partuuid,
						      sizeof(partuuid)) == 0)
		ids.partuuid = partuuid;
	rc = fdw_fstab_update(root, name, &ids, &res, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, _("%s: fstab: %s. crypttab was written; fstab was not changed.\n"),
			fdw_progname, why);
		goto out;
	}
	if (res.changed)
		printf(_("fstab: %d line(s) that named the partition now name /dev/mapper/%s\n"
			 "  (the old file is kept as %s)\n"), res.lines, name, res.backup);
	else
		printf(_("fstab: no line names the partition itself; nothing to change.\n"));
	rc = 0;
out:
	fdw_target_close(&t);
	return rc ? FDW_EXIT_ERROR : FDW_EXIT_OK;
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
	return do_crypttab(argv[optind], root, name, discard, fstab);
}
