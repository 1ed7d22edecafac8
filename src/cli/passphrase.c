/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reads passphrases without echo, or from key files, straight into locked memory. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "core/base/base_api.h"
#include "passphrase.h"

/* What cryptsetup's own prompt reads, so a typed passphrase also works there. */
#define PASSPHRASE_MAX 512
/* Key files are binary and may be larger (a 4 KiB random key is common). */
#define KEY_FILE_MAX 8192

/* The terminal state to put back if a signal ends us while echo is off. */
static struct termios saved_tty;
static volatile sig_atomic_t saved_tty_fd = -1;

static void restore_tty_and_die(int sig)
{
	if (saved_tty_fd >= 0)
		tcsetattr(saved_tty_fd, TCSAFLUSH, &saved_tty);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read one line from the terminal with echo off, byte by byte so nothing is buffered. */
static int tty_read(int tty, const char *prompt, struct fdw_secret *s)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP };
	struct sigaction restore = { .sa_handler = restore_tty_and_die }, prev[5];
	struct termios old, quiet;
	size_t len = 0;
	int rc = 0;

	if (write(tty, prompt, strlen(prompt)) < 0)
		return -errno;
	if (tcgetattr(tty, &old) != 0)
		return -errno;
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	quiet.c_lflag |= ECHONL;
	saved_tty = old;
	saved_tty_fd = tty;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &restore, &prev[i]);
	/* Never read a passphrase with echo on. */
	if (tcsetattr(tty, TCSAFLUSH, &quiet) != 0) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		char c;
		ssize_t r = read(tty, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		if (len == s->cap) {
			rc = -EFBIG;
			continue;	/* drain the rest of the line */
		}
		s->data[len++] = c;
	}
	tcsetattr(tty, TCSAFLUSH, &old);
	s->data[len] = '\0';
	s->len = len;
	if (!rc && !len)
		rc = -ENODATA;
out:
	saved_tty_fd = -1;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &prev[i], NULL);
	return rc;
}

static struct fdw_secret *from_tty(bool confirm)
{
	struct fdw_secret *a = NULL, *b = NULL;
	int tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	int rc;

	if (tty < 0) {
		fprintf(stderr, _("%s: no terminal to ask for the passphrase; use --key-file. "
				  "Nothing was changed.\n"), fdw_progname);
		return NULL;
	}
	rc = fdw_secret_new(&a, PASSPHRASE_MAX);
	if (!rc)
		rc = tty_read(tty, _("Passphrase: "), a);
	if (!rc && confirm) {
		rc = fdw_secret_new(&b, PASSPHRASE_MAX);
		if (!rc)
			rc = tty_read(tty, _("Passphrase again: "), b);
		if (!rc && !fdw_secret_equal(a, b))
			rc = -EKEYREJECTED;
	}
	close(tty);
	fdw_secret_free(b);
	if (!rc)
		return a;
	fdw_secret_free(a);
	if (rc == -EKEYREJECTED)
		fprintf(stderr, _("%s: the passphrases differ. Nothing was changed; run the "
				  "command again.\n"), fdw_progname);
	else if (rc == -EFBIG)
		fprintf(stderr, _("%s: the passphrase is longer than 512 characters, which "
				  "cryptsetup could not read back. Nothing was changed.\n"),
			fdw_progname);
	else if (rc == -ENODATA)
		fprintf(stderr, _("%s: the passphrase is empty. Nothing was changed.\n"),
			fdw_progname);
	else
		fprintf(stderr, _("%s: could not read the passphrase: %s. Nothing was "
				  "changed.\n"), fdw_progname, strerror(-rc));
	return NULL;
}

struct fdw_secret *passphrase_get(const char *key_file, bool confirm)
{
	struct fdw_secret *s = NULL;
	int rc;

	if (!key_file)
		return from_tty(confirm);
	rc = fdw_secret_new(&s, KEY_FILE_MAX);
	if (!rc)
		rc = fdw_secret_read_file(s, key_file);
	if (!rc)
		return s;
	fdw_secret_free(s);
	fprintf(stderr, _("%s: key file %s: %s. Nothing was changed.\n"), fdw_progname,
		key_file, rc == -ENODATA ? _("it is empty") :
		rc == -EFBIG ? _("it is longer than 8192 bytes") : strerror(-rc));
	return NULL;
}

int passphrase_check_new(const struct fdw_secret *pass, bool accept_weak, bool may_ask)
{
	char why[512], prompt[768];
	int rc = fdw_strength_check_new(pass->data, pass->len, accept_weak, why, sizeof(why));

	if (!rc)
		return 0;
	if (rc == -EPERM && may_ask) {
		/* TRANSLATORS: the word the person types to keep a weak passphrase, in capitals
		 * like YES; not the strength label "weak". */
		const char *word = _("WEAK");

		snprintf(prompt, sizeof(prompt), _("Warning: %s\nType '%s' to use it anyway, or "
						   "press Enter to stop: "), why, word);
		if (cli_confirm_typed(prompt, word))
			return 0;
	}
	if (rc == -EPERM)
		fprintf(stderr, _("%s: %s\nNothing was changed. Choose a stronger passphrase "
				  "(several unrelated words), or, to use this one anyway, add "
				  "--accept-weak-passphrase (no --yes option accepts it).\n"),
			fdw_progname, why);
	else
		fprintf(stderr, _("%s: %s. Nothing was changed.\n"), fdw_progname, why);
	return -1;
}
