/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A step run in a forked child of fdewiz, its result and one sentence brought back. */
#ifndef FDW_CHILD_H
#define FDW_CHILD_H

#include <stddef.h>

/*
 * The work of a child: 0 or -errno, and a sentence for the person in @note (@len bytes).
 * It runs in a fork of the caller: what it changes in its own process (mounts in a private
 * namespace, a chroot) dies with it; what must last it writes to disk itself.
 */
typedef int (*fdw_child_fn)(void *ctx, char *note, size_t len);

/*
 * Run @fn(@ctx) in a child and wait for it. @note gets the child's sentence (or ""). Returns
 * the child's result (-errno; the errno number travels in the exit status), -EINTR when the
 * child was killed, or -errno when it could not be started.
 */
int fdw_child_run(fdw_child_fn fn, void *ctx, char *note, size_t len);

#endif
