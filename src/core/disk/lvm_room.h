/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The header's room at the end of an installed system's LVM physical volume, made before
 * the PV is encrypted in place (disk/lvm_pv.h plans it): its swap volume at the end gives
 * the extents (lvreduce, its swap area made again with the same UUID and label), then the
 * PV ends earlier (pvresize). Every step is recorded before the next begins and can be done
 * again after a crash; the system starts unencrypted as before after each of them.
 */
#ifndef FDW_LVM_ROOM_H
#define FDW_LVM_ROOM_H

#include <stdbool.h>
#include <stddef.h>

struct fdw_target;

/* Is a room-making on @t's PV recorded and unfinished (a crash inside it)? */
bool fdw_lvm_room_unfinished(const struct fdw_target *t);

/* Does @t's PV need room made (the verdict's plan) or a recorded one finished? */
bool fdw_lvm_room_needed(const struct fdw_target *t);

/*
 * Make the room, from where its record says (planned now when there is none). The volume
 * group is deactivated first. @t is opened again afterwards. 0, or -errno with @why: what
 * was changed and what to do.
 */
int fdw_lvm_room_run(struct fdw_target *t, char *why, size_t len);

/* Deactivate volume group @vg (vgchange -an). 0, or -EBUSY with @why when not NULL
 * ("Nothing was changed." when @nothing_yet). */
int fdw_lvm_deactivate(const char *vg, bool nothing_yet, char *why, size_t len);
/* Activate volume group @vg (vgchange -ay). 0 or -EIO. */
int fdw_lvm_activate(const char *vg);

#endif
