/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The safety net of the first data segment's move. Before the header can go on, the
 * partition's first 16 MiB are copied to its last 16 MiB; the header then overwrites the
 * original in one 16 MiB write, which a power cut can leave half done: neither a header
 * nor the filesystem's start. A marker in the free gap before that copy says the copy is
 * whole (its sha256), so the start can be put back from it.
 */
#ifndef FDW_FIRST_SEGMENT_H
#define FDW_FIRST_SEGMENT_H

#include <stdbool.h>

/* After the copy is on the disk (flushed): the marker, flushed too. 0 or -errno. */
int fdw_first_segment_mark(const char *device);

/*
 * Before a conversion is begun again on @device: when it has no valid LUKS2 header with
 * @uuid but a marker whose copy checks out, and its start differs from that copy, the
 * copy is written back to the start (*@repaired). The marker then goes. 0, or -errno
 * (-EIO: a marker whose copy does not match it; nothing is written then).
 */
int fdw_first_segment_repair(const char *device, const char *uuid, bool *repaired);

#endif
