/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Recovery keys: generated from the kernel's random source, canonicalised, added to a keyslot. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <libcryptsetup.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "base/i18n.h"
#include "base/log.h"
#include "cryptglue.h"
#include "recovery.h"

/* 32 symbols without look-alikes: no 0/O, no 1/I. */
static const char alphabet[] = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
#define RANDOM_BYTES (FDW_RECOVERY_CHARS * 5 / 8)

static int fill_random(unsigned char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = getrandom(buf + done, len - done, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		done += (size_t)r;
	}
	return 0;
}

int fdw_recovery_key_generate(struct fdw_secret **out)
{
	struct fdw_secret *key = NULL, *raw = NULL;
	size_t pos = 0;
	int rc;

	*out = NULL;
	rc = fdw_secret_new(&key, FDW_RECOVERY_KEY_LEN);
	if (!rc)
		rc = fdw_secret_new(&raw, RANDOM_BYTES);
	if (!rc)
		rc = fill_random((unsigned char *)raw->data, RANDOM_BYTES);
	if (rc)
		goto out;
	/* 240 bits, five at a time, most significant first. */
	for (size_t i = 0; i < FDW_RECOVERY_CHARS; i++) {
		size_t bit = i * 5, byte = bit / 8, shift = bit % 8;
		unsigned v = (unsigned)(unsigned char)raw->data[byte] << 8;

		if (byte + 1 < RANDOM_BYTES)
			v |= (unsigned char)raw->data[byte + 1];
		v = (v >> (11 - shift)) & 31;
		if (i && i % FDW_RECOVERY_GROUP_LEN == 0)
			key->data[pos++] = '-';
		key->data[pos++] = alphabet[v];
	}
	key->data[pos] = '\0';
	key->len = pos;
	*out = key;
	key = NULL;
out:
	fdw_secret_free(raw);
	fdw_secret_free(key);
	return rc;
}

int fdw_recovery_key_canonicalize(const char *typed, size_t len, struct fdw_secret **out,
				  char *why, size_t why_len)
{
	struct fdw_secret *key = NULL;
	size_t n = 0, pos = 0;
	int rc;

	*out = NULL;
	rc = fdw_secret_new(&key, FDW_RECOVERY_KEY_LEN);
	if (rc) {
		snprintf(why, why_len, _("no locked memory for the key: %s"), strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)typed[i];

		if (c == '-' || c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		c = (unsigned char)toupper(c);
		if (!c || !strchr(alphabet, c)) {
			/* Never echo the character back: it is part of a secret. */
			snprintf(why, why_len, _("character %zu of the recovery key is not one it can "
						 "contain (digits 2-9 and letters A-Z; never 0, 1, "
						 "I or O)"), n + 1);
			rc = -EINVAL;
			break;
		}
		if (n == FDW_RECOVERY_CHARS) {
			n++;
			break;
		}
		if (n && n % FDW_RECOVERY_GROUP_LEN == 0)
			key->data[pos++] = '-';
		key->data[pos++] = (char)c;
		n++;
	}
	if (!rc && n != FDW_RECOVERY_CHARS) {
		snprintf(why, why_len, _("a recovery key has %d characters (8 groups of 6); "
					 "this one has %s"), FDW_RECOVERY_CHARS,
			 n > FDW_RECOVERY_CHARS ? _("more") : _("fewer"));
		rc = -EMSGSIZE;
	}
	if (rc) {
		fdw_secret_free(key);
		return rc;
	}
	key->data[pos] = '\0';
	key->len = pos;
	*out = key;
	return 0;
}

/* Load the LUKS2 header of @device (or @header); -EINVAL with @why when it has none. */
static int load_luks2(struct crypt_device **cd, const char *device, const char *header,
		      char *why, size_t why_len)
{
	int rc = fdw_crypt_init(cd, device, header);

	if (rc) {
		snprintf(why, why_len, _("cannot open %s: %s"), device, strerror(-rc));
		return rc;
	}
	rc = crypt_load(*cd, CRYPT_LUKS2, NULL);
	if (rc) {
		snprintf(why, why_len, _("%s holds no LUKS2 header that can be read (%s)"),
			 header ? header : device, strerror(-rc));
		crypt_free(*cd);
		*cd = NULL;
	}
	return rc;
}

int fdw_recovery_key_add(const char *device, const char *header, const struct fdw_secret *pass,
			 const struct fdw_secret *key, bool fast_pbkdf, char *why, size_t why_len)
{
	struct crypt_device *cd = NULL;
	crypt_reencrypt_info ri;
	int rc;

	rc = load_luks2(&cd, device, header, why, why_len);
	if (rc)
		return rc;
	ri = crypt_reencrypt_status(cd, NULL);
	if (ri != CRYPT_REENCRYPT_NONE) {
		/* libcryptsetup refuses every keyslot change while the header says so. */
		snprintf(why, why_len, _("the volume is still being converted, and no keyslot "
					 "can be added until the conversion is complete; let it "
					 "finish (see 'fdewiz status'), then add the recovery key"));
		rc = -EBUSY;
		goto out;
	}
	/* Verify first, so a wrong passphrase is told as such and nothing is written. */
	rc = crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	if (rc < 0) {
		if (rc == -EPERM || rc == -ENOENT) {
			snprintf(why, why_len, _("the passphrase is wrong: it opens no keyslot"));
			rc = -EPERM;
		} else {
			snprintf(why, why_len, _("cannot check the passphrase: %s"), strerror(-rc));
		}
		goto out;
	}
	rc = -ENOSPC;
	for (int i = 0; i < crypt_keyslot_max(CRYPT_LUKS2); i++)
		if (crypt_keyslot_status(cd, i) == CRYPT_SLOT_INACTIVE)
			rc = 0;
	if (rc) {
		snprintf(why, why_len, _("every keyslot of the volume is in use; remove one "
					 "with 'cryptsetup luksKillSlot' first"));
		goto out;
	}
	if (fast_pbkdf)
		rc = fdw_crypt_use_fast_pbkdf(cd);
	if (rc >= 0)
		rc = crypt_keyslot_add_by_passphrase(cd, CRYPT_ANY_SLOT, pass->data, pass->len,
						     key->data, key->len);
	if (rc < 0) {
		snprintf(why, why_len, _("libcryptsetup could not add the keyslot: %s"),
			 strerror(-rc));
		goto out;
	}
	fdw_log(FDW_LOG_INFO, "recovery key added to keyslot %d of %s", rc, device);
out:
	crypt_free(cd);
	return rc;
}

int fdw_recovery_key_test(const char *device, const char *header, const struct fdw_secret *key,
			  int *slot, char *why, size_t why_len)
{
	struct crypt_device *cd = NULL;
	int rc = load_luks2(&cd, device, header, why, why_len);

	if (rc)
		return rc;
	rc = crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, key->data, key->len, 0);
	crypt_free(cd);
	if (rc == -EPERM || rc == -ENOENT) {
		snprintf(why, why_len, _("the key opens no keyslot of %s"), device);
		return -EPERM;
	}
	if (rc < 0) {
		snprintf(why, why_len, _("cannot check the key: %s"), strerror(-rc));
		return rc;
	}
	*slot = rc;
	return 0;
}
