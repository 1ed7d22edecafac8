/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The kernel keyring through its system calls (no libkeyutils for three calls). */
#include "config.h"

#include <errno.h>
#include <linux/keyctl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "keyring.h"

/* A passphrase is at most this long (cryptsetup's own limit is 512 bytes). */
#define KEY_MAX 8192

/* Possessor and user (root) may do everything; group and others nothing. */
#define KEY_PERM_ROOT_ONLY 0x3f3f0000U

static long keyctl3(int op, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0UL);
}

static int32_t find(const char *desc)
{
	long id = keyctl3(KEYCTL_SEARCH, (unsigned long)KEY_SPEC_USER_KEYRING,
			  (unsigned long)"user", (unsigned long)desc);

	if (id < 0)
		return errno == ENOKEY || errno == ENOENT ? -ENOKEY : -errno;
	return (int32_t)id;
}

int fdw_keyring_put(const char *desc, const struct fdw_secret *s)
{
	long id = syscall(SYS_add_key, "user", desc, s->data, s->len, KEY_SPEC_USER_KEYRING);

	if (id < 0)
		return -errno;
	/* The booted system's service has a session keyring of its own: it reads the key
	 * as its user, not as its possessor. */
	if (keyctl3(KEYCTL_SETPERM, (unsigned long)id, KEY_PERM_ROOT_ONLY, 0) < 0) {
		int rc = -errno;

		keyctl3(KEYCTL_REVOKE, (unsigned long)id, 0, 0);
		return rc;
	}
	return 0;
}

int fdw_keyring_get(const char *desc, struct fdw_secret **out)
{
	int32_t id = find(desc);
	struct fdw_secret *s;
	long n;
	int rc;

	*out = NULL;
	if (id < 0)
		return id;
	rc = fdw_secret_new(&s, KEY_MAX);
	if (rc)
		return rc;
	n = keyctl3(KEYCTL_READ, (unsigned long)id, (unsigned long)s->data, KEY_MAX);
	if (n < 0 || n > KEY_MAX) {
		rc = n < 0 ? -errno : -EFBIG;
		fdw_secret_free(s);
		return rc;
	}
	s->len = (size_t)n;
	s->data[n < KEY_MAX ? n : KEY_MAX - 1] = '\0';
	*out = s;
	return 0;
}

bool fdw_keyring_has(const char *desc)
{
	return find(desc) >= 0;
}

void fdw_keyring_drop(const char *desc)
{
	int32_t id = find(desc);

	if (id < 0)
		return;
	keyctl3(KEYCTL_REVOKE, (unsigned long)id, 0, 0);
	keyctl3(KEYCTL_UNLINK, (unsigned long)id, (unsigned long)KEY_SPEC_USER_KEYRING, 0);
}
