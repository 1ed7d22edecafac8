/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The header's room at an installed system's PV's end: the steps and their record. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/log.h"
#include "base/spawn.h"
#include "base/statedir.h"
#include "base/testhook.h"
#include "lvm_pv.h"
#include "state/step_record.h"
#include "lvm_room.h"
#include "target.h"
#include "udev_settle.h"

/* Each step is recorded once done; a crash repeats at most the one it was in. */
enum room_step { STEP_PLANNED, STEP_REDUCED, STEP_SWAP_MADE, STEP_RESIZED, STEP_DONE };

static const char *const step_keys[] = { "planned", "swap-reduced", "swap-made", "pv-resized",
					  "done" };

struct room_record {
	char pv_uuid[64];		/* the PV's UUID: what the record belongs to */
	char node[PATH_MAX];		/* the partition, as it was when planned */
	char vg[128];
	char swap_lv[128];		/* "" when the swap volume gives nothing */
	char swap_dev[192];		/* its /dev/mapper node once active */
	char swap_uuid[40], swap_label[64];
	uint64_t swap_pe;		/* the swap volume's extents afterwards */
	uint64_t pv_size;		/* the PV's size afterwards, bytes */
	enum room_step step;
};

_Static_assert(sizeof(enum room_step) == sizeof(int), "a step record's step is an int");

static const struct fdw_record_field room_fields[] = {
	FDW_REC_FIELD(struct room_record, pv_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, node, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, vg, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, swap_lv, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, swap_dev, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, swap_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, swap_label, FDW_REC_STR),
	FDW_REC_FIELD(struct room_record, swap_pe, FDW_REC_U64),
	FDW_REC_FIELD(struct room_record, pv_size, FDW_REC_U64),
};

/* What the steps need of a record, beyond its fields' types. */
static bool room_fits(const void *rec)
{
	const struct room_record *r = rec;

	return r->vg[0] && r->pv_size &&
	       (!r->swap_lv[0] || (r->swap_pe && r->swap_uuid[0] &&
				   !strncmp(r->swap_dev, "/dev/mapper/", 12)));
}

static const struct fdw_step_record room_kind = {
	.kind = "lvm-room", .id_key = "pv_uuid", .steps = step_keys, .n_steps = STEP_DONE + 1,
	.size = sizeof(struct room_record), .step_offset = offsetof(struct room_record, step),
	.fields = room_fields, .n_fields = sizeof(room_fields) / sizeof(room_fields[0]),
	.fits = room_fits, .misfit = "its volume group, sizes or swap volume are missing",
};

static int record_save(const struct room_record *r)
{
	return fdw_step_record_save(&room_kind, r->pv_uuid, r);
}

/* 0, -ENOENT when there is none, -EBADMSG when it cannot be trusted (the log says why). */
static int record_load(const char *pv_uuid, struct room_record *r)
{
	char why[PATH_MAX + 256];

	return fdw_step_record_load(&room_kind, pv_uuid, r, why, sizeof(why));
}

bool fdw_lvm_room_unfinished(const struct fdw_target *t)
{
	struct room_record r;

	return t->part->uuid && record_load(t->part->uuid, &r) == 0 && r.step != STEP_DONE;
}

bool fdw_lvm_room_needed(const struct fdw_target *t)
{
	struct room_record r;
	int rc = t->part->uuid ? record_load(t->part->uuid, &r) : -ENOENT;

	/* Done once for this PV: its size is recorded smaller, nothing is left to do. A
	 * damaged record is reported by fdw_lvm_room_run(). */
	if (rc == 0)
		return r.step != STEP_DONE;
	return t->part->verdict.lvm_system || rc == -EBADMSG;
}

/*
 * Run LVM's @argv (at most 8 words). Without udev (a minimal live system), LVM is told to
 * make its device nodes itself: it would otherwise wait for udev's and leave none.
 */
