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
#include <stdint.h>
#include <sys/types.h>

#include "bench/bench_flow.h"
#include "boot/boot_entries.h"
#include "luks2/convert.h"
#include "state/job.h"
#include "state/phase.h"
#include "base/pace.h"
#include "plan.h"
#include "boot/system_boot.h"
#include "base/secret.h"
#include "disk/target.h"

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
	/* Start even on a battery below FDW_BATTERY_START_PERCENT (power.h); the worker
	 * then does not pause for the battery either. */
	bool allow_low_battery;
	/* A header made before (fdw_convert_prepare_header), with its keyslots and the UUID
	 * @prepared_uuid the job takes: the conversion that begins at a restart. */
	const char *prepared_header;
	const char *prepared_uuid;
	/* The mapping's name while it converts; NULL: fdewiz-<8 of the UUID>. */
	const char *active_name;
	/* An installed system's root that also unlocks with this computer's TPM 2.0 at its
	 * start, sealed to these PCRs ("7") once the conversion is done; NULL: not. */
	const char *tpm_pcrs;
	/* How it shares the disk while it converts (base/pace.h); 0 is auto. */
	enum fdw_pace pace;
};

/*
 * One conversion being set up. Its innards are the engine's (encrypt_internal.h): a
 * front-end holds it by pointer, from fdw_encrypt_new() to fdw_encrypt_free(), and reads
 * it through the functions below.
 */
struct fdw_encrypt;

/* A new one, ready for fdw_encrypt_prepare(); NULL when out of memory. */
struct fdw_encrypt *fdw_encrypt_new(void);
/* Closed (fdw_encrypt_close) and freed; NULL does nothing. */
void fdw_encrypt_free(struct fdw_encrypt *e);

/* After a successful prepare: the partition opened and locked, the plan, why its cipher
 * ("" when one was asked for), the header backup's path, the benchmark scale, and the
 * prediction kept for the job (NULL: none). */
const struct fdw_target *fdw_encrypt_target(const struct fdw_encrypt *e);
const struct fdw_plan *fdw_encrypt_plan(const struct fdw_encrypt *e);
const char *fdw_encrypt_cipher_why(const struct fdw_encrypt *e);
/* Can the plain partition be benchmarked (a filesystem fdewiz mounts)? Not an LVM PV. */
bool fdw_encrypt_can_bench(const struct fdw_encrypt *e);
const char *fdw_encrypt_header_backup(const struct fdw_encrypt *e);
const char *fdw_encrypt_bench_scale(const struct fdw_encrypt *e);
const struct fdw_bench_run *fdw_encrypt_prediction(const struct fdw_encrypt *e);
/* After a successful begin (or start): the job record. */
const struct fdw_job *fdw_encrypt_job(const struct fdw_encrypt *e);

/*
 * Open @address, take its conversion lock, make the plan, and check every path a run
 * will write. Changes nothing. Returns 0, or -errno with @why.
 */
int fdw_encrypt_prepare(struct fdw_encrypt *e, const char *address,
			const struct fdw_encrypt_options *o, char *why, size_t len);

/*
 * Make room for the header (shrink the filesystem or grow the partition), write the
 * header and its backup, and record the job. @phase, when set, hears each step.
 * On a low battery (power.h) nothing starts: -EAGAIN with @why, unless allowed.
 * Returns 0; 1 when all is done but the job record could not be saved (@why warns;
 * the header alone still tells status and resume everything); or -errno with @why
 * saying what was changed (for example "the filesystem was shrunk; the data is intact
 * and not encrypted"). Ctrl-C, Ctrl-\, Ctrl-Z, SIGTERM and SIGHUP wait until it returns.
 */
int fdw_encrypt_begin(struct fdw_encrypt *e, const struct fdw_secret *pass,
		      fdw_phase_fn phase, void *ctx, char *why, size_t len);

void fdw_encrypt_close(struct fdw_encrypt *e);

/*
 * Change, after prepare, whether the plain filesystem is benchmarked first (and the
 * encrypted one after), and at what scale (NULL: keep it). -EINVAL for an unknown scale.
 */
int fdw_encrypt_set_bench(struct fdw_encrypt *e, bool baseline, const char *scale);

/*
 * Change, after prepare, the plan's cipher to @spec ("aes-xts-plain64",
 * "xchacha12,aes-adiantum-plain64") with a @key_bits key; the rest of the plan stays.
 * The advisor's sentence (cipher_why) is kept only when @spec and @key_bits are its
 * advice. 0, or -EINVAL with @why (the plan is unchanged).
 */
int fdw_encrypt_set_cipher(struct fdw_encrypt *e, const char *spec, unsigned key_bits,
			   char *why, size_t len);

/*
 * Keep a copy of @pred (src/core/convert/predict.h; NULL: none) to be saved with the job when it
 * begins, so the results can show predicted beside measured. 0 or -ENOMEM.
 */
struct fdw_bench_run;
int fdw_encrypt_set_prediction(struct fdw_encrypt *e, const struct fdw_bench_run *pred);

/*
 * Why the volume will not be open while it converts, nor when it is done (so the worker
 * cannot measure the encrypted filesystem after the baseline, nor grow a shrunk one),
 * as one translated phrase; NULL when it will be open. Decided by what begin records.
 */
const char *fdw_encrypt_closed_why(const struct fdw_encrypt *e);

/* What fdw_encrypt_start does beyond the header. */
struct fdw_start_options {
	bool recovery_key;		/* make a recovery key, add it with the header, test it */
	bool boot_entries;		/* crypttab entry (and fstab with @boot.fstab) */
	struct fdw_boot_request boot;	/* root NULL: "/"; name NULL: fdw_encrypt.boot_name */
	fdw_phase_fn phase;		/* hears each step; may be NULL */
	/* hears each step of the baseline benchmark (in the same thread); may be NULL */
	fdw_bench_status_fn bench;
	void *ctx;			/* for both */
};

