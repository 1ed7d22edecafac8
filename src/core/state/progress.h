/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Conversion progress as the worker publishes it and every viewer reads it. */
#ifndef FDW_PROGRESS_H
#define FDW_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "phase.h"

/* Speed over the last few seconds: a whole-run average hides stalls and speed-ups. */
#define FDW_SPEED_SAMPLES 64
#define FDW_SPEED_WINDOW_S 10.0

struct fdw_speed_window {
	double t[FDW_SPEED_SAMPLES];
	uint64_t done[FDW_SPEED_SAMPLES];
	unsigned head, count;
};

void fdw_speed_add(struct fdw_speed_window *w, double t, uint64_t done);
/* Bytes per second over the samples of the last FDW_SPEED_WINDOW_S seconds; 0 if unknown. */
double fdw_speed_rate(const struct fdw_speed_window *w);

/*
 * Seconds left to @total as seen at @now (the samples' clock), -1 when unknown; @rate (may
 * be NULL) gets the bytes per second it stands on. The window's rate, with two corrections
 * so the figure is honest between samples: the time already spent on the step under way
 * counts down, and a step that is overdue (it has taken longer than the last one did at
 * that rate) lowers the rate to what it has shown so far, so the time left grows while the
 * disk is slow instead of standing still until the step ends.
 */
double fdw_speed_eta(const struct fdw_speed_window *w, double now, uint64_t total,
		     double *rate);

enum fdw_job_state {
	FDW_JOB_RUNNING,
	FDW_JOB_PAUSED,		/* stopped cleanly at a safe point */
	FDW_JOB_INTERRUPTED,	/* no worker, header says resumable */
	FDW_JOB_NEEDS_REPAIR,	/* no worker, header says it crashed mid-write */
	FDW_JOB_COMPLETE,
	FDW_JOB_FAILED,
	FDW_JOB__COUNT
};

const char *fdw_job_state_name(enum fdw_job_state s);
/* The state in words for a person, translated ("needs repair"); the name above is the key. */
const char *fdw_job_state_label(enum fdw_job_state s);
int fdw_job_state_parse(const char *name, enum fdw_job_state *out);

struct fdw_progress {
	enum fdw_job_state state;
	enum fdw_phase phase;	/* kept in the record by its key (fdw_phase_key) */
	uint64_t done, total;	/* bytes */
	double speed;		/* bytes per second, sliding window */
	double elapsed;		/* seconds since the worker started */
	double eta;		/* seconds, -1 when unknown */
	pid_t pid;		/* worker, 0 when none */
	uint64_t pid_start;	/* the worker's start time and boot: pids repeat */
	char boot_id[40];
	time_t updated;		/* wall clock of this record */
	char message[640];	/* last error or note, in the language of the worker */
	/* While the after-benchmark runs: the test running (an English msgid, "" when no
	 * benchmark runs), the share of the whole benchmark done and the seconds left (-1
	 * unknown), as the engine's benchmark reports them (bench_flow.h). */
	char bench_what[64];
	double bench_fraction, bench_left;
	/* How it shares the disk now ("auto", "gentle", "full"; "" before a worker said), and
	 * while it waits for other work: that work's disk traffic (bytes per second). */
	char pace[8];
	bool yielding;
	double others_bps;
	/* Seconds the machine slept (suspended) while the conversion ran: not in @elapsed, the
	 * speed or the time left, which count only time awake. */
	double slept;
};

/*
 * The time left as people read it, in @buf: @unknown when it is not known or the run is
 * not running; "finishing" once every byte is converted while the run goes on (the
 * header's last writes, the filesystem grown back, the after-benchmark), so the screen
 * never promises 0:00 while work remains; else the duration. Returns @buf.
 */
char *fdw_progress_eta_text(const struct fdw_progress *p, const char *unknown, char *buf,
			    size_t len);

/* Write @p to @path atomically (temporary file, fsync, rename). */
int fdw_progress_write(const char *path, const struct fdw_progress *p);
int fdw_progress_read(const char *path, struct fdw_progress *p);

#endif
