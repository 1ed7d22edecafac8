/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Keys and labels of the conversion phases: the only place a phase becomes a string. */
#include "config.h"

#include <string.h>

#include "base/i18n.h"
#include "phase.h"

static const struct {
	const char *key, *label;
} phases[FDW_PHASE__COUNT] = {
	[FDW_PHASE_NONE] = { "", "" },
	[FDW_PHASE_CHECKING] = { "checking", N_("checking") },
	[FDW_PHASE_GROWING_PARTITION] = { "growing-part", N_("growing the partition") },
	[FDW_PHASE_SHRINKING] = { "shrinking", N_("shrinking") },
	[FDW_PHASE_INITIALISING] = { "initialising", N_("initialising") },
	[FDW_PHASE_ENCRYPTING] = { "encrypting", N_("encrypting") },
	[FDW_PHASE_GROWING_FS] = { "growing", N_("growing") },
	[FDW_PHASE_BENCHMARKING] = { "benchmarking", N_("benchmarking") },
	[FDW_PHASE_DONE] = { "done", N_("done") },
	[FDW_PHASE_ON_BATTERY] = { "on-battery", N_("waiting for the charger") },
	[FDW_PHASE_BOOT_SETUP] = { "boot-setup", N_("setting up the boot") },
	[FDW_PHASE_MOVING_BOOT] = { "moving-boot", N_("making /boot a partition of its own") },
	[FDW_PHASE_LVM_ROOM] = { "lvm-room",
				 N_("making room for the header at the end of the LVM volume") },
	[FDW_PHASE_DECRYPTING] = { "decrypting", N_("decrypting") },
};

const char *fdw_phase_key(enum fdw_phase p)
{
	return (unsigned)p < FDW_PHASE__COUNT && phases[p].key ? phases[p].key : "";
}

enum fdw_phase fdw_phase_parse(const char *key)
{
	if (!key || !key[0])
		return FDW_PHASE_NONE;
	for (int p = 0; p < FDW_PHASE__COUNT; p++)
		if (phases[p].key && !strcmp(key, phases[p].key))
			return (enum fdw_phase)p;
	return FDW_PHASE_NONE;
}

const char *fdw_phase_label(enum fdw_phase p)
{
	if ((unsigned)p >= FDW_PHASE__COUNT || !phases[p].label || !phases[p].label[0])
		return "";
	return _(phases[p].label);
}
