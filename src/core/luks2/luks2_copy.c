/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A private copy of a LUKS2 header in memory: to ask libcryptsetup without it writing. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fileio.h"
#include "luks2_copy.h"
#include "luks2_json.h"
#include "luks2_peek.h"

/* LUKS2 allows a keyslot area of at most 128 MiB; anything larger is not a header. */
#define AREA_MAX (128ULL * 1024 * 1024 + 8ULL * 1024 * 1024)

/* The bytes the header occupies: both metadata copies, then the keyslot area, and no
 * less than the end of any keyslot's own area (the reencryption slot's included). Keyslots
 * that are not as the format writes them add nothing: libcryptsetup refuses such a header. */
static uint64_t header_area(const struct fdw_luks2_peek *p)
{
	struct fdw_luks2_keyslot ks[FDW_LUKS2_MAX_KEYSLOTS];
	json_object *config;
	uint64_t end = 2 * p->hdr_size, size;
	size_t n;

	if (json_object_object_get_ex(p->json, "config", &config) &&
	    fdw_luks2_u64(config, "keyslots_size", &size) && size <= UINT64_MAX - end)
		end += size;
	if (fdw_luks2_keyslots(p->json, ks, FDW_LUKS2_MAX_KEYSLOTS, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (ks[i].area_end > end)
				end = ks[i].area_end;
	return end;
}

static int copy_bytes(int from, int to, uint64_t len)
{
	size_t chunk = 1024 * 1024;
	unsigned char *buf = malloc(chunk);
	uint64_t at = 0;
	ssize_t got = 0;

	if (!buf)
		return -ENOMEM;
	while (at < len) {
		got = fdw_pread_full(from, buf, len - at < chunk ? (size_t)(len - at) : chunk, at);
		if (got <= 0)
			break;
		if (pwrite(to, buf, (size_t)got, (off_t)at) != got) {
			got = -errno;
			break;
		}
		at += (uint64_t)got;
	}
	free(buf);
	if (got < 0)
		return (int)got;
	return at ? 0 : -EIO;
}

int fdw_luks2_copy_open(const char *device, const char *header, char *path, size_t path_len)
{
	const char *src = header ? header : device;
	struct fdw_luks2_peek p;
	uint64_t len;
	int rc, from, to;

	rc = fdw_luks2_peek(src, 0, 0, &p);
	if (rc)
		return rc;
	len = header_area(&p);
	fdw_luks2_peek_release(&p);
	if (len > AREA_MAX)
		return -EINVAL;
	from = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (from < 0)
		return -errno;
	to = memfd_create("fdewiz-header", MFD_CLOEXEC);
	if (to < 0) {
		rc = -errno;
		close(from);
		return rc;
	}
	/* A device shorter than its header names reads short: the copy is as long as read. */
	rc = copy_bytes(from, to, len);
	close(from);
	if (!rc && snprintf(path, path_len, "/proc/self/fd/%d", to) >= (int)path_len)
		rc = -ENAMETOOLONG;
	if (rc) {
		close(to);
		return rc;
	}
	return to;
}