/* What it did; the front-end shows it. Wipe it with fdw_start_result_wipe(). */
struct fdw_start_result {
	/* The recovery key, only when it was added and opened the volume in its test: to be
	 * shown once, then wiped. NULL when none was asked, or with @recovery_why. */
	struct fdw_secret *recovery;
	int recovery_slot;		/* the keyslot the key opened, -1 when none */
	char recovery_why[768];		/* asked for but not handed out: why, what to do */
	bool boot_tried;		/* boot entries were asked for */
	int boot_rc;			/* as fdw_boot_entries_write() */
	struct fdw_boot_result boot;
	char boot_root[PATH_MAX];	/* the root they were written under */
	char boot_why[1024];
};

/*
 * The one start of an encryption, for the command line and the wizard alike, after
 * fdw_encrypt_prepare(): make the recovery key when asked, fdw_encrypt_begin() (room,
 * baseline benchmark, header with the passphrase's and the recovery key's keyslots,
 * job record), then test the recovery key against the new header (a key that does not
 * open the volume is wiped, never shown: @res->recovery_why says so), then write the
 * boot entries when asked (a failure there only warns: @res->boot_rc). Returns as
 * fdw_encrypt_begin(): 0, 1 (done; @why warns), or -errno with @why (@res holds no key).
 * The conversion itself is launched next: fdw_encrypt_launch(), or in the foreground
 * fdw_conversion_foreground().
 */
int fdw_encrypt_start(struct fdw_encrypt *e, const struct fdw_secret *pass,
		      const struct fdw_start_options *so, struct fdw_start_result *res,
		      char *why, size_t len);
void fdw_start_result_wipe(struct fdw_start_result *res);

/*
 * Why boot entries cannot be offered for the planned partition when written under
 * @root (NULL: "/"), as one translated sentence; NULL when they can.
 */
const char *fdw_encrypt_boot_unavailable(const struct fdw_encrypt *e, const char *root);

/* Unlocking an installed system's root at its start with this computer's TPM. */
enum fdw_tpm_offer {
	FDW_TPM_OFFER_NONE,		/* not an installed system's root on a disk: not offered */
	FDW_TPM_OFFER_UNAVAILABLE,	/* offered, but @why says what is missing */
	FDW_TPM_OFFER_READY,		/* can be chosen */
};
enum fdw_tpm_offer fdw_encrypt_tpm_offer(const struct fdw_encrypt *e, char *why, size_t len);

/*
 * After prepare: also seal to the TPM (to @pcrs, like "7"; NULL: not) once the conversion
 * and the boot step are done. 0, or -errno with @why (then not); checked as begin would.
 */
int fdw_encrypt_set_tpm(struct fdw_encrypt *e, const char *pcrs, char *why, size_t len);
/* The PCRs chosen, or NULL when TPM unlock is not. */
const char *fdw_encrypt_tpm_pcrs(const struct fdw_encrypt *e);

/* Launch the started conversion in a background worker: fdw_launch_background(). */
pid_t fdw_encrypt_launch(struct fdw_encrypt *e, const struct fdw_secret *pass,
			 const char *mount_at, char *why, size_t len);

struct fdw_foreground_ops;
/* Run the started conversion in this process: fdw_conversion_foreground(). */
int fdw_encrypt_foreground(struct fdw_encrypt *e, struct fdw_secret *pass,
			   const char *mount_at, const struct fdw_foreground_ops *ops);

/* What a foreground run tells the person, one line each; the front-end escapes it. */
enum fdw_say {
	FDW_SAY_INFO,		/* how it went */
	FDW_SAY_WARNING,	/* went on all the same */
	FDW_SAY_ERROR,		/* it stopped: what happened, what is intact, what to do */
	FDW_SAY_LIST_ITEM,	/* one item of the list the line before announced */
};

/* Where a foreground conversion is. */
struct fdw_foreground_progress {
	uint64_t done, total;		/* bytes encrypted, of */
	double percent;
	double seconds;			/* since the conversion started */
};

struct fdw_foreground_ops {
	/* At most four times a second, and for the last step. May be NULL. */
	void (*progress)(const struct fdw_foreground_progress *p, void *ctx);
	/* The conversion has ended (no more progress); the outcome is said next. May be NULL. */
	void (*ended)(void *ctx);
	void (*say)(enum fdw_say kind, const char *line, void *ctx);
	void *ctx;
};

/*
 * Run the conversion of @job (the caller holds its lock) in this process, on @t
 * (attaching a loop device when needed): open the volume (mounted at @mount_at when set),
 * convert with progress, then say how it went and, for an installed system's root, what
 * its boot step changed. SIGINT and SIGTERM stop it at the next safe point (-EINTR);
 * SIGHUP is ignored. Returns 0 when all is done, else -errno (what was said tells the
 * person what is intact and how to continue).
 */
int fdw_conversion_foreground(const struct fdw_job *job, struct fdw_target *t,
			      struct fdw_secret *pass, const char *mount_at,
			      const struct fdw_foreground_ops *ops);

/*
 * After a complete conversion of an installed system's root: say what its boot step
 * changed (0), or that it is still to do (-EAGAIN). 0 when @job is no such root.
 */
int fdw_system_boot_report(const struct fdw_job *job, const struct fdw_foreground_ops *ops);
/* The same for a partition of another installed system: that system's crypttab. */
int fdw_system_data_report(const struct fdw_job *job, const struct fdw_foreground_ops *ops);

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
