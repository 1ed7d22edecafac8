/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the readers of LVM's JSON reports (pvs, pvs --segments, lvs) and the room plan made
 * from what they read (src/core/disk/lvm_pv.c). The input is split at NUL bytes into the
 * three reports. */
#include "fuzz_common.h"

#include "core/disk/disk.h"
#include "core/disk/lvm_pv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *parts[3] = { text, "", "" };
	struct fdw_lvm_room room;
	struct fdw_lvm_pv pv;
	size_t at = strlen(text);

	/* fuzz_cstr keeps the NULs: the reports follow one another. */
	for (int i = 1; i < 3 && at < size; i++) {
		parts[i] = text + at + 1;
		at += 1 + strlen(parts[i]);
	}
	fdw_lvm_pv_begin(&pv);
	if (fdw_lvm_parse_pv(parts[0], &pv) == 0 && fdw_lvm_parse_lvs(parts[1], &pv) == 0 &&
	    fdw_lvm_parse_segments(parts[2], &pv) == 0) {
		if (pv.pv_size > pv.dev_size || pv.n_lvs > FDW_LVM_MAX_LVS || !pv.extent ||
		    pv.tail_free_pe > pv.pe_count)
			abort();	/* only figures that can describe a PV are believed */
		for (unsigned i = 0; i < pv.n_lvs; i++) {
			const struct fdw_lvm_lv *lv = &pv.lvs[i];

			if (lv->first_pe + lv->n_pe > pv.pe_count ||
			    strnlen(lv->name, sizeof(lv->name)) == sizeof(lv->name) ||
			    strncmp(lv->dm_path, "/dev/mapper/", 12))
				abort();	/* inside the PV; names terminated */
		}
		pv.swap_lv = pv.last_lv;
		fdw_lvm_room_plan(&pv, FDW_HEADER_ROOM, &room);
		if (room.kind != FDW_LVM_ROOM_NONE && room.pv_size + FDW_HEADER_ROOM > pv.dev_size)
			abort();	/* the header's room is left after the PV */
		if (room.kind == FDW_LVM_ROOM_SWAP &&
		    (room.swap_pe * pv.extent < FDW_LVM_MIN_SWAP ||
		     room.swap_pe >= pv.lvs[pv.swap_lv].n_pe))
			abort();	/* the swap volume shrinks, and keeps its minimum */
	}
	free(text);
	return 0;
}
