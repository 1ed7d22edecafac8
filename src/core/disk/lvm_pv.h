/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An LVM physical volume as LVM's own report tools describe it (pvs, lvs; nothing is
 * activated): its volume group, its extents, and where each logical volume lies in it, so
 * that an installed system on a logical volume can be read from the partition itself, and
 * the room a LUKS2 header needs at the PV's end can be planned (disk.h FDW_HEADER_ROOM).
 */
#ifndef FDW_LVM_PV_H
#define FDW_LVM_PV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDW_LVM_MAX_LVS 8

struct fdw_lvm_lv {
	char name[128];			/* outside text */
	char dm_path[192];		/* /dev/mapper/VG-LV with LVM's doubled dashes */
	uint64_t first_pe, n_pe;	/* its extents in this PV, when in one piece */
	bool one_piece;			/* one linear segment, on this PV */
	char fstype[16];		/* what blkid finds at its start (the scan fills it) */
	char uuid[40];
	char label[64];
};

struct fdw_lvm_pv {
	bool read;			/* the report tools answered for this device */
	char vg[128];			/* its volume group (outside text), "" when none */
	unsigned pv_count;		/* the volume group's physical volumes */
	uint64_t pv_size;		/* the size LVM records for the PV: its end on the device */
	uint64_t dev_size;		/* the device's size as LVM sees it */
	uint64_t pe_start, extent;	/* bytes */
	uint64_t pe_count, pe_alloc;	/* extents in the PV, of which allocated */
	uint64_t tail_free_pe;		/* free extents at the PV's very end */
	int last_lv;			/* the LV that holds the PV's last used extent, or -1 */
	int root_lv, swap_lv;		/* the installed system's root and swap LVs, or -1 */
	unsigned n_lvs;
	struct fdw_lvm_lv lvs[FDW_LVM_MAX_LVS];
};

/* Read the PV on block device @node with pvs and lvs. 0 (out->read), or -errno. */
int fdw_lvm_pv_read(const char *node, struct fdw_lvm_pv *out);

/* The parsers of their JSON reports, apart so that they can be tested and fuzzed: pvs's
 * fields, pvs --segments, lvs. Each 0 or -EBADMSG; fdw_lvm_pv_finish() derives the rest. */
int fdw_lvm_parse_pv(const char *json, struct fdw_lvm_pv *out);
int fdw_lvm_parse_lvs(const char *json, struct fdw_lvm_pv *out);
int fdw_lvm_parse_segments(const char *json, struct fdw_lvm_pv *out);
void fdw_lvm_pv_begin(struct fdw_lvm_pv *out);

/* Bytes from the PV's start to @lv's first byte (meaningful when one_piece). */
uint64_t fdw_lvm_lv_offset(const struct fdw_lvm_pv *pv, const struct fdw_lvm_lv *lv);

/* Is @path (an fstab spec) a name of @lv: /dev/mapper/VG-LV or /dev/VG/LV? */
bool fdw_lvm_lv_named(const struct fdw_lvm_pv *pv, const struct fdw_lvm_lv *lv, const char *path);

/*
 * Look into each LV of @pv that lies in one piece, through the disk (@fd, @disk_path) whose
 * partition holding @pv starts at @pv_start: what blkid finds there, the system on the LV
 * whose fstab mounts it at / (@os, pv->root_lv), the first swap LV (pv->swap_lv). Read-only.
 */
struct fdw_installed_os;
void fdw_lvm_pv_look(const char *disk_path, int fd, uint64_t pv_start, struct fdw_lvm_pv *pv,
		     struct fdw_installed_os *os);

/* How the header's room at the PV's end is made. */
enum fdw_lvm_room_kind {
	FDW_LVM_ROOM_THERE,		/* the PV already ends early enough */
	FDW_LVM_ROOM_PVRESIZE,		/* free extents at its end: the PV shrinks (pvresize) */
	FDW_LVM_ROOM_SWAP,		/* the swap LV at its end gives extents, then pvresize */
	FDW_LVM_ROOM_NONE,		/* neither: short_by bytes must be freed at the end */
};

struct fdw_lvm_room {
	enum fdw_lvm_room_kind kind;
	uint64_t pv_size;		/* the PV's size afterwards (bytes) */
	uint64_t free_pe;		/* extents to free at the end */
	uint64_t swap_pe;		/* FDW_LVM_ROOM_SWAP: the swap LV's extents afterwards */
	uint64_t short_by;		/* FDW_LVM_ROOM_NONE: bytes missing */
};

/* The smallest swap LV fdewiz leaves after taking the header's room from it. */
#define FDW_LVM_MIN_SWAP (32ULL * 1024 * 1024)

/* Plan the header's room (@header bytes) at the end of @pv. Pure. */
void fdw_lvm_room_plan(const struct fdw_lvm_pv *pv, uint64_t header, struct fdw_lvm_room *out);

#endif
