/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The steps of encrypting one partition, shared by `fdewiz encrypt`, `fdewiz resume` and
 * the wizard: prepare (changes nothing), begin (makes room, writes the header), launch
 * (a background worker converts). Errors come back as one sentence that says what
 * happened and exactly what was changed; nothing here prints. The settings changed after
 * prepare are encrypt_settings.h's; the one start, encrypt_start.h's.
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

#endif
