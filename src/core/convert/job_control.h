/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A recorded conversion controlled from outside its worker: paused, found for a
 * partition, its pace changed, its header backup replaced.
 */
#ifndef FDW_JOB_CONTROL_H
#define FDW_JOB_CONTROL_H

#include <stdbool.h>

#include "base/pace.h"
#include "disk/target.h"
#include "state/job.h"

/*
 * Ask the running worker of @job to stop at its next safe point and wait (up to
 * @timeout_s) until it has released the device. Only a worker that holds this volume's
 * partition lock is signalled: a process the record names that is not converting these
 * bytes is left alone (-ESTALE). Pausing is always safe, so a holder never stops it;
 * but when something else holds the volume once the worker is gone (so resume would
 * refuse), @note (if not NULL) says what, else it is "". 0 when paused; -ESRCH when not
 * running; -ESTALE; -ETIMEDOUT; -errno.
 */
int fdw_job_pause(const struct fdw_job *job, int timeout_s, char *note, size_t note_len);

/*
 * The job of the volume on @t now: its own record (fdw_job_for_volume, so never one of a
 * volume that had this name before), or one built from its LUKS2 header with *@recorded
 * false. -ENOENT: no LUKS2 volume and no record of a detached-header conversion.
 */
int fdw_job_for_target(const struct fdw_target *t, struct fdw_job *job, bool *recorded);
/* The same for @address, opened here; the job's address is set to @address's canonical one. */
int fdw_job_for_address(const char *address, struct fdw_job *job, bool *recorded);
/*
 * How @job's conversion shares the disk from now on: kept in its record, which its worker
 * reads again each second (a running one follows within about a second; a paused or
 * interrupted one resumes with it). 0, or -errno (the record could not be written).
 */
int fdw_job_set_pace(struct fdw_job *job, enum fdw_pace pace);

/*
 * A header backup @file was just made of the volume at @address: when its record says its
 * own backup is stale (not refreshed after the conversion), the record names @file
 * instead, and the backup is valid again. 0 (also when there is no such record), -errno.
 */
int fdw_job_backup_replaced(const char *address, const char *file);

#endif
