/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The baseline benchmark before an encryption and the same benchmark after it. */
#ifndef FDW_BENCH_FLOW_H
#define FDW_BENCH_FLOW_H

#include <signal.h>
#include <stddef.h>

#include "job.h"

/*
 * Mount the plain filesystem on @device privately, run the quick I/O, build and cipher
 * benchmarks in a scratch directory (removed afterwards), unmount, and record the saved
 * result in @job->bench_before. The filesystem keeps its contents. Returns 0 or -errno
 * with @why (English).
 */
int fdw_bench_before(struct fdw_job *job, const char *device, const char *fstype,
		     char *why, size_t len);

/*
 * When @job has a baseline: mount the opened volume /dev/mapper/@active_name privately,
 * run the same benchmarks, record the result in @job->bench_after (or why not in
 * @job->bench_note, for example offline) and save the job record.
 */
int fdw_bench_after(struct fdw_job *job, const char *active_name, const char *fstype,
		    volatile sig_atomic_t *stop);

#endif
