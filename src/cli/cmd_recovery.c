/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz recovery-key add|test`: a second way into an encrypted volume, shown once. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/base/base_api.h"
#include "core/luks2/luks2_api.h"
#include "core/disk/disk_api.h"
#include "passphrase.h"

enum { OPT_FAST = 256 };

static void recovery_usage(FILE *out)
{
	fprintf(out, _("Usage: %s recovery-key add [--key-file FILE|-] DEVICE|IMAGE:N\n"
		       "       %s recovery-key test [--key-file FILE|-] DEVICE|IMAGE:N\n"
		       "\n"
		       "add: make a random recovery key, add it to a free keyslot of the encrypted\n"
		       "     partition (after checking its passphrase, asked for or read from FILE)\n"
		       "     and show it once. Write it down and keep it away from the computer.\n"
		       "test: check that a recovery key (typed without echo, or read from FILE) opens\n"
		       "     the partition; case, dashes and spaces do not matter.\n"),
		fdw_progname, fdw_progname);
}

/* Write @s straight from locked memory: stdio would keep a copy in its buffer. */
static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

int cli_show_recovery_key(const char *address, int slot, const struct fdw_secret *key)
{
	int rc;

	printf(_("Recovery key for %s (keyslot %d):\n\n    "), address, slot);
	fflush(stdout);
	rc = write_all(STDOUT_FILENO, key->data, key->len);
	printf(_("\n\nWrite it down or print it, and keep it apart from this computer: it opens "
		 "the volume\njust as the passphrase does. It is shown only this once. When "
		 "fdewiz asks for it,\ncase, dashes and spaces do not matter; cryptsetup wants it "
		 "exactly as shown.\n"));
	fflush(stdout);
	return rc;
}

static int do_add(const char *address, const char *key_file, bool fast_pbkdf)
{
	struct fdw_secret *pass = NULL, *key = NULL;
	struct fdw_target t;
	char why[1024];
	int rc, lock, slot;

	if (cli_open_target(address, &t))
		return FDW_EXIT_ERROR;
	rc = -EINVAL;
	if (t.part->luks_version != 2) {
		fprintf(stderr, _("%s: %s is not a LUKS2 volume; encrypt it first. Nothing was "
				  "changed.\n"), fdw_progname, address);
		goto out;
	}
	lock = cli_lock_target(&t, address);
	if (lock < 0) {
		rc = lock;
		goto out;
	}
	pass = passphrase_get(key_file, false);
	if (!pass)
		goto out_lock;
	rc = fdw_recovery_key_generate(&key);
	if (rc) {
		fprintf(stderr, _("%s: could not make a recovery key: %s. Nothing was changed.\n"),
			fdw_progname, strerror(-rc));
		goto out_lock;
	}
	/* A detached header (found by the scan, checked against its record) holds the slots. */
	slot = fdw_recovery_key_add(t.device, t.part->detached_header, pass, key, fast_pbkdf, why,
				    sizeof(why));
	if (slot < 0) {
		rc = slot;
		fprintf(stderr, _("%s: recovery-key add %s: %s. Nothing was changed.\n"),
			fdw_progname, address, cli_safe(why));
		goto out_lock;
	}
	rc = cli_show_recovery_key(address, slot, key);
	if (rc)
		fprintf(stderr, _("%s: the recovery key was added to keyslot %d but could not be "
				  "shown. Remove it with 'cryptsetup luksKillSlot' and try again.\n"),
			fdw_progname, slot);
out_lock:
	close(lock);
out:
	fdw_secret_free(key);
	fdw_secret_free(pass);
	fdw_target_close(&t);
	return rc ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}

static int do_test(const char *address, const char *key_file)
{
	struct fdw_secret *typed = NULL, *key = NULL;
	struct fdw_target t;
	char why[1024];
	int rc, lock, slot = -1;

	if (cli_open_target(address, &t))
		return FDW_EXIT_ERROR;
	/* Loading the header may repair it in place: only under the lock, as every write. */
	lock = cli_lock_target(&t, address);
	rc = lock < 0 ? lock : -EINVAL;
	if (lock < 0)
		goto out;
	typed = passphrase_get(key_file, false);
	if (!typed)
		goto out;
	rc = fdw_recovery_key_canonicalize(typed->data, typed->len, &key, why, sizeof(why));
	if (!rc)
		rc = fdw_recovery_key_test(t.device, t.part->detached_header, key, &slot, why,
					   sizeof(why));
	if (rc)
		fprintf(stderr, _("%s: recovery-key test %s: %s.\n"), fdw_progname, address, cli_safe(why));
	else
		printf(_("The recovery key opens keyslot %d of %s.\n"), slot, address);
out:
	if (lock >= 0)
		close(lock);
	fdw_secret_free(key);
	fdw_secret_free(typed);
	fdw_target_close(&t);
	return rc ? FDW_EXIT_ERROR : FDW_EXIT_OK;
}

int cmd_recovery_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "fast-pbkdf", no_argument, NULL, OPT_FAST },	/* tests only, not shown */
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *key_file = NULL, *action;
	bool fast = false;
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		recovery_usage(argc < 2 ? stderr : stdout);
		if (argc < 2)
			cli_usage_error("recovery-key");
		return argc < 2 ? FDW_EXIT_USAGE : FDW_EXIT_OK;
	}
	action = argv[1];
	if (strcmp(action, "add") && strcmp(action, "test")) {
		fprintf(stderr, _("%s: recovery-key: unknown action '%s' (add or test).\n"),
			fdw_progname, action);
		cli_usage_error("recovery-key");
		return FDW_EXIT_USAGE;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			key_file = optarg;
			break;
		case OPT_FAST:
			fast = true;
			break;
		case 'h':
			recovery_usage(stdout);
			return FDW_EXIT_OK;
		default:
			cli_usage_error("recovery-key");
			return FDW_EXIT_USAGE;
		}
	}
	/* Keys and passphrases pass through this process: no core dump may hold them. */
	fdw_secret_harden_process();
	if (argc - optind != 1) {
		recovery_usage(stderr);
		cli_usage_error("recovery-key");
		return FDW_EXIT_USAGE;
	}
	if (!strcmp(action, "add"))
		return do_add(argv[optind], key_file, fast);
	return do_test(argv[optind], key_file);
}
