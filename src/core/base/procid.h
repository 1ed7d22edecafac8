/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Telling whether a recorded process is still the same one: pids repeat, across reboots too. */
#ifndef FDW_PROCID_H
#define FDW_PROCID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct fdw_proc_id {
	pid_t pid;
	uint64_t start_ticks;	/* field 22 of /proc/PID/stat: start time since boot */
	char boot_id[40];	/* /proc/sys/kernel/random/boot_id */
};

/* The identity of the calling process. */
int fdw_proc_id_self(struct fdw_proc_id *id);
/*
 * Is the recorded process still running? Only when it is this boot, the pid exists
 * with the same start time, and it is not the caller itself (after a reboot a viewer
 * can easily get the dead worker's pid).
 */
bool fdw_proc_id_alive(const struct fdw_proc_id *id);

#endif
