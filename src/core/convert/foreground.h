/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A conversion run in this process (`encrypt --foreground`, the wizard's wait), and what it
 * says to the person; the front-end shows it.
 */
#ifndef FDW_FOREGROUND_H
#define FDW_FOREGROUND_H

#include <stdint.h>

#include "base/secret.h"
#include "disk/target.h"
#include "state/job.h"

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

#endif