static int lvm(char *const argv[])
{
	char *full[12] = { argv[0] };
	size_t n = 1;

	if (access("/run/udev/control", F_OK) != 0) {
		full[n++] = "--config";
		full[n++] = "activation { udev_sync = 0 udev_rules = 0 }";
	}
	for (size_t i = 1; argv[i] && n < sizeof(full) / sizeof(full[0]) - 1; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	return fdw_spawn(full) == 0 ? 0 : -EIO;
}

static int vgchange(const char *vg, const char *how)
{
	char *argv[] = { "vgchange", "-a", (char *)how, (char *)vg, NULL };

	return lvm(argv);
}

int fdw_lvm_activate(const char *vg)
{
	return vgchange(vg, "y");
}

int fdw_lvm_deactivate(const char *vg, bool nothing_yet, char *why, size_t len)
{
	/*
	 * udev's rules activate a volume group when its PV appears (69-lvm.rules); under a
	 * slow machine that may still be queued: let it happen first, or it follows a
	 * deactivation.
	 */
	fdw_udev_settle(120);
	/* udev's probes of a volume just activated hold it open for a moment. */
	for (int tries = 0; tries < 3; tries++) {
		if (vgchange(vg, "n") == 0)
			return 0;
		sleep(1);
	}
	if (why)
		snprintf(why, len,
			 _("the volume group %s could not be deactivated: one of its logical "
			   "volumes is in use (mounted, an active swap, or open). Unmount it or "
			   "swapoff it, then try again.%s"),
			 vg, nothing_yet ? _(" Nothing was changed.") : "");
	return -EBUSY;
}

static int plan_new(const struct fdw_target *t, struct room_record *r, char *why, size_t len)
{
	const struct fdw_partition *p = t->part;
	const struct fdw_lvm_room *room = &p->verdict.lvm_room;

	if (!p->verdict.lvm_system || room->kind == FDW_LVM_ROOM_NONE) {
		snprintf(why, len, _("there is no room for the header at the end of %s's physical "
				     "volume. Nothing was changed."), p->address);
		return -ENOSPC;
	}
	snprintf(r->pv_uuid, sizeof(r->pv_uuid), "%s", p->uuid);
	snprintf(r->node, sizeof(r->node), "%s", p->node);
	snprintf(r->vg, sizeof(r->vg), "%s", p->lvm.vg);
	r->pv_size = room->pv_size;
	if (room->kind == FDW_LVM_ROOM_SWAP) {
		const struct fdw_lvm_lv *swap = &p->lvm.lvs[p->lvm.swap_lv];

		snprintf(r->swap_lv, sizeof(r->swap_lv), "%s", swap->name);
		snprintf(r->swap_dev, sizeof(r->swap_dev), "%s", swap->dm_path);
		snprintf(r->swap_uuid, sizeof(r->swap_uuid), "%s", swap->uuid);
		snprintf(r->swap_label, sizeof(r->swap_label), "%s", swap->label);
		r->swap_pe = room->swap_pe;
	}
	r->step = STEP_PLANNED;
	fdw_log(FDW_LOG_INFO, "lvm room: %s of %s: PV to %llu bytes%s%s", p->address, r->vg,
		(unsigned long long)r->pv_size, r->swap_lv[0] ? ", swap volume " : "",
		r->swap_lv);
	return record_save(r);
}

static int step_done(struct room_record *r, enum room_step step, const char *point)
{
	r->step = step;
	fdw_log(FDW_LOG_INFO, "lvm room: %s", step_keys[step]);
	fdw_test_point(point);
	return record_save(r);
}

/* "VG/LV" for LVM's commands. */
static void lv_arg(const struct room_record *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->vg, r->swap_lv);
}

/* The swap volume down to its planned extents; nothing when it already is (a crash
 * after the change). */
static int reduce_swap(const struct room_record *r)
{
	char lv[300], extents[32];
	char *argv[] = { "lvreduce", "-f", "-l", extents, lv, NULL };
	struct fdw_lvm_pv pv;

	lv_arg(r, lv, sizeof(lv));
	/* lvreduce refuses a size the volume already has. */
	if (fdw_lvm_pv_read(r->node, &pv) == 0)
		for (unsigned i = 0; i < pv.n_lvs; i++)
			if (!strcmp(pv.lvs[i].name, r->swap_lv) && pv.lvs[i].n_pe &&
			    pv.lvs[i].n_pe <= r->swap_pe) {
				fdw_log(FDW_LOG_INFO, "lvm room: %s already has %llu extents",
					lv, (unsigned long long)pv.lvs[i].n_pe);
				return 0;
			}
	snprintf(extents, sizeof(extents), "%llu", (unsigned long long)r->swap_pe);
	return lvm(argv);
}

/* Its swap area made again on the smaller volume, with the UUID and label the system's
 * fstab or resume setting may name it by. */
static int make_swap(const struct room_record *r)
{
	char lv[300];
	char *on[] = { "lvchange", "-a", "y", lv, NULL };
	char *off[] = { "lvchange", "-a", "n", lv, NULL };
	/* Its device-mapper node: /dev/VG/LV links are udev's, absent without it. */
	char *mk[] = { "mkswap", "-U", (char *)r->swap_uuid, (char *)r->swap_dev, NULL, NULL, NULL };
	int rc;

	lv_arg(r, lv, sizeof(lv));
	if (r->swap_label[0]) {
		mk[4] = "-L";
		mk[5] = (char *)r->swap_label;
	}
	if (lvm(on) != 0)
		return -EIO;
	rc = fdw_spawn(mk) == 0 ? 0 : -EIO;
	if (lvm(off) != 0 && !rc)
		rc = -EBUSY;
	return rc;
}

