/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resume: an unfinished job found again and taken on where it stopped (a pause, a crash,
 * a power cut), the same for the command line, the wizard and the restart's service. The
 * engine decides what is left (the conversion; an installed system's boot step; the move
 * of /boot out of a root; the header's room at an LVM PV's end) and says each step in the
 * same words to every front-end.
 */
#ifndef FDW_RESUME_H
#define FDW_RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "encrypt_flow.h"

/* An unfinished job found again, locked: fdw_resume_open() makes it, always closed. */
struct fdw_resume;

/* What is left of it. */
enum fdw_resume_kind {
	FDW_RESUME_CONVERSION,	/* the conversion: in a worker, or in this process */
	FDW_RESUME_BOOT_STEPS,	/* converted; an installed system's boot (or another
				 * system's crypttab) step is left */
	FDW_RESUME_BOOT_MOVE,	/* nothing encrypted; the move of /boot out of the root was
				 * cut short */
	FDW_RESUME_LVM_ROOM,	/* nothing encrypted; making the header's room at the LVM
				 * PV's end was cut short */
};

/*
 * Find what is unfinished on @address, open it and take its lock; *@out is then closed
 * with fdw_resume_close(). Changes nothing. -ENOENT: nothing unfinished; -EALREADY: its
 * worker is running; -EBUSY: locked; each with @why.
 */
int fdw_resume_open(const char *address, struct fdw_resume **out, char *why, size_t len);
enum fdw_resume_kind fdw_resume_kind(const struct fdw_resume *r);
/* Does its run need the passphrase? (The layout steps, before any header, do not.) */
bool fdw_resume_needs_passphrase(const struct fdw_resume *r);
const struct fdw_job *fdw_resume_job(const struct fdw_resume *r);
/* Unlock with the TPM too once converted (sealed to @pcrs): recorded, or -errno with @why
 * (nothing changed). */
int fdw_resume_want_tpm(struct fdw_resume *r, const char *pcrs, char *why, size_t len);
/* The worker's share of the disk, recorded before it starts. 0, or -errno: it goes on as
 * it was. */
int fdw_resume_set_pace(struct fdw_resume *r, enum fdw_pace pace);

/* How a front-end runs it. */
struct fdw_resume_how {
	bool foreground;		/* the conversion in this process, not a worker */
	bool passphrase_known;		/* the restart's step opened the volume with it */
	const char *mount_at;		/* the conversion's volume mounted there, or NULL */
	const struct fdw_foreground_ops *ops;	/* hears each step, in words */
};

/*
 * The one resume: what fdw_resume_kind() says is left, each step said through
 * @how->ops. @pass: the volume's passphrase (checked first unless @how->passphrase_known;
 * NULL where none is needed or known). *@worker: the background worker's pid when one
 * was started, else 0. 0 when done (or handed to the worker); -EPERM with @why when the
 * passphrase is wrong (nothing changed: ask again); else -errno, with @why or said.
 */
int fdw_resume_run(struct fdw_resume *r, struct fdw_secret *pass, const struct fdw_resume_how *how,
		   pid_t *worker, char *why, size_t len);
void fdw_resume_close(struct fdw_resume *r);

/* Is @job, in state @p, unfinished: running, stopped short, or converted with a step
 * left? */
bool fdw_job_unfinished(const struct fdw_job *job, const struct fdw_progress *p);

/* Whether a resume can be offered for @job in state @p (@by_service: the restart's
 * service goes on with it), and if not, why not. */
enum fdw_resume_offer {
	FDW_OFFER_RESUME,	/* resume takes it on */
	FDW_OFFER_RUNNING,	/* its worker runs */
	FDW_OFFER_SERVICE,	/* the restart's service goes on with it */
	FDW_OFFER_COMPLETE,	/* nothing is left */
	FDW_OFFER_FAILED,	/* it failed: what happened is to be read first */
};
enum fdw_resume_offer fdw_resume_offer(const struct fdw_job *job, const struct fdw_progress *p,
				       bool by_service);

#endif
