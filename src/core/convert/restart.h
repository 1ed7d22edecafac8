/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Encrypting the running system's root with one restart: prepared here (the passphrase,
 * the recovery key shown and tested, the header made in a file, the initramfs taught the
 * step), begun in the initramfs before the root is mounted (room, header, the volume
 * opened), and converted online in the booted system, which then sets up the boot.
 */
#ifndef FDW_RESTART_H
#define FDW_RESTART_H

#include <stdbool.h>
#include <stddef.h>

#include "base/secret.h"
#include "bench/bench_flow.h"
#include "boot/restart_files.h"
#include "encrypt_flow.h"

struct fdw_restart_result {
	struct fdw_restart_stage stage;
	struct fdw_secret *recovery;	/* shown once; NULL when it could not be trusted */
	int recovery_slot;
	char initrd[256];		/* the initramfs checked to carry the step */
};

/*
 * In the running system: may @address (the partition mounted as /) be encrypted at the
 * next restart? 0 with @st filled, or -errno with @why (nothing changed).
 */
int fdw_restart_check(const char *address, struct fdw_restart_stage *st, char *why,
		      size_t len);

struct fdw_restart_options {
	const char *exe;		/* fdewiz's own path, which the initramfs carries;
					 * NULL: this program's */
	bool fast_pbkdf;		/* tests: a cheap key derivation */
	bool bench;			/* the plain root measured now, the encrypted one at the end */
	const char *bench_scale;	/* NULL: "quick" */
	fdw_bench_status_fn bench_status;	/* may be NULL: hears the baseline's steps */
	void *bench_ctx;
	const struct fdw_escrow *escrow;	/* the recovery key handed over first; or NULL */
};

/*
 * Prepare it: with @o->bench the plain root's baseline benchmark first; the header with
 * @pass's keyslot and a recovery key's (tested) in the state folder, the key escrowed as
 * @o->escrow says (a failure stops there, nothing left), the stage record,
 * the initramfs hook, boot script and service, the initramfs made again and checked. On
 * failure everything written is removed again. 0, or -errno with @why.
 */
int fdw_restart_arm(const char *address, const struct fdw_secret *pass,
		    const struct fdw_restart_options *o, struct fdw_restart_result *res,
		    char *why, size_t len);
void fdw_restart_result_wipe(struct fdw_restart_result *res);

/*
 * Undo a preparation whose restart has not happened yet. -EALREADY with @why when the
 * conversion has begun (it can be paused, not undone); -ENOENT when nothing is prepared.
 */
int fdw_restart_cancel(char *why, size_t len);

/* Is a restart prepared on this system (the stage record there)? */
bool fdw_restart_pending(struct fdw_restart_stage *st);
/* Has the step at a restart begun @st's conversion: its header on the root (found by its
 * PARTUUID link, or as the person named it where there is none)? */
bool fdw_restart_begun(const struct fdw_restart_stage *st);
/* Prepared, and its restart has not begun the conversion yet ('cancel' still undoes it)? */
bool fdw_restart_prepared(struct fdw_restart_stage *st);
/* Where a restart's conversion stands, as `status` tells it. */
enum fdw_restart_phase {
	FDW_RESTART_NONE,	/* none prepared (for that partition) */
	FDW_RESTART_PREPARED,	/* prepared; the restart has not begun it ('cancel' undoes it) */
	FDW_RESTART_BEGUN,	/* the step at the restart wrote its header; the service goes on */
};
/* For the partition @address (by any of its names; NULL: whichever is prepared), with @st
 * filled when not FDW_RESTART_NONE. */
enum fdw_restart_phase fdw_restart_phase_of(const char *address, struct fdw_restart_stage *st);
/* Begun, and the passphrase typed at this start still waits in root's keyring: the
 * service has not taken the conversion over yet, and will (without it, it cannot go on by
 * itself: 'fdewiz resume' asks for the passphrase). */
bool fdw_restart_service_pending(const struct fdw_restart_stage *st);
/* The restart's conversion as a gathering of conversions (status, the wizard) sees it:
 * looked up once, on the first conversion it may concern. Zero it before the gathering. */