static int resize_pv(const struct room_record *r)
{
	char size[40];
	char *argv[] = { "pvresize", "-y", "--setphysicalvolumesize", size, (char *)r->node,
			 NULL };

	snprintf(size, sizeof(size), "%llub", (unsigned long long)r->pv_size);
	return lvm(argv);
}

static const char *state_after(const struct room_record *r)
{
	switch (r->step) {
	case STEP_PLANNED:
		return r->swap_lv[0] ? _("At most the swap volume is smaller (the system still "
					 "starts, perhaps without that swap).")
				     : _("Nothing was changed yet.");
	case STEP_REDUCED:
		return _("The swap volume is smaller and has no swap area yet (the system still "
			 "starts, without that swap).");
	default:
		return _("The swap volume is smaller (the system still starts as before).");
	}
}

static int run_steps(struct fdw_target *t, struct room_record *r, char *why, size_t len)
{
	char address[PATH_MAX + 16], note[256] = "";
	int rc = 0;

	snprintf(address, sizeof(address), "%s", t->part->address);
	if (r->swap_lv[0] && r->step < STEP_REDUCED) {
		rc = reduce_swap(r);
		if (!rc)
			rc = step_done(r, STEP_REDUCED, "lvm-room-reduced");
		if (rc) {
			snprintf(note, sizeof(note), _("the swap volume %s could not be shrunk"),
				 r->swap_lv);
			goto fail;
		}
	}
	if (r->swap_lv[0] && r->step < STEP_SWAP_MADE) {
		rc = make_swap(r);
		if (!rc)
			rc = step_done(r, STEP_SWAP_MADE, "lvm-room-swap");
		if (rc) {
			snprintf(note, sizeof(note), _("the swap area of %s could not be made"),
				 r->swap_lv);
			goto fail;
		}
	}
	if (r->step < STEP_RESIZED) {
		rc = resize_pv(r);
		if (!rc)
			rc = step_done(r, STEP_RESIZED, "lvm-room-resized");
		if (rc) {
			snprintf(note, sizeof(note), _("the physical volume could not be made "
						       "smaller (pvresize)"));
			goto fail;
		}
	}
	rc = step_done(r, STEP_DONE, "lvm-room-done");
	if (rc) {
		snprintf(note, sizeof(note), _("the record could not be saved (%s)"),
			 strerror(-rc));
		goto fail;
	}
	fdw_target_close(t);
	rc = fdw_target_open(address, t);
	if (!rc)
		rc = fdw_target_attach(t);
	if (rc)
		snprintf(why, len, _("%s cannot be found again after the header's room was made "
				     "(%s). Nothing is encrypted; look at it with 'fdewiz list'."),
			 address, strerror(-rc));
	return rc;
fail:
	snprintf(why, len, _("making room for the header at the end of the physical volume "
			     "stopped: %s. %s Nothing is encrypted; 'fdewiz resume %s' goes on "
			     "from this step."), note, state_after(r), address);
	return rc;
}

int fdw_lvm_room_run(struct fdw_target *t, char *why, size_t len)
{
	struct room_record r;
	int rc = record_load(t->part->uuid, &r);

	if (rc == -EBADMSG) {
		snprintf(why, len, _("the record of the room made on this physical volume in %s is "
				     "damaged; look at it before anything else is done. Nothing "
				     "was changed now."), fdw_state_dir());
		return rc;
	}
	if (rc == 0 && r.step == STEP_DONE)
		return 0;
	if (rc == -ENOENT) {
		if (!t->part->lvm.read || !t->part->node) {
			snprintf(why, len, _("%s is not an LVM physical volume fdewiz can read. "
					     "Nothing was changed."), t->part->address);
			return -EINVAL;
		}
		rc = fdw_lvm_deactivate(t->part->lvm.vg, true, why, len);
		if (!rc)
			rc = plan_new(t, &r, why, len);
	} else {
		rc = fdw_lvm_deactivate(r.vg, false, why, len);
	}
	if (rc)
		return rc;
	fdw_log(FDW_LOG_INFO, "lvm room on %s from step '%s'", t->part->address,
		step_keys[r.step]);
	return run_steps(t, &r, why, len);
}
