/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How a conversion shares the disk with the person at the computer: its priorities, and
 * the waits between two hotzones while someone else uses the disk. */
#ifndef FDW_PACE_H
#define FDW_PACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fdw_pace {
	FDW_PACE_AUTO,		/* full speed on a quiet disk, backs off while others use it */
	FDW_PACE_GENTLE,	/* always leaves most of the disk to others */
	FDW_PACE_FULL,		/* as fast as it goes, whatever else runs */
	FDW_PACE__COUNT
};

/* Others' disk traffic (bytes per second) above which the disk counts as in use. */
#define FDW_PACE_BUSY_BPS (1024.0 * 1024.0)
/* What the conversion writes besides its data each hotzone: the header's updates. */
#define FDW_PACE_STEP_OWN_BYTES (128 * 1024)
/* The longest wait between two hotzones: status, pause and a stop stay prompt. */
#define FDW_PACE_MAX_WAIT_S 2.0

/* "auto", "gentle", "full": kept in records and given on the command line; NULL if none. */
const char *fdw_pace_name(enum fdw_pace pace);
/* The pace named @name, or -1. */
int fdw_pace_parse(const char *name);
/* "yields to other work", translated, for a person. */
const char *fdw_pace_text(enum fdw_pace pace);

/*
 * The calling process's CPU and I/O priority for @pace: full what the process had before
 * the first call; auto and gentle the idle I/O class (the block scheduler serves it when
 * nobody else waits: mq-deadline and bfq honour it), nice 10 and 19 (never below what it
 * had). 0, or -errno from the first that failed (the conversion goes on regardless).
 */
int fdw_pace_priority(enum fdw_pace pace);

/*
 * How long to wait before the next hotzone, in seconds: @others_bps is the disk traffic
 * that was not the conversion's own since the last hotzone, @step_s how long that hotzone
 * took. Pure: the rule, apart for tests.
 */
double fdw_pace_wait(enum fdw_pace pace, double others_bps, double step_s);

/* The disk under a device, watched between hotzones. */
struct fdw_pacer {
	char stat_path[96];	/* /sys/dev/block/MAJ:MIN/stat of the whole disk, "" if none */
	bool primed;
	double t;		/* when the last sample was taken (monotonic seconds) */
	uint64_t disk_bytes;	/* the disk's bytes read and written then */
	uint64_t done;		/* the conversion's bytes done then */
	double others_bps;	/* others' traffic over the last step */
	bool yielding;		/* the last step was followed by a wait */
};

/*
 * Find the whole disk under @device (a partition's disk; a loop device's backing file's
 * disk, as far down as it goes). Without one, the pacer never waits.
 */
void fdw_pacer_init(struct fdw_pacer *p, const char *device);
/*
 * Between two hotzones, @done bytes converted: sample the disk, and wait as @pace says,
 * in short naps that end early once *@stop is set. Returns the seconds waited.
 */
double fdw_pacer_step(struct fdw_pacer *p, enum fdw_pace pace, uint64_t done,
		      volatile sig_atomic_t *stop);

/* The disk's bytes read and written from the text of its sysfs stat file, or false. */
bool fdw_pace_parse_stat(const char *text, uint64_t *bytes);

#endif
