/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A job's volume opened for its conversion, and the background worker launched on it.
 */
#ifndef FDW_LAUNCH_H
#define FDW_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/secret.h"
#include "disk/target.h"
#include "luks2/convert.h"
#include "state/job.h"

/*
 * Attach @t and describe the volume of @job in @v (pointing into @job and @t). Online,
 * open it as /dev/mapper/<active name> unless it is open, and mount it at @mount_at
 * when set. *@went_offline tells the caller a job recorded online continues offline
 * (this system has no device-mapper). Returns 0, or -errno with @why; a failed mount
 * is only a warning in @why with 0 returned and *@mount_failed set.
 */
int fdw_job_open_volume(const struct fdw_job *job, struct fdw_target *t,
			struct fdw_volume *v, const struct fdw_secret *pass, const char *mount_at,
			bool *went_offline, bool *mount_failed, char *why, size_t len);

/*
 * Convert @job in a detached background worker, opening the volume first when online
 * (and mounting it at @mount_at when set). The worker takes over the loop device of @t
 * and its own locked copy of @pass; the caller still frees both. Returns the worker's
 * pid, or -errno with @why (the data is intact; resume continues it).
 */
pid_t fdw_launch_background(const struct fdw_job *job, struct fdw_target *t,
			    const struct fdw_secret *pass, const char *mount_at, char *why,
			    size_t len);

#endif
