/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The verdict of an installed system's LVM physical volume: the whole PV is encrypted in
 * place, its logical volumes inside, once the header's room is free at its end. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "base/units.h"
#include "disk.h"
#include "verdict_lvm.h"

bool fdw_verdict_lvm_system(const struct fdw_partition *p)
{
	/* A volume group on more PVs than this one would stop at the others' edge. */
	return p->lvm.read && p->lvm.pv_count == 1 && p->lvm.root_lv >= 0 && p->os.found;
}

void fdw_verdict_lvm_decide(struct fdw_partition *p)
{
	struct fdw_verdict *v = &p->verdict;

	v->lvm_system = true;
	fdw_lvm_room_plan(&p->lvm, FDW_HEADER_ROOM, &v->lvm_room);
	if (v->lvm_room.kind == FDW_LVM_ROOM_NONE) {
		v->reason = FDW_REASON_LVM_NO_ROOM;
		return;
	}
	v->strategies = FDW_STRATEGY_FREE_TAIL;
	v->strategy = FDW_STRATEGY_FREE_TAIL;
	v->eligible = true;
}

int fdw_verdict_lvm_explain_ok(const struct fdw_partition *p, char *buf, size_t len)
{
	const struct fdw_lvm_pv *pv = &p->lvm;
	const struct fdw_lvm_room *r = &p->verdict.lvm_room;
	char room[32], a[32], b[32];

	fdw_format_size(FDW_HEADER_ROOM, room, sizeof(room));
	switch (r->kind) {
	case FDW_LVM_ROOM_SWAP: {
		const struct fdw_lvm_lv *swap = &pv->lvs[pv->swap_lv];

		return snprintf(buf, len,
				_("The whole LVM physical volume of volume group %s is encrypted "
				  "in place, its logical volumes inside it. The header's %s comes "
				  "from the swap volume %s at its end, which shrinks from %s to %s "
				  "(its swap area made again with the same UUID), and the physical "
				  "volume then ends that much earlier (pvresize)."),
				pv->vg, room, swap->name,
				fdw_format_size(swap->n_pe * pv->extent, a, sizeof(a)),
				fdw_format_size(r->swap_pe * pv->extent, b, sizeof(b)));
	}
	case FDW_LVM_ROOM_PVRESIZE:
		if (!r->free_pe)
			return snprintf(buf, len,
					_("The whole LVM physical volume of volume group %s is "
					  "encrypted in place, its logical volumes inside it. Its "
					  "extents already end %s before the partition's end; LVM's "
					  "record of its size is set that much smaller (pvresize) unless "
					  "fdewiz did so already."), pv->vg, room);
		return snprintf(buf, len,
				_("The whole LVM physical volume of volume group %s is encrypted "
				  "in place, its logical volumes inside it. The physical volume is "
				  "made to end %s earlier (pvresize), where no extent is in use, for "
				  "the header; no logical volume changes."), pv->vg, room);
	default:
		return snprintf(buf, len,
				_("The whole LVM physical volume of volume group %s is encrypted "
				  "in place, its logical volumes inside it; it already ends %s "
				  "before the partition's end, so the header fits without resizing "
				  "anything."), pv->vg,
				fdw_format_size(p->size - pv->pv_size, a, sizeof(a)));
	}
}

int fdw_verdict_lvm_explain_no_room(const struct fdw_partition *p, char *buf, size_t len)
{
	const struct fdw_lvm_pv *pv = &p->lvm;
	unsigned long long mib = (p->verdict.lvm_room.short_by + FDW_MIB - 1) / FDW_MIB;
	char os[192], room[32], free_b[32];

	fdw_installed_os_describe(&p->os, os, sizeof(os));
	fdw_format_size(FDW_HEADER_ROOM, room, sizeof(room));
	fdw_format_size((pv->pe_count - pv->pe_alloc) * pv->extent, free_b, sizeof(free_b));
	return snprintf(buf, len,
			_("Holds %s in volume group %s. Encrypting the physical volume in place "
			  "needs %s free at its end, and %llu MiB of it are in use (by %s; the "
			  "volume group has %s free in all). Free the extents at its end (shrink "
			  "its last logical volume with lvreduce, or move it with pvmove), then "
			  "look again. Nothing was changed."),
			os, pv->vg, room, mib,
			pv->last_lv >= 0 ? pv->lvs[pv->last_lv].name : "?", free_b);
}
