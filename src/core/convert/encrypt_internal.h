/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/core/convert only: what a conversion being set up holds. Front-ends see
 * struct fdw_encrypt through encrypt_flow.h's functions, never these fields. */
#ifndef FDW_ENCRYPT_INTERNAL_H
#define FDW_ENCRYPT_INTERNAL_H

#include "luks2/escrow.h"
#include "encrypt_flow.h"
#include "foreground.h"

/* One conversion being set up: fdw_encrypt_prepare() fills it; always closed. */
struct fdw_encrypt {
	struct fdw_target target;
	bool target_open;
	int lock_fd;			/* -1 when not held */
	struct fdw_plan plan;
	struct fdw_job job;		/* filled by begin */
	char header_backup[PATH_MAX];	/* absolute */
	char work_dir[PATH_MAX];
	char prepared_header[PATH_MAX];	/* "" unless the header was made before */
	char prepared_uuid[40];
	char active_name[64];		/* "" unless asked for */
	char tpm_pcrs[64];		/* unlock with the TPM, sealed to these; "" for no */
	bool offline, fast_pbkdf, bench_baseline, allow_low_battery;
	char bench_scale[8];
	enum fdw_pace pace;		/* how the worker shares the disk */
	/* set by fdw_encrypt_start only, while begin writes the header */
	const struct fdw_secret *recovery_key;
	const struct fdw_escrow *escrow;	/* where the recovery key goes first, or NULL */
	fdw_bench_status_fn bench_status;	/* hears the baseline benchmark's steps */
	void *bench_ctx;
	/* crypttab name from the filesystem's label or the partition's name, taken before
	 * encryption hides the label; "" when neither gives one */
	char boot_name[128];
	/* Why the plan's cipher: the advisor's sentence when none was asked for, else "". */
	char cipher_why[256];
	/* What the plan was made for, checked again under the lock when begin starts:
	 * the device number (or image inode), the partition's place and its UUID. */
	dev_t ident_dev;
	ino_t ident_ino;
	uint64_t ident_start, ident_size;
	char ident_uuid[64];
	int excl_fd;			/* O_EXCL on the device between steps, or -1 */
	/* The prediction to keep with the job (fdw_encrypt_set_prediction), or NULL. */
	struct fdw_bench_run *predicted;
};

/*
 * foreground.c: @done of @total bytes at @t seconds into @p, told to @ops's progress (may be
 * NULL) at most four times a second (*@last_report: when it last was) and at the end.
 */
void fdw_ops_progress(const struct fdw_foreground_ops *ops, struct fdw_foreground_progress *p,
		      double *last_report, uint64_t done, uint64_t total, double t);
/* foreground.c: one line said through @ops (its say may be NULL). */
void fdw_ops_say(const struct fdw_foreground_ops *ops, enum fdw_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* encrypt_hold.c: the exclusive hold on the partition (-EBUSY: someone else holds it), and
 * what the plan was made for, remembered and compared with @now (NULL: nothing changed;
 * else what did, in words). */
int fdw_encrypt_excl_take(struct fdw_encrypt *e);
/*
 * An installed system's PV: its volume group closed and the partition held alone. Held at
 * once, since udev re-reads a disk's partitions when nothing holds them after a writer
 * closed the disk (libparted does), and its rules then open the group again; closed again
 * and held again up to @tries times. 0; the deactivation's -errno with @why; or the hold's
 * -errno (@why untouched).
 */
int fdw_encrypt_hold_closed_pv(struct fdw_encrypt *e, int tries, bool nothing_yet, char *why,
			       size_t len);
void fdw_encrypt_excl_drop(struct fdw_encrypt *e);
int fdw_encrypt_remember_identity(struct fdw_encrypt *e, char *why, size_t len);
const char *fdw_encrypt_what_changed(const struct fdw_encrypt *e, const struct fdw_target *now);

/* layout_steps.c: the layout step @e's partition needs before its conversion, if any (the
 * plan is made again afterwards). 0, or -errno with @why. */
int fdw_encrypt_layout_steps(struct fdw_encrypt *e, fdw_phase_fn phase, void *ctx, char *why,
			     size_t len);

#endif
