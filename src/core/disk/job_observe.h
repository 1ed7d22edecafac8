/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a job's volume says now: its worker's progress, else its LUKS2 header. */
#ifndef FDW_JOB_OBSERVE_H
#define FDW_JOB_OBSERVE_H

#include "state/job.h"

/*
 * The state a viewer should show: the published record when its worker is alive;
 * otherwise what the LUKS2 header of the volume says, wherever it is now (the header wins
 * when the record disagrees, and p->message says so). @where (may be NULL) gets the
 * address the volume is on now, empty when it is not found; then the state is the last
 * one published and the return is 0 for a complete conversion, else -ENODEV.
 */
int fdw_job_observe_at(const struct fdw_job *job, struct fdw_progress *p, char *where,
		       size_t len);
int fdw_job_observe(const struct fdw_job *job, struct fdw_progress *p);
/*
 * Remove records (and their status and log) of conversions that finished more than
 * @days ago, when the header agrees or the volume is gone. Never an unfinished one.
 */
int fdw_job_prune(int days);

#endif
