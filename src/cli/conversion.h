/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Showing a recorded conversion run in the foreground or in a detached background worker. */
#ifndef FDW_CLI_CONVERSION_H
#define FDW_CLI_CONVERSION_H

#include <stdbool.h>

#include "core/state/state_api.h"
#include "core/base/base_api.h"
#include "core/disk/disk_api.h"

/*
 * Run the conversion of @job (the caller holds its lock) on @t in this process through
 * the engine (fdw_conversion_foreground), printing its progress line and what it says.
 * Online, the volume is opened first and, with @mount_at, mounted there. Returns an exit
 * code.
 */
int conversion_foreground(const struct fdw_job *job, struct fdw_target *t,
			  struct fdw_secret *pass, const char *mount_at);

/* Convert the started @e in the background through the engine's launch. */
struct fdw_encrypt;
int conversion_launch(struct fdw_encrypt *e, const struct fdw_secret *pass, const char *mount_at);
/* Convert the started @e in this process, as conversion_foreground() does a job. */
int conversion_foreground_started(struct fdw_encrypt *e, struct fdw_secret *pass,
				  const char *mount_at);

/* Resume @r in the background through the engine's resume (passphrase checked first). */
struct fdw_resume;
/* The conversion of @r is complete; the installed system's boot step is done here. */
int cli_resume_boot_step(struct fdw_resume *r, const struct fdw_secret *pass);
int conversion_resume(struct fdw_resume *r, const struct fdw_secret *pass);

/* After a complete conversion of an installed system's root: what its boot step changed,
 * or that it is still to do. FDW_EXIT_OK, or FDW_EXIT_ERROR when it is not done. */
int conversion_report_system(const struct fdw_job *job);

#endif
