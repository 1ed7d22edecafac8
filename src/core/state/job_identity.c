/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which job record belongs to a volume: never found by a reused name alone. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "job.h"

/* The same bytes on the same medium, however they are reached now. */
static bool same_place(const struct fdw_volume_id *a, const struct fdw_volume_id *b)
{
	if (a->image_ino || b->image_ino)
		return a->image_ino == b->image_ino && a->image_dev == b->image_dev &&
		       a->image_offset == b->image_offset;
	if (a->partuuid[0] && b->partuuid[0])
		return !strcasecmp(a->partuuid, b->partuuid);
	return a->disk[0] && !strcmp(a->disk, b->disk) && a->number == b->number &&
	       a->start == b->start;
}

bool fdw_job_is_for(const struct fdw_job *job, const struct fdw_volume_id *now)
{
	/* The header is the truth: its UUID is the job id fdewiz gave it. */
	if (now->luks_uuid[0])
		return !strcasecmp(job->id, now->luks_uuid);
	/* No header on the device: only a conversion with a detached header fits. */
	if (!job->detached_header[0])
		return false;
	if (!job->ident.disk[0])
		return false;	/* an old record without identity: nothing to prove it */
	return same_place(&job->ident, now);
}

int fdw_job_for_volume(const struct fdw_volume_id *now, struct fdw_job *job)
{
	struct fdw_job *v;
	size_t n;
	int rc = fdw_job_list(&v, &n);

	if (rc)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < n && rc; i++)	/* newest first */
		if (fdw_job_is_for(&v[i], now)) {
			*job = v[i];
			rc = 0;
		}
	free(v);
	return rc;
}
