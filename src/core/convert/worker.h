/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The background worker: detaches from the terminal and converts while publishing progress. */
#ifndef FDW_WORKER_H
#define FDW_WORKER_H

#include <signal.h>
#include <sys/types.h>

#include "luks2/convert.h"
#include "state/job.h"
#include "base/secret.h"

/*
 * Convert volume @v for @job, publishing progress a few times a second to the job's
 * status file; stop cleanly when *@stop becomes nonzero. @echo, when set, also sees
 * every progress step (a foreground run draws its progress line with it). Returns 0 when complete,
 * -EINTR when paused, or -errno. @pass is wiped as soon as the reencryption has stopped:
 * refreshing the header backup, growing the filesystem and the after-benchmark do not
 * need it.
 */
int fdw_worker_run(const struct fdw_job *job, const struct fdw_volume *v,
		   struct fdw_secret *pass,
		   volatile sig_atomic_t *stop, fdw_convert_progress_fn echo, void *echo_ctx);

#endif
