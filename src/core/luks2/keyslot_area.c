/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Zeros over the unused keyslot area of a header file, so that it compresses. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "keyslot_area.h"
#include "luks2_json.h"
#include "luks2_peek.h"

struct area {
	uint64_t at, end;
};

static int by_start(const void *a, const void *b)
{
	const struct area *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* Every keyslot's area in @root, sorted by where it starts. */
static int used_areas(json_object *root, struct area *out, size_t *n)
{
	struct fdw_luks2_keyslot ks[FDW_LUKS2_MAX_KEYSLOTS];
	int rc = fdw_luks2_keyslots(root, ks, FDW_LUKS2_MAX_KEYSLOTS, n);

	if (rc)
		return rc;
	for (size_t i = 0; i < *n; i++)
		out[i] = (struct area){ ks[i].area_offset, ks[i].area_end };
	qsort(out, *n, sizeof(*out), by_start);
	return 0;
}

static int write_zeros(int fd, uint64_t at, uint64_t end)
{
	static const unsigned char zeros[64 * 1024];
	int rc = 0;

	while (at < end && !rc) {
		size_t len = end - at < sizeof(zeros) ? (size_t)(end - at) : sizeof(zeros);

		rc = fdw_pwrite_full(fd, zeros, len, at);
		at += len;
	}
	return rc;
}

/* Zeros over [@start, @end) of @fd except the sorted @used areas; never past the file. */
static int zero_gaps(int fd, uint64_t start, uint64_t end, const struct area *used, size_t n,
		     uint64_t *zeroed)
{
	struct stat st;
	uint64_t at = start;
	size_t i;
	int rc = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size < end)
		end = (uint64_t)st.st_size;
	for (i = 0; i <= n && !rc; i++) {
		uint64_t gap_end = i < n && used[i].at < end ? used[i].at : end;

		if (gap_end > at) {
			rc = write_zeros(fd, at, gap_end);
			*zeroed += gap_end - at;
		}
		if (i < n && used[i].end > at)
			at = used[i].end;
	}
	return rc;
}

int fdw_luks2_zero_unused_keyslot_area(const char *path, uint64_t *zeroed)
{
	struct fdw_luks2_peek p;
	struct area used[FDW_LUKS2_MAX_KEYSLOTS];
	json_object *config;
	uint64_t size;
	size_t n;
	int fd, rc;

	*zeroed = 0;
	rc = fdw_luks2_peek(path, 0, 0, &p);
	if (rc)
		return rc;
	rc = -EINVAL;
	if (p.reencrypt || !json_object_object_get_ex(p.json, "config", &config) ||
	    !fdw_luks2_u64(config, "keyslots_size", &size) || size > UINT64_MAX / 4 ||
	    p.hdr_size > UINT64_MAX / 4)
		goto out;
	rc = used_areas(p.json, used, &n);
	if (rc)
		goto out;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = zero_gaps(fd, 2 * p.hdr_size, 2 * p.hdr_size + size, used, n, zeroed);
	if (close(fd) < 0 && !rc)
		rc = -errno;
out:
	fdw_luks2_peek_release(&p);
	return rc;
}
