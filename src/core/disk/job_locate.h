/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a job's volume is on this machine now, and conversions no record belongs to. */
#ifndef FDW_JOB_LOCATE_H
#define FDW_JOB_LOCATE_H

#include "state/job.h"

struct fdw_target;

/*
 * Open the device that holds @job's volume now: its recorded address when what is there
 * is its own, else the loop device or image file it was on, else the device that carries
 * its UUID or PARTUUID. 0 with @t open, or -ENODEV when it is nowhere to be found.
 * @t is opened as fdw_target_open_locate() opens it: its device, not its verdict.
 */
int fdw_job_locate(const struct fdw_job *job, struct fdw_target *t);
/*
 * Unfinished LUKS2 conversions on this machine's disks and attached loop devices that no
 * record belongs to (started by another tool), as jobs built from their headers.
 */
int fdw_job_unrecorded(struct fdw_job **out, size_t *n);
/*
 * For such a conversion: where fdewiz looked for its record, and how to read another
 * state folder (a live system's, or an installed system's mounted elsewhere), one
 * translated sentence into @buf.
 */
void fdw_job_unrecorded_hint(char *buf, size_t len);

#endif
