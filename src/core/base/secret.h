/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Secrets (passphrases, keys) in locked memory that never reaches swap or a core dump. */
#ifndef FDW_SECRET_H
#define FDW_SECRET_H

#include <stddef.h>

struct fdw_secret {
	char *data;	/* NUL-terminated for convenience; may contain other NULs */
	size_t len;
	size_t cap;		/* the most it holds, as asked for */
	size_t map_len;		/* the locked mapping behind it, whole pages */
};

/* Allocate @cap bytes of locked, non-dumpable memory. Returns 0 or -errno. */
int fdw_secret_new(struct fdw_secret **out, size_t cap);
/* Lock @s again in a child after fork(): memory locks are not inherited. */
int fdw_secret_relock(struct fdw_secret *s);
/* Wipe the contents (length 0) but keep the memory; NULL is fine. */
void fdw_secret_wipe(struct fdw_secret *s);
/* Wipe, unlock and release; NULL is fine. */
void fdw_secret_free(struct fdw_secret *s);
/*
 * Read a key file (or stdin for "-") into @s, byte for byte as cryptsetup does, so the
 * same file opens the volume with either tool (a trailing newline is part of the key).
 * Returns -EFBIG when it does not fit, -ENODATA when empty.
 */
int fdw_secret_read_file(struct fdw_secret *s, const char *path);
/* Constant-time comparison of two secrets: 1 when equal. */
int fdw_secret_equal(const struct fdw_secret *a, const struct fdw_secret *b);
/* Make this process unable to dump core or be ptraced by other users' tools. */
int fdw_secret_harden_process(void);
/*
 * Lock every page this process has mapped now (mlockall MCL_CURRENT, not MCL_FUTURE:
 * later large allocations stay free to page), for a process that works under the root
 * it converts: a page read back from that root while its mapping is suspended would wait
 * for it forever. Logs a warning when it cannot.
 */
void fdw_process_lock_pages(void);

#endif
