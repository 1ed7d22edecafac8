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

/*
 * Resume @r through the engine's one resume (core/convert/resume.h), printing what it
 * says; the conversion in a background worker, or in this process with @how.foreground.
 * Returns an exit code.
 */
struct fdw_resume;
struct fdw_resume_how;
int conversion_resume(struct fdw_resume *r, struct fdw_secret *pass,
		      const struct fdw_resume_how *how);
/* Where the engine's foreground steps say what they do: this program's output. */
const struct fdw_foreground_ops *conversion_ops(void);
/* The same for a decryption ("decrypting" on the progress line). */
const struct fdw_foreground_ops *conversion_decrypt_ops(void);

#endif
