/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The baseline benchmark before an encryption and the same benchmark after it. */
#ifndef FDW_BENCH_FLOW_H
#define FDW_BENCH_FLOW_H

#include <signal.h>
#include <stddef.h>

#include "state/job.h"

/*
 * Where a running benchmark stands, for a progress display. The engine decides the
 * figures (the share of each kind of test in the whole, the time left); a screen only
 * shows them.
 */
struct fdw_bench_status {
	char what[64];		/* the test running, English: a msgid, shown with _() */
	double fraction;	/* of the whole benchmark, 0..1 */
	double left;		/* seconds left, -1 while there is too little to go by */
};

/* Hears each step of a benchmark; called in the caller's own process and thread. */
typedef void (*fdw_bench_status_fn)(const struct fdw_bench_status *s, void *ctx);

/*
 * The whole benchmark's figures from one kind's own fraction: @base and @weight are the
 * share done before this kind and its own share (each 0..1), @took the seconds since the
 * whole began. The time left is only given once there is something to go by.
 */
void fdw_bench_status_make(struct fdw_bench_status *s, const char *what, double base,
			   double weight, double fraction, double took);

/*
 * Mount the plain filesystem on @device privately, run the quick I/O, build and cipher
 * benchmarks in a scratch directory (removed afterwards), unmount, and record the saved
 * result in @job->bench_before. The filesystem keeps its contents. @status (may be NULL)
 * hears each step with @ctx. Returns 0 or -errno with @why (English).
 */
int fdw_bench_before(struct fdw_job *job, const char *device, const char *fstype,
		     fdw_bench_status_fn status, void *ctx, char *why, size_t len);

/*
 * When @job has a baseline: mount the opened volume /dev/mapper/@active_name privately,
 * run the same benchmarks, record the result in @job->bench_after (or why not in
 * @job->bench_note, for example offline) and save the job record. @status (may be NULL)
 * hears each step with @ctx.
 */
int fdw_bench_after(struct fdw_job *job, const char *active_name, const char *fstype,
		    volatile sig_atomic_t *stop, fdw_bench_status_fn status, void *ctx);

#endif
