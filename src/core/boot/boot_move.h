/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Moving an installed system's /boot out of its root before the root is encrypted: a /boot
 * partition of its own carved from the root's end (disk/boot_carve.h plans it), /boot
 * copied there, named in the system's fstab, GRUB reinstalled to read it. Afterwards the
 * system starts unencrypted as before, from its new /boot, and the root converts like any
 * root with /boot apart. Every step is recorded before the next begins and can be done
 * again after a crash. */
#ifndef FDW_BOOT_MOVE_H
#define FDW_BOOT_MOVE_H

#include <stdbool.h>
#include <stddef.h>

struct fdw_target;

/* Is a move of @t's /boot recorded and unfinished (a crash inside it)? */
bool fdw_boot_move_unfinished(const struct fdw_target *t);

/*
 * Move @t's /boot, from where its record says (planned now when there is none). @t is
 * opened again afterwards (its partition ended earlier). 0, or -errno with @why: what was
 * changed and what to do.
 */
int fdw_boot_move_run(struct fdw_target *t, char *why, size_t len);

#endif
