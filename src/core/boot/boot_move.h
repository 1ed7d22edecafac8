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
#include <stdint.h>

struct fdw_target;

/* A move planned ahead, for a step at the next restart. */
struct fdw_boot_move_ahead {
	uint64_t boot_size;		/* the new /boot partition's */
	uint64_t root_fs_max;		/* what the root filesystem keeps */
	char boot_uuid[40];		/* the new /boot filesystem's, chosen now */
};

/*
 * For the running system's root @t (mounted as /, its /boot a folder inside): plan the
 * move from what /boot holds now, with @fs_min_guess for how far the root can shrink (it
 * cannot be measured mounted; the step measures it again before anything moves). With
 * @record, the plan is recorded in the state folder, where fdw_boot_move_run() finds it
 * (the step at the restart carries it). 0 with @out, or -errno with @why (nothing
 * changed).
 */
int fdw_boot_move_plan_running(const struct fdw_target *t, uint64_t fs_min_guess, bool record,
			       struct fdw_boot_move_ahead *out, char *why, size_t len);

/* The file of the move's record for the root filesystem @fs_uuid in @dir (NULL: the state
 * folder; the restart's stage folder carries a planned one). 0, or -EINVAL. */
int fdw_boot_move_record_path(const char *dir, const char *fs_uuid, char *buf, size_t len);

/* Is a move of @t's /boot recorded and unfinished (a crash inside it)? */
bool fdw_boot_move_unfinished(const struct fdw_target *t);

/*
 * Move @t's /boot, from where its record says (planned now when there is none). @t is
 * opened again afterwards (its partition ended earlier). 0, or -errno with @why: what was
 * changed and what to do.
 */
int fdw_boot_move_run(struct fdw_target *t, char *why, size_t len);

#endif
