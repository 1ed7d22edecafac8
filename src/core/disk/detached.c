/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Recognises what blkid cannot: a volume whose LUKS2 header lives in a file, and random data. */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "detached.h"
#include "disk.h"
#include "state/job.h"
#include "base/log.h"
#include "luks2/luks2_json.h"
#include "luks2/luks2_peek.h"
#include "volume_id.h"

/* Every segment the header describes must lie inside the partition. */
static int segments_fit(struct json_object *root, uint64_t part_size)
{
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	uint64_t bytes;
	size_t n;
	int rc = fdw_luks2_segments(root, segs, FDW_LUKS2_MAX_SEGMENTS, &n);

	if (rc)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!fdw_luks2_segment_bytes(&segs[i], part_size, &bytes))
			return -ERANGE;
	return 0;
}

int fdw_detached_lookup(const struct fdw_disk *d, const struct fdw_partition *p, char *header,
			size_t len, bool *unfinished)
{
	const char *address = p->address;
	struct fdw_volume_id now;
	struct fdw_luks2_peek h;
	struct fdw_job job;
	int rc;

	fdw_volume_id_of(d, p, &now);
	rc = fdw_job_for_volume(&now, &job);
	if (rc)
		return rc;
	if (!job.detached_header[0])
		return -ENOENT;
	/*
	 * The record is a claim; the header itself must agree before anyone trusts it. Read
	 * by hand and read-only (see luks2_peek.h): a scan takes no lock, and crypt_load()
	 * would repair the file in place if its two copies disagreed.
	 */
	rc = fdw_luks2_peek(job.detached_header, 0, 0, &h);
	if (rc)
		return rc;
	if (strcasecmp(h.uuid, job.id)) {
		fdw_log(FDW_LOG_WARN, "%s: header %s has UUID %s, its job record %s", address,
			job.detached_header, h.uuid[0] ? h.uuid : "(none)", job.id);
		rc = -ESTALE;
		goto out;
	}
	rc = segments_fit(h.json, p->size);
	if (rc) {
		fdw_log(FDW_LOG_WARN, "%s: header %s describes data beyond the partition",
			address, job.detached_header);
		goto out;
	}
	*unfinished = h.reencrypt;
	if ((size_t)snprintf(header, len, "%s", job.detached_header) >= len)
		rc = -ENAMETOOLONG;
out:
	fdw_luks2_peek_release(&h);
	return rc;
}

int fdw_decrypt_lookup(const struct fdw_disk *d, const struct fdw_partition *p,
		       struct fdw_job *job)
{
	struct fdw_volume_id now;

	fdw_volume_id_of(d, p, &now);
	if (fdw_job_for_volume(&now, job) != 0 || strcmp(job->direction, "decrypt") ||
	    !job->detached_header[0] || access(job->detached_header, F_OK) != 0)
		return -ENOENT;
	return 0;
}

/*
 * Chi-square of the byte counts of @buf against a uniform spread: about 255 (give or
 * take 23) for random bytes, thousands or millions for text, code, zeros or a filesystem.
 */
static uint64_t chi_square(const unsigned char *buf, size_t n)
{
	uint64_t count[256] = { 0 }, sum = 0;
	uint64_t expect = n / 256;

	for (size_t i = 0; i < n; i++)
		count[buf[i]]++;
	for (int b = 0; b < 256; b++) {
		uint64_t d = count[b] > expect ? count[b] - expect : expect - count[b];

		sum += d * d;
	}
	return sum / expect;
}

bool fdw_looks_random(int fd, uint64_t offset, uint64_t size)
{
	enum { SAMPLE = 64 * 1024 };
	static unsigned char buf[SAMPLE];
	/* The start, the middle and the end: ciphertext is random everywhere. */
	const uint64_t at[] = { 0, size / 2 / SAMPLE * SAMPLE, size - SAMPLE };

	if (size < 4 * SAMPLE)
		return false;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		if (pread(fd, buf, SAMPLE, (off_t)(offset + at[i])) != SAMPLE)
			return false;
		/* Random 64 KiB is below 400 with overwhelming odds (mean 255, sd 23). */
		if (chi_square(buf, SAMPLE) > 400)
			return false;
	}
	return true;
}
