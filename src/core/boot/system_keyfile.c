/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * One passphrase at boot: once an installed system's root is encrypted, its other encrypted
 * partitions that still ask for a passphrase (its /home converted earlier, say) get a key
 * file kept inside that root, when the root's passphrase opens them. Debian's usual recipe:
 * the root is unlocked in the initramfs, and systemd opens the others with the key file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "luks2/cryptglue.h"
#include "crypttab.h"
#include "base/durable.h"
#include "base/i18n.h"
#include "base/log.h"
#include "system_boot.h"
#include "system_boot_internal.h"

#define KEY_BYTES 64
#define MAX_ASKING 16

/* @root/etc/cryptsetup-keys.d, created 0700 when missing; never through a link. */
static int key_dir(const char *root, char *dir, size_t len)
{
	struct stat st;

	if (snprintf(dir, len, "%s%s", root, FDW_KEY_FILE_DIR) >= (int)len)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) != 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static int fill_random(struct fdw_secret *key)
{
	size_t done = 0;

	while (done < KEY_BYTES) {
		ssize_t r = getrandom(key->data + done, KEY_BYTES - done, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -errno ? -errno : -EIO;
		done += (size_t)r;
	}
	key->len = KEY_BYTES;
	return 0;
}

/*
 * The key in @path: the one a run cut short left there (a regular file, read as it is),
 * else a new random one written there first, so that a keyslot is never added for a key
 * that is not on disk.
 */
static int key_in_file(const char *path, struct fdw_secret *key)
{
	struct stat st;
	int rc;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		rc = fdw_secret_read_file(key, path);
		if (rc == 0 && key->len == KEY_BYTES)
			return 0;
	}
	rc = fill_random(key);
	if (!rc)
		rc = fdw_write_file_atomic(path, key->data, key->len, 0400);
	return rc;
}

/*
 * Add a keyslot for @key to @dev, opened with @pass, unless @key opens it already. 0, or
 * -EPERM when @pass opens no keyslot of @dev, or another -errno.
 */
static int add_keyslot(const char *dev, const struct fdw_secret *pass,
		       const struct fdw_secret *key)
{
	struct crypt_device *cd = NULL;
	/* A random 512-bit key needs no slow key derivation (systemd-cryptenroll does the
	 * same for its token keys); the boot then spends no second on it. */
	struct crypt_pbkdf_type kdf = { .type = CRYPT_KDF_PBKDF2, .hash = "sha256",
					.iterations = 1000, .flags = CRYPT_PBKDF_NO_BENCHMARK };
	int rc = fdw_crypt_load(&cd, dev, NULL);

	if (rc)
		return rc;
	if (crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, key->data, key->len, 0) >= 0) {
		crypt_free(cd);
		return 0;
	}
	rc = crypt_set_pbkdf_type(cd, &kdf);
	if (!rc) {
		rc = crypt_keyslot_add_by_passphrase(cd, CRYPT_ANY_SLOT, pass->data, pass->len,
						     key->data, key->len);
		if (rc == -ENOENT)
			rc = -EPERM;
	}
	/* Tried first at boot, before the passphrase's slow slot. */
	if (rc >= 0)
		rc = crypt_keyslot_set_priority(cd, rc, CRYPT_SLOT_PRIORITY_PREFER);
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

int fdw_system_keyfile_give(const char *root, const char *name, const char *source,
			    const struct fdw_secret *pass, char *inside, size_t inside_len,
			    struct fdw_tab_result *tab)
{
	char dev[PATH_MAX], dir[PATH_MAX], path[PATH_MAX], why[512];
	struct fdw_secret *key = NULL;
	int rc = -ENODEV;

	memset(tab, 0, sizeof(*tab));
	/* A device path may mean another disk from here than at that system's boot; a name
	 * becomes a file name (outside text: no '/', no ".."). */
	if (fdw_crypttab_name_valid(name) &&
	    (!strncmp(source, "UUID=", 5) || !strncmp(source, "PARTUUID=", 9)))
		rc = fdw_system_boot_find_boot(source, dev, sizeof(dev));
	if (rc) {
		fdw_log(FDW_LOG_WARN, "key file: %s (%s) not found: it keeps asking at boot", name,
			source);
		return 0;
	}
	if (snprintf(inside, inside_len, "%s/%s.key", FDW_KEY_FILE_DIR, name) >= (int)inside_len)
		return 0;
	rc = key_dir(root, dir, sizeof(dir));
	if (!rc)
		rc = fdw_secret_new(&key, KEY_BYTES);
	if (!rc && snprintf(path, sizeof(path), "%s%s", root, inside) >= (int)sizeof(path))
		rc = -ENAMETOOLONG;
	if (!rc) {
		rc = key_in_file(path, key);
		if (!rc)
			rc = add_keyslot(dev, pass, key);
		if (rc)
			unlink(path);
	}
	fdw_secret_free(key);
	if (rc == -EPERM) {
		fdw_log(FDW_LOG_INFO, "key file: %s (%s) has another passphrase: it keeps asking "
			"for it at boot", name, dev);
		return 0;
	}
	if (rc) {
		fdw_log(FDW_LOG_WARN, "key file: none for %s (%s): %s; it keeps asking at boot",
			name, dev, strerror(-rc));
		return 0;
	}
	rc = fdw_crypttab_set_keyfile(root, name, inside, tab, why, sizeof(why));
	if (rc < 0) {
		fdw_log(FDW_LOG_ERROR, "key file: crypttab: %s", why);
		return rc;
	}
	fdw_log(FDW_LOG_INFO, "key file: %s (%s) opens at boot with %s", name, dev, inside);
	return 1;
}

/* One crypttab line of the system, and the files changed noted in the record. */
static int give_key_file(const char *root, const struct fdw_crypttab_asking *e,
			 const struct fdw_secret *pass, struct fdw_sysboot_record *r)
{
	struct fdw_tab_result tab;
	char inside[256];
	int rc = fdw_system_keyfile_give(root, e->name, e->source, pass, inside, sizeof(inside),
					 &tab);

	if (rc <= 0)
		return rc;
	fdw_system_boot_note_changed(r, inside, "");
	fdw_system_boot_note_tab(r, root, "/etc/crypttab", &tab);
	return 0;
}

int fdw_system_keyfile_step(const char *root, const char *root_name,
			    const struct fdw_secret *pass, struct fdw_sysboot_record *r)
{
	struct fdw_crypttab_asking asking[MAX_ASKING];
	char *text, why[512];
	size_t n;
	int rc = fdw_etc_read(root, "crypttab", &text, why, sizeof(why));

	if (rc == -ENOENT)
		return 0;
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "system boot: %s", why);
		return rc;
	}
	n = fdw_crypttab_asking(text, asking, MAX_ASKING);
	free(text);
	for (size_t i = 0; !rc && i < n && i < MAX_ASKING; i++) {
		if (!strcmp(asking[i].name, root_name))
			continue;
		if (!pass || !pass->len) {
			fdw_log(FDW_LOG_WARN, "system boot: no passphrase at hand: %s keeps asking "
				"for its own at boot", asking[i].name);
			continue;
		}
		rc = give_key_file(root, &asking[i], pass, r);
	}
	return rc;
}