struct fdw_restart_begun {
	bool looked;
	char id[40];		/* the UUID the step began with, or "" */
	bool service_pending;	/* fdw_restart_service_pending() of that stage */
};
/*
 * Does the service of a restart go on with @job (@recorded: it has a job record; observed
 * as @p) by itself, so that nobody is to resume it by hand? Either the step at this start
 * began it and the service has not taken it over yet (no record yet), or a power cut
 * interrupted it and the passphrase typed at this start still waits for the service.
 */
bool fdw_restart_goes_on_with(struct fdw_restart_begun *b, const struct fdw_job *job,
			      bool recorded, const struct fdw_progress *p);
/* What `status` and the wizard say of @phase, translated ("" for none). */
void fdw_restart_phase_text(enum fdw_restart_phase phase, const struct fdw_restart_stage *st,
			    char *buf, size_t len);
/*
 * For a prepared root: the kernels whose initramfs carry the step ("Its step is in the
 * initramfs of 6.1.0-50-amd64."), and those that would start the system plain; "" when
 * the hook noted none (a preparation older than its notes).
 */
void fdw_restart_kernels_text(char *buf, size_t len);
/* Can the plain root be benchmarked before (not an LVM PV, which holds no filesystem)? */
bool fdw_restart_can_bench(const struct fdw_restart_stage *st);

/* The plan in a few translated sentences, in order: now, at the restart, after it, else. */
#define FDW_RESTART_PLAN_STEPS 4
/* Room for a translation: Russian takes two bytes a letter, Japanese three. */
#define FDW_RESTART_PLAN_LEN 2048
void fdw_restart_plan(const struct fdw_restart_stage *st,
		      char steps[FDW_RESTART_PLAN_STEPS][FDW_RESTART_PLAN_LEN]);

/* The step's full log in the initramfs's /run, which the started system keeps. */
#define FDW_RESTART_STEP_LOG "/run/" FDW_RESTART_NAME "/step.log"
/* Why the step at this start did not begin the conversion (beside its log); none when it
 * did, or when no step ran. */
#define FDW_RESTART_STEP_FAILED "/run/" FDW_RESTART_NAME "/step-failed"
/* That reason into @buf (one line of text); false when there is none. */
bool fdw_restart_step_failed(char *buf, size_t len);

/*
 * In the initramfs, before the root is mounted (@stage: its copy there): begin the
 * conversion, or open a volume a previous restart began, as @mapper; and leave @pass in
 * the kernel keyring for the booted system. 0; -EKEYREJECTED for a wrong passphrase
 * (nothing changed); or -errno with @why saying whether the system now boots plain or
 * encrypted.
 */
int fdw_restart_step(const char *stage, const struct fdw_secret *pass, fdw_phase_fn phase,
		     void *ctx, char *mapper, size_t mapper_len, char *why, size_t len);

/*
 * In the booted system: take the records the initramfs left in /run to the state folder,
 * and the passphrase from the keyring (*@pass; NULL when fdewiz's step did not open the
 * volume at this start). 0, or -errno with @why (-EAGAIN: the step has not begun it;
 * -EINTR: the person paused it, and it stays paused).
 */
int fdw_restart_take_over(struct fdw_restart_stage *st, struct fdw_secret **pass, char *why,
			  size_t len);
/* Did the conversion of @st stop at a safe point as asked: paused by the person, or
 * stopped by the system (a shutdown), rather than failing? */
bool fdw_restart_stopped_safely(const struct fdw_restart_stage *st);
/* Stopped by 'fdewiz pause' (a power cut leaves it "interrupted" instead)? */
bool fdw_restart_paused(const struct fdw_restart_stage *st);
/* After the conversion and its boot step: the stage, the key and the service go. */
void fdw_restart_done(const struct fdw_restart_stage *st);
/*
 * @job's conversion ended, by whichever run (the service, or 'resume' after a pause):
 * when it is the restart's and its boot step is done, fdw_restart_done().
 */
void fdw_restart_conclude(const struct fdw_job *job);

#endif
