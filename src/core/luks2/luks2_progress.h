/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How far a LUKS2 reencryption has got, from its header's segments, whichever tool runs it. */
#ifndef FDW_LUKS2_PROGRESS_H
#define FDW_LUKS2_PROGRESS_H

#include <stdint.h>

struct fdw_job;
struct fdw_progress;

/*
 * From @json, a LUKS2 header's JSON metadata in reencryption, and @device_size (bytes of
 * the device the data is on; "dynamic" segments end there): @total is the size of the
 * volume the conversion makes (its "backup-final" segment), @done the bytes already in
 * that form (segments of the final kind, bound to its digest, neither a backup nor the
 * hotzone being written). Returns 0; -ENOENT when no reencryption is recorded; -EINVAL
 * when the metadata does not add up. Pure: reads nothing else.
 */
int fdw_luks2_progress(const char *json, uint64_t device_size, uint64_t *done,
		       uint64_t *total);

/* The size of the block device or file at @path in bytes, or 0 when it cannot be read. */
uint64_t fdw_device_bytes(const char *path);

/*
 * Is another program converting the volume with LUKS2 UUID @uuid right now? libcryptsetup
 * holds its reencryption lock (a flock on a file in FDW_CRYPTSETUP_LOCK_DIR) for as long
 * as any reencryption runs. 1: held; 0: free or never taken since boot; -ENOENT when there
 * is no such lock folder (a libcryptsetup built another way): unknown. Takes nothing.
 */
#define FDW_CRYPTSETUP_LOCK_DIR "/run/cryptsetup"
int fdw_outside_busy(const char *uuid);

/*
 * A conversion no fdewiz worker runs (started by cryptsetup or another program): when it
 * is running now (fdw_outside_busy(), or when that cannot tell, when the header moved on
 * since the last reading), @p becomes running (pid 0: not a worker of ours) with, from
 * this reading and the one before it (kept in the state folder under @job's id, replaced
 * by this one), the speed between them and the time left at that speed.
 * @now: seconds (CLOCK_REALTIME). Readings older than FDW_OUTSIDE_SAMPLE_MAX_S are not
 * compared. Changes nothing else.
 */
#define FDW_OUTSIDE_SAMPLE_MAX_S 600.0
void fdw_outside_rate(const struct fdw_job *job, struct fdw_progress *p, double now);

/*
 * The rule alone: @busy as fdw_outside_busy() says, @before_done of @before_total at @t0
 * (@t0 0: no reading before), @p read at @t1. Sets @p's state, @p->speed and @p->eta.
 * Returns 1 when @p is running now, else 0 (@p unchanged).
 */
int fdw_outside_rate_from(int busy, uint64_t before_done, uint64_t before_total, double t0,
			  struct fdw_progress *p, double t1);

#endif
