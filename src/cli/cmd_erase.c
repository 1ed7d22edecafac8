/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz erase-encrypt`: destroy a partition's data and make it a new, empty encrypted volume. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/convert/convert_api.h"
#include "core/base/base_api.h"
#include "passphrase.h"

enum {
	OPT_FAST = 256, OPT_YES_DESTROY, OPT_KEY_SIZE, OPT_RANDOM, OPT_ACCEPT_WEAK, OPT_OPEN,
	OPT_CRYPTTAB, OPT_ROOT, OPT_NAME
};

static void erase_usage(FILE *out)
{
	fprintf(out, _("Usage: %s erase-encrypt [OPTIONS] DEVICE|IMAGE:N\n"
		       "\n"
		       "Destroy everything on the partition and make it a new, empty LUKS2 volume\n"
		       "with a new filesystem inside (for a reinstall onto an encrypted disk).\n"
		       "\n"
		       "  --fs ext4|xfs|btrfs|vfat|none   filesystem to make inside (default ext4;\n"
		       "                         needs device-mapper, else only 'none')\n"
		       "  --label LABEL          label of the new filesystem\n"
		       "  --key-file FILE|-      passphrase from a file, byte for byte\n"
		       "  --cipher SPEC          default: as advised for this CPU (aes-xts-plain64\n"
		       "                         with AES instructions, else Adiantum)\n"
		       "  --key-size BITS        default 512 (256 for Adiantum)\n"
		       "  --yes-destroy-data     do not ask for the typed confirmation\n"
		       "  --yes-destroy-random-data  also when the partition has no signature but\n"
		       "                         looks like encrypted data (asked otherwise)\n"
		       "  --accept-weak-passphrase  use a passphrase rated weak (not implied by\n"
		       "                         --yes-destroy-data)\n"
		       "  --open                 leave the new volume open as /dev/mapper/NAME\n"
		       "                         (for an installer; needs device-mapper)\n"
		       "  --crypttab             add its entry to ROOT/etc/crypttab (opens at boot)\n"
		       "  --root DIR             the system's root for --crypttab (default /)\n"
		       "  --name NAME            device-mapper name (default: from the label or\n"
		       "                         the partition)\n"),
		fdw_progname);
}

/* "aes-xts-plain64" -> "aes" and "xts-plain64". */
static int split_cipher(const char *spec, char *cipher, size_t clen, char *mode, size_t mlen)
{
	const char *dash = strchr(spec, '-');

	if (!dash || dash == spec || !dash[1] || (size_t)(dash - spec) >= clen ||
	    strlen(dash + 1) >= mlen)
		return -EINVAL;
	memcpy(cipher, spec, (size_t)(dash - spec));
	cipher[dash - spec] = '\0';
	strcpy(mode, dash + 1);
	return 0;
}

struct erase_opts {
	const char *fs, *label, *key_file, *root, *name;
	enum fdw_erase_after after;
	char cipher[32], mode[64];
	unsigned key_bits;
	bool yes, fast, yes_random, accept_weak;
};

/*
 * No signature, but random-looking bytes: it may be encrypted data whose header is kept
 * elsewhere. One more explicit answer, on top of the usual one; refused without it.
 */
static bool confirm_random(const char *warning, const struct erase_opts *o)
{
	char prompt[1024];
	/* TRANSLATORS: typed to erase a partition that may hold encrypted data. */
	const char *word = _("DESTROY");

	if (o->yes_random)
		return true;
	if (o->yes || !isatty(STDIN_FILENO)) {
		fprintf(stderr, _("%s: %s To erase it anyway add --yes-destroy-random-data. "
				  "Nothing was changed.\n"), fdw_progname, warning);
		return false;
	}
	snprintf(prompt, sizeof(prompt), _("%s\nType %s to erase it anyway: "), warning, word);
	if (cli_confirm_typed(prompt, word))
		return true;
	fprintf(stderr, _("%s: the answer was not %s. Nothing was changed.\n"), fdw_progname,
		word);
	return false;
}

/* The typed answers (unless --yes-destroy-data), then the new passphrase; NULL: refused. */
static struct fdw_secret *confirm_and_ask(const struct fdw_erase *e, const char *address,
					  const struct erase_opts *o)
{
	struct fdw_secret *pass;
	char prompt[8192], text[6144], warning[PATH_MAX + 1024];

	if (fdw_erase_random_warning(e, warning, sizeof(warning)) &&
	    !confirm_random(warning, o))
		return NULL;
	fdw_erase_confirm_text(e, text, sizeof(text));
	if (fdw_erase_boot_warning(e, warning, sizeof(warning)))
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "\n%s", warning);
	snprintf(prompt, sizeof(prompt), _("%s\nType the partition's address (%s) to continue: "),
		 text, cli_safe(address));
	if (!o->yes && !cli_confirm_typed(prompt, address)) {
		fprintf(stderr, _("%s: the answer was not %s. Nothing was changed.\n"),
			fdw_progname, cli_safe(address));
		return NULL;
	}
	pass = passphrase_get(o->key_file, true);
	if (pass && passphrase_check_new(pass, o->accept_weak, !o->yes && isatty(STDIN_FILENO))) {
		fdw_secret_free(pass);
		return NULL;
	}
	return pass;
}

/* The engine's flow: prepare (checks, lock), the answers, run, report. */
static int do_erase(const char *address, const struct erase_opts *o)
{
	struct fdw_erase_options eo = {
		.fs = o->fs, .label = o->label, .cipher = o->cipher[0] ? o->cipher : NULL,
		.cipher_mode = o->mode, .key_bits = o->key_bits, .fast_pbkdf = o->fast,
		.after = o->after, .root = o->root, .name = o->name,
	};
	struct fdw_erase_result res;
	struct fdw_secret *pass = NULL;
	struct fdw_erase *e;
	char why[2048], report[4096];
	int rc;

	rc = fdw_erase_prepare(&e, address, &eo, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "%s: %s\n", fdw_progname, why);
		goto out;
	}
	pass = confirm_and_ask(e, address, o);
	if (!pass) {
		rc = -ECANCELED;
		goto out;
	}
	rc = fdw_erase_run(e, pass, &res, why, sizeof(why));
	if (rc) {
		fprintf(stderr, _("%s: erase-encrypt %s: %s.\n"), fdw_progname, cli_safe(address),
			why);
		goto out;
	}
	fdw_erase_report(e, &res, report, sizeof(report));
	fputs(report, stdout);
out:
	fdw_secret_free(pass);
	fdw_erase_close(e);
	return rc ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}

/* One option into @o: 0, or FDW_EXIT_USAGE after saying what is wrong. */
static int take_option(int c, struct erase_opts *o)
{
	char *end;
	long bits;

	switch (c) {
	case 'f':
		o->fs = optarg;
		break;
	case 'L':
		o->label = optarg;
		break;
	case 'k':
		o->key_file = optarg;
		break;
	case 'c':
		if (split_cipher(optarg, o->cipher, sizeof(o->cipher), o->mode, sizeof(o->mode))) {
			fprintf(stderr, _("%s: '%s' is not a cipher specification like "
					  "aes-xts-plain64.\n"), fdw_progname, optarg);
			return FDW_EXIT_USAGE;
		}
		break;
	case OPT_KEY_SIZE:
		bits = strtol(optarg, &end, 10);
		if (*end || end == optarg || bits < 128 || bits > 1024 || bits % 8) {
			fprintf(stderr, _("%s: --key-size wants a number of bits such as 256 "
					  "or 512.\n"), fdw_progname);
			return FDW_EXIT_USAGE;
		}
		o->key_bits = (unsigned)bits;
		break;
	case OPT_YES_DESTROY:
		o->yes = true;
		break;
	case OPT_FAST:
		o->fast = true;
		break;
	case OPT_RANDOM:
		o->yes_random = true;
		break;
	case OPT_ACCEPT_WEAK:
		o->accept_weak = true;
		break;
	case OPT_OPEN:
	case OPT_CRYPTTAB:
		if (o->after != FDW_ERASE_AFTER_CLOSE) {
			fprintf(stderr, _("%s: --open and --crypttab: one or the other.\n"),
				fdw_progname);
			return FDW_EXIT_USAGE;
		}
		o->after = c == OPT_OPEN ? FDW_ERASE_AFTER_OPEN : FDW_ERASE_AFTER_BOOT;
		break;
	case OPT_ROOT:
		o->root = optarg;
		break;
	case OPT_NAME:
		o->name = optarg;
		break;
	default:
		return FDW_EXIT_USAGE;
	}
	return 0;
}

int cmd_erase_encrypt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fs", required_argument, NULL, 'f' },
		{ "label", required_argument, NULL, 'L' },
		{ "key-file", required_argument, NULL, 'k' },
		{ "cipher", required_argument, NULL, 'c' },
		{ "key-size", required_argument, NULL, OPT_KEY_SIZE },
		{ "yes-destroy-data", no_argument, NULL, OPT_YES_DESTROY },
		{ "yes-destroy-random-data", no_argument, NULL, OPT_RANDOM },
		{ "accept-weak-passphrase", no_argument, NULL, OPT_ACCEPT_WEAK },
		{ "open", no_argument, NULL, OPT_OPEN },
		{ "crypttab", no_argument, NULL, OPT_CRYPTTAB },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "fast-pbkdf", no_argument, NULL, OPT_FAST },	/* tests only, not shown */
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	/* No --fs: the engine's default; no --cipher: the advice for this CPU. */
	struct erase_opts o = { .fs = FDW_ERASE_DEFAULT_FS };
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			erase_usage(stdout);
			return FDW_EXIT_OK;
		}
		if (take_option(c, &o)) {
			cli_usage_error("erase-encrypt");
			return FDW_EXIT_USAGE;
		}
	}
	/* The new passphrase passes through this process: no core dump may hold it. */
	fdw_secret_harden_process();
	if (argc - optind != 1) {
		erase_usage(stderr);
		cli_usage_error("erase-encrypt");
		return FDW_EXIT_USAGE;
	}
	if (o.root && o.after != FDW_ERASE_AFTER_BOOT) {
		fprintf(stderr, _("%s: --root goes with --crypttab.\n"), fdw_progname);
		cli_usage_error("erase-encrypt");
		return FDW_EXIT_USAGE;
	}
	if (!fdw_erase_fs_known(o.fs)) {
		fprintf(stderr, _("%s: --fs %s: not one of ext4, xfs, btrfs, vfat, none.\n"),
			fdw_progname, o.fs);
		cli_usage_error("erase-encrypt");
		return FDW_EXIT_USAGE;
	}
	return do_erase(argv[optind], &o);
}
