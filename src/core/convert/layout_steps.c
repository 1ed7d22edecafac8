/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The steps that change an installed system's layout before its conversion: a /boot inside
 * the root made a partition of its own (boot/boot_move.c), the header's room made at the
 * end of its LVM physical volume (disk/lvm_room.c). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"
#include "boot/boot_move.h"
#include "disk/lvm_room.h"
#include "encrypt_internal.h"
#include "plan.h"

/*
 * The partition held alone again after its layout step. LVM's writes to a PV are seen by
 * udev, which may open its group again: closed and held again, twice.
 */
static int take_after(struct fdw_encrypt *e, bool lvm, char *why, size_t len)
{
	int rc;

	why[0] = '\0';
	rc = lvm ? fdw_encrypt_hold_closed_pv(e, 2, false, why, len) : fdw_encrypt_excl_take(e);

	if (rc < 0 && !why[0])
		snprintf(why, len, lvm ? _("The header's room is made at the end of the physical "
					   "volume and the system starts unencrypted as before, but "
					   "%s cannot be held for the header now (%s). Try again.")
				       : _("/boot is a partition of its own now and the system "
					   "starts unencrypted as before, but %s cannot be held for "
					   "the header now (%s). Try again."),
			 e->target.part->address, strerror(-rc));
	return rc;
}

/*
 * A step that changes the layout before the conversion: a /boot inside the root made a
 * partition of its own (@lvm false), or the header's room made at the end of an installed
 * system's LVM physical volume. The system starts unencrypted as before afterwards; the
 * plan is made again for the partition as it is now.
 */
static int layout_step(struct fdw_encrypt *e, bool lvm, fdw_phase_fn phase, void *ctx,
		       char *why, size_t len)
{
	struct fdw_plan_request rq = { .sector_size = e->plan.sector_size,
				       .key_bits = e->plan.key_bits };
	const char *plan_why = "";
	char spec[72], address[PATH_MAX];
	int rc;

	snprintf(address, sizeof(address), "%s", e->target.part->address);
	fdw_encrypt_excl_drop(e);
	if (phase)
		phase(lvm ? FDW_PHASE_LVM_ROOM : FDW_PHASE_MOVING_BOOT, ctx);
	rc = lvm ? fdw_lvm_room_run(&e->target, why, len)
		 : fdw_boot_move_run(&e->target, why, len);
	e->target_open = e->target.part != NULL;
	/* At a restart the step's caller says what happens next; elsewhere, resume. */
	if (rc && !lvm && !e->prepared_header[0]) {
		size_t n = strlen(why);

		snprintf(why + n, len - n, _(" 'fdewiz resume %s' goes on from this step."),
			 address);
	}
	if (rc)
		return rc;
	snprintf(spec, sizeof(spec), "%s-%s", e->plan.cipher, e->plan.cipher_mode);
	rq.cipher_spec = spec;
	rc = fdw_plan_make(e->target.part, &rq, &e->plan, &plan_why);
	if (!rc)
		rc = fdw_encrypt_remember_identity(e, why, len);
	if (rc && !why[0])
		snprintf(why, len, lvm ? _("The header's room is made at the end of the physical "
					   "volume and the system starts unencrypted as before, "
					   "but it cannot be encrypted: %s Look at it again with "
					   "'fdewiz list'.")
				       : _("/boot is a partition of its own now and the system "
					   "starts unencrypted as before, but the root cannot be "
					   "encrypted: %s Look at it again with 'fdewiz list'."),
			 plan_why);
	return rc ? rc : take_after(e, lvm, why, len);
}

int fdw_encrypt_layout_steps(struct fdw_encrypt *e, fdw_phase_fn phase, void *ctx, char *why,
			     size_t len)
{
	if (e->target.part->verdict.carve_boot || fdw_boot_move_unfinished(&e->target))
		return layout_step(e, false, phase, ctx, why, len);
	if (fdw_lvm_room_needed(&e->target))
		return layout_step(e, true, phase, ctx, why, len);
	return 0;
}
