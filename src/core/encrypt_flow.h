/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The steps of encrypting one partition, shared by `fdewiz encrypt`, `fdewiz resume` and
 * the wizard: prepare (changes nothing), begin (makes room, writes the header), launch
 * (a background worker converts). Errors come back as one sentence that says what
 * happened and exactly what was changed; nothing here prints.
 */
#ifndef FDW_ENCRYPT_FLOW_H
#define FDW_ENCRYPT_FLOW_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "convert.h"
#include "job.h"
#include "plan.h"
#include "secret.h"
#include "target.h"

/* What a conversion is doing, as the progress screen and `status` name it. */
enum fdw_phase {
	FDW_PHASE_CHECKING,
	FDW_PHASE_GROWING_PARTITION,
	FDW_PHASE_SHRINKING,
	FDW_PHASE_INITIALISING,
	FDW_PHASE_ENCRYPTING,
	FDW_PHASE_GROWING_FS,
	FDW_PHASE_BENCHMARKING,
	FDW_PHASE__COUNT
};

/* Stable English key ("shrinking"), as kept in the status record. */
const char *fdw_phase_key(enum fdw_phase p);
/* Translated label for people. */
const char *fdw_phase_label(enum fdw_phase p);

typedef void (*fdw_phase_fn)(enum fdw_phase phase, void *ctx);

struct fdw_encrypt_options {
	struct fdw_plan_request rq;
	const char *header_backup;	/* NULL: <state dir>/<address>-<time>.header */
	const char *work_dir;		/* temporary header; NULL: the state directory */
	bool offline;			/* do not open the volume while it converts */
	bool fast_pbkdf;		/* tests only */
	bool dry_run;			/* plan only: no lock, no path checks */
	bool bench_baseline;		/* benchmark the plain filesystem first, and after */
	const char *bench_scale;	/* NULL: "quick" */
	/* A recovery key (fdw_recovery_key_generate) for a second keyslot, added with the
	 * header before any data moves; the caller shows it. NULL: none. */
	const struct fdw_secret *recovery_key;
};

/* One conversion being set up. Zero it, then prepare; always close. */
struct fdw_encrypt {
	struct fdw_target target;
	bool target_open;
	int lock_fd;			/* -1 when not held */
	struct fdw_plan plan;
	struct fdw_job job;		/* filled by begin */
	char header_backup[PATH_MAX];	/* absolute */
	char work_dir[PATH_MAX];
	bool offline, fast_pbkdf, bench_baseline;
	char bench_scale[8];
	const struct fdw_secret *recovery_key;
	/* crypttab name from the filesystem's label or the partition's name, taken before
	 * encryption hides the label; "" when neither gives one */
	char boot_name[128];
	/* What the plan was made for, checked again under the lock when begin starts:
	 * the device number (or image inode), the partition's place and its UUID. */
	dev_t ident_dev;
	ino_t ident_ino;
	uint64_t ident_start, ident_size;
	char ident_uuid[64];
	int excl_fd;			/* O_EXCL on the device between steps, or -1 */
};

/*
 * Open @address, take its conversion lock, make the plan, and check every path a run
 * will write. Changes nothing. Returns 0, or -errno with @why.
 */
int fdw_encrypt_prepare(struct fdw_encrypt *e, const char *address,
			const struct fdw_encrypt_options *o, char *why, size_t len);

/*
 * Make room for the header (shrink the filesystem or grow the partition), write the
 * header and its backup, and record the job. @phase, when set, hears each step.
 * Returns 0; 1 when all is done but the job record could not be saved (@why warns;
 * the header alone still tells status and resume everything); or -errno with @why
 * saying what was changed (for example "the filesystem was shrunk; the data is intact
 * and not encrypted"). Ctrl-C, Ctrl-\, Ctrl-Z, SIGTERM and SIGHUP wait until it returns.
 */
int fdw_encrypt_begin(struct fdw_encrypt *e, const struct fdw_secret *pass,
		      fdw_phase_fn phase, void *ctx, char *why, size_t len);

void fdw_encrypt_close(struct fdw_encrypt *e);

/* An unfinished conversion found again, ready to continue. */
struct fdw_resume {
	struct fdw_job job;
	bool recorded;			/* false: started by another tool, found in the header */
	bool moved;			/* the record named another address: saved anew */
	bool boot_only;			/* converted; only an installed system's boot step
					 * is left (fdw_system_boot_finish) */
	struct fdw_target target;
	bool target_open;
	int lock_fd;
};

/*
 * Find the unfinished conversion of @address, open it and take its lock. Changes
 * nothing. -ENOENT: none; -EALREADY: its worker is running; -EBUSY: locked.
 */
int fdw_resume_prepare(struct fdw_resume *r, const char *address, char *why, size_t len);
/* 0 when @pass opens the volume; -EPERM with @why when it is wrong. */
int fdw_resume_check_passphrase(struct fdw_resume *r, const struct fdw_secret *pass,
				char *why, size_t len);
void fdw_resume_close(struct fdw_resume *r);

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

/*
 * Ask the running worker of @job to stop at its next safe point and wait (up to
 * @timeout_s) until it has released the device. 0 when paused; -ESRCH when not
 * running; -ETIMEDOUT.
 */
int fdw_job_pause(const struct fdw_job *job, int timeout_s);

/*
 * The job of the volume on @t now: its own record (fdw_job_for_volume, so never one of a
 * volume that had this name before), or one built from its LUKS2 header with *@recorded
 * false. -ENOENT: no LUKS2 volume and no record of a detached-header conversion.
 */
int fdw_job_for_target(const struct fdw_target *t, struct fdw_job *job, bool *recorded);
/* The same for @address, opened here; the job's address is set to @address's canonical one. */
int fdw_job_for_address(const char *address, struct fdw_job *job, bool *recorded);

#endif
