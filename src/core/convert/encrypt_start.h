/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The one start of an encryption for the command line and the wizard, and the launch of
 * its conversion, in a background worker or in this process.
 */
#ifndef FDW_ENCRYPT_START_H
#define FDW_ENCRYPT_START_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "encrypt_flow.h"
#include "foreground.h"

/* What fdw_encrypt_start does beyond the header. */
struct fdw_start_options {
	bool recovery_key;		/* make a recovery key, add it with the header, test it */
	/* hand that key over before a byte changes (it implies the key); NULL for no */
	const struct fdw_escrow *escrow;
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

/* Launch the started conversion in a background worker: fdw_launch_background(). */
pid_t fdw_encrypt_launch(struct fdw_encrypt *e, const struct fdw_secret *pass,
			 const char *mount_at, char *why, size_t len);

struct fdw_foreground_ops;
/* Run the started conversion in this process: fdw_conversion_foreground(). */
int fdw_encrypt_foreground(struct fdw_encrypt *e, struct fdw_secret *pass,
			   const char *mount_at, const struct fdw_foreground_ops *ops);

#endif
