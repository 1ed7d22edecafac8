/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz tpm status|enrol|remove`: unlock an encrypted volume with this computer's TPM. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/base/base_api.h"
#include "core/boot/boot_api.h"
#include "core/disk/disk_api.h"
#include "passphrase.h"

static void tpm_usage(FILE *out)
{
	fprintf(out, _("Usage: %s tpm status DEVICE|IMAGE:N\n"
		       "       %s tpm enrol [--key-file FILE|-] [--pcrs LIST] DEVICE|IMAGE:N\n"
		       "       %s tpm remove DEVICE|IMAGE:N\n"
		       "\n"
		       "Unlock a LUKS2 volume with this computer's TPM 2.0 (clevis), so that it starts\n"
		       "without a question; the passphrase and the recovery key stay.\n"
		       "status: the TPM, what this system has of the route, the volume's bindings\n"
		       "     and whether the TPM unseals them now.\n"
		       "enrol: seal a new key to the TPM and to the PCRs (default 7: the Secure\n"
		       "     Boot state), after checking the passphrase; older bindings are replaced\n"
		       "     (enrol again after a firmware or Secure Boot change). When the volume is\n"
		       "     in /etc/crypttab, the initramfs is made again and checked.\n"
		       "remove: remove the TPM bindings; the passphrase asks again at every start.\n"
		       "\n"
		       "It protects a laptop that is lost or stolen while switched off: the disk\n"
		       "alone, or started another way, does not unlock. It does less against\n"
		       "someone who has the laptop and time: this computer starts by itself up to\n"
		       "the login screen.\n"),
		fdw_progname, fdw_progname, fdw_progname);
}

static void print_tpm(const char *device)
{
	struct fdw_tpm_info tpm;
	char missing[128];

	fdw_tpm_detect(&tpm);
	if (!tpm.present)
		printf(_("TPM: none found (it may be turned off in the firmware settings)\n"));
	else
		printf(_("TPM: %s, version %d%s\n"), tpm.name, tpm.version,
		       tpm.version == 2 ? "" : _(" (2.0 is needed)"));
	if (fdw_tpm_route_ready("/", fdw_tpm_in_system_crypttab(device), missing,
				sizeof(missing)))
		printf(_("This system: what it needs of clevis is installed\n"));
	else
		printf(_("This system: missing %s (apt install %s)\n"), missing, missing);
}

static int do_status(const char *device, const char *address)
{
	struct fdw_tpm_binding b[FDW_TPM_MAX_BINDINGS];
	int n;

	print_tpm(device);
	n = fdw_tpm_bindings(device, b, FDW_TPM_MAX_BINDINGS);
	if (n < 0) {
		fprintf(stderr, _("%s: the bindings of %s cannot be read: %s.\n"), fdw_progname,
			address, strerror(-n));
		return FDW_EXIT_ERROR;
	}
	if (!n)
		printf(_("%s: no TPM binding; the passphrase is asked at every start\n"), address);
	for (int i = 0; i < n; i++) {
		int rc = fdw_tpm_check(device, b[i].slot);

		printf(_("%s: keyslot %d sealed to PCR %s (%s): %s\n"), address, b[i].slot,
		       cli_safe(b[i].pcr_ids), cli_safe(b[i].pcr_bank),
		       rc == 0 ? _("the TPM unseals it now") :
		       rc == -EACCES ? _("the TPM refuses it now (a PCR changed, or another or a "
					 "cleared TPM): the passphrase is asked; 'fdewiz tpm "
					 "enrol' seals it again") :
		       _("what the TPM unseals does not open the volume; run 'fdewiz tpm enrol'"));
	}
	return FDW_EXIT_OK;
}

static int do_enrol(const char *device, const char *address, const char *key_file,
		    const char *pcrs)
{
	struct fdw_secret *pass;
	char why[1024], initrd[300];
	bool made;
	int rc, slot;

	pass = passphrase_get(key_file, false);
	if (!pass)
		return FDW_EXIT_ERROR;
	rc = fdw_tpm_enrol(device, pass, pcrs, &slot, why, sizeof(why));
	fdw_secret_free(pass);
	if (rc) {
		fprintf(stderr, "%s: tpm enrol %s: %s\n", fdw_progname, address, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	printf(_("%s: keyslot %d holds a key sealed to this computer's TPM (PCR %s); it was "
		 "unsealed and opens the volume. The passphrase and any recovery key stay.\n"),
	       address, slot, pcrs ? pcrs : FDW_TPM_DEFAULT_PCRS);
	rc = fdw_tpm_system_initramfs(device, &made, initrd, sizeof(initrd), why, sizeof(why));
	if (rc) {
		fprintf(stderr, _("%s: the TPM binding is in place, but: %s The passphrase is "
				  "asked at the start until this is put right.\n"), fdw_progname,
			cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	if (made)
		printf(_("%s was made again with clevis's TPM unlock: the next start needs no "
			 "passphrase while the PCRs stay as they are.\n"), cli_safe(initrd));
	else
		printf(_("%s is not in this system's /etc/crypttab: no initramfs was changed.\n"),
		       address);
	return FDW_EXIT_OK;
}

static int do_remove(const char *device, const char *address)
{
	char why[1024];
	int removed;

	if (fdw_tpm_remove(device, &removed, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: tpm remove %s: %s\n", fdw_progname, address, cli_safe(why));
		return FDW_EXIT_ERROR;
	}
	if (!removed) {
		printf(_("%s has no TPM binding. Nothing was changed.\n"), address);
		return FDW_EXIT_OK;
	}
	/* The initramfs is left as it is: clevis's hook does nothing without a binding. */
	printf(_("%s: %d TPM binding(s) removed; the passphrase is asked at every start.\n"),
	       address, removed);
	return FDW_EXIT_OK;
}

int cmd_tpm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "pcrs", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *key_file = NULL, *pcrs = NULL, *action;
	struct fdw_target t;
	int c, rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		tpm_usage(argc < 2 ? stderr : stdout);
		if (argc < 2)
			cli_usage_error("tpm");
		return argc < 2 ? FDW_EXIT_USAGE : FDW_EXIT_OK;
	}
	action = argv[1];
	if (strcmp(action, "status") && strcmp(action, "enrol") && strcmp(action, "remove")) {
		fprintf(stderr, _("%s: tpm: unknown action '%s' (status, enrol or remove).\n"),
			fdw_progname, action);
		cli_usage_error("tpm");
		return FDW_EXIT_USAGE;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'k' && !strcmp(action, "enrol")) {
			key_file = optarg;
		} else if (c == 'p' && !strcmp(action, "enrol")) {
			pcrs = optarg;
		} else if (c == 'h') {
			tpm_usage(stdout);
			return FDW_EXIT_OK;
		} else {
			cli_usage_error("tpm");
			return FDW_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		tpm_usage(stderr);
		cli_usage_error("tpm");
		return FDW_EXIT_USAGE;
	}
	fdw_secret_harden_process();
	if (geteuid() != 0) {
		fprintf(stderr, _("%s: tpm needs root; run it with sudo. Nothing was changed.\n"),
			fdw_progname);
		return FDW_EXIT_ERROR;
	}
	if (cli_open_target(argv[optind], &t))
		return FDW_EXIT_ERROR;
	if (t.part->luks_version != 2) {
		fprintf(stderr, _("%s: %s is not a LUKS2 volume; encrypt it first. Nothing was "
				  "changed.\n"), fdw_progname, argv[optind]);
		fdw_target_close(&t);
		return FDW_EXIT_ERROR;
	}
	if (!strcmp(action, "status"))
		rc = do_status(t.device, argv[optind]);
	else if (!strcmp(action, "enrol"))
		rc = do_enrol(t.device, argv[optind], key_file, pcrs);
	else
		rc = do_remove(t.device, argv[optind]);
	fdw_target_close(&t);
	return rc;
}
