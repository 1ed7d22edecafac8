/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The phase of a conversion, one type for the flow, the worker, the status record and views. */
#ifndef FDW_PHASE_H
#define FDW_PHASE_H

/*
 * What a conversion is doing. The status record keeps the stable key of each phase
 * (fdw_phase_key), never the number, so phases can be added anywhere before
 * FDW_PHASE__COUNT: give the new one a key and a label in phase.c. Records written by
 * older versions hold the same keys and load unchanged.
 */
enum fdw_phase {
	FDW_PHASE_NONE,			/* not known (a fresh record, a key of a newer version) */
	FDW_PHASE_CHECKING,
	FDW_PHASE_GROWING_PARTITION,
	FDW_PHASE_SHRINKING,
	FDW_PHASE_INITIALISING,
	FDW_PHASE_ENCRYPTING,
	FDW_PHASE_GROWING_FS,
	FDW_PHASE_BENCHMARKING,
	FDW_PHASE_DONE,			/* the worker finished everything */
	FDW_PHASE_ON_BATTERY,		/* paused on a low battery, waiting for the charger */
	FDW_PHASE_BOOT_SETUP,		/* an installed system's crypttab and initramfs */
	FDW_PHASE_MOVING_BOOT,		/* its /boot made a partition of its own first */
	FDW_PHASE_LVM_ROOM,		/* the header's room made at its LVM PV's end first */
	FDW_PHASE_DECRYPTING,		/* fdewiz decrypt moving the data back, plain */
	FDW_PHASE__COUNT
};

/* Stable English key ("shrinking"), as kept in the status record and in JSON; "" for NONE. */
const char *fdw_phase_key(enum fdw_phase p);
/* The phase of @key; FDW_PHASE_NONE for "", NULL or a key this version does not know. */
enum fdw_phase fdw_phase_parse(const char *key);
/* Translated label for people; "" for NONE. */
const char *fdw_phase_label(enum fdw_phase p);

#endif
