/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The record of a conversion, kept on disk so it is found again after a crash or reboot. */
#ifndef FDW_JOB_H
#define FDW_JOB_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "progress.h"

#define FDW_DEFAULT_STATE_DIR "/var/lib/fdewiz"

struct fdw_job {
	char id[40];			/* the LUKS2 UUID of the new volume */
	char address[PATH_MAX];		/* as the user named it: /dev/sda2 or disk.img:2 */
	char header_backup[PATH_MAX];
	char detached_header[PATH_MAX];	/* empty: the header is on the device */
	char active_name[64];		/* device-mapper name when online, else empty */
	char fs_to_grow[16];		/* filesystem type to grow back when done, or empty */
	char fstype[16];		/* the filesystem being encrypted */
	char cipher[96];		/* "aes-xts-plain64, 512-bit key" */
	char bench_before[PATH_MAX];	/* saved benchmark of the plain volume, or empty */
	char bench_after[PATH_MAX];	/* ... of the encrypted volume when done, or empty */
	char bench_note[256];
	char bench_scale[8];		/* "tiny", "quick", ...: the after-run matches the before */		/* why a benchmark did not run, English, or empty */
	int64_t created;
};

/* $FDEWIZ_STATE_DIR or /var/lib/fdewiz; created on demand with mode 0700. */
const char *fdw_state_dir(void);
int fdw_state_dir_ensure(void);
/*
 * @path must be a real directory (lstat: not a link), owned by root (or by the user fdewiz
 * runs as) and writable by no one else; 0, or -ELOOP/-ENOTDIR/-EPERM after logging why.
 * _ensure creates it (mode 0700) first when missing.
 */
int fdw_private_dir_check(const char *path);
int fdw_private_dir_ensure(const char *path);

/* A fresh random UUID from the kernel, used as the job id and the LUKS2 UUID. */
int fdw_new_uuid(char *buf, size_t len);

int fdw_job_save(const struct fdw_job *job);
int fdw_job_load_file(const char *path, struct fdw_job *job);
/* All recorded jobs, newest first. */
int fdw_job_list(struct fdw_job **out, size_t *n);
/* The most recent job for @address, or -ENOENT. */
int fdw_job_find(const char *address, struct fdw_job *job);
/* Where the worker publishes the progress of @job. */
void fdw_job_status_path(const struct fdw_job *job, char *buf, size_t len);
/* Where the worker appends its log lines (no secrets ever go there). */
void fdw_job_log_path(const struct fdw_job *job, char *buf, size_t len);

/*
 * The state a viewer should show: the published record when its worker is alive;
 * otherwise what the published record and the LUKS2 header say together.
 */
int fdw_job_observe(const struct fdw_job *job, struct fdw_progress *p);

#endif
