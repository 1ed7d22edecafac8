/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside src/core/disk only: the verdict of an LVM physical volume holding an installed
 * system, and its words. */
#ifndef FDW_VERDICT_LVM_H
#define FDW_VERDICT_LVM_H

#include <stdbool.h>
#include <stddef.h>

struct fdw_partition;

/* Is @p a PV whose volume group (on it alone) holds an installed system's root? */
bool fdw_verdict_lvm_system(const struct fdw_partition *p);
/* Its verdict once nothing else blocks it: the header's room planned at the PV's end. */
void fdw_verdict_lvm_decide(struct fdw_partition *p);
/* "Can be encrypted in place: ..." and "no room" in words, with the figures. */
int fdw_verdict_lvm_explain_ok(const struct fdw_partition *p, char *buf, size_t len);
int fdw_verdict_lvm_explain_no_room(const struct fdw_partition *p, char *buf, size_t len);

#endif
