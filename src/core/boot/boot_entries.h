/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Boot integration for one encrypted partition: crypttab entry and fstab lines. */
#ifndef FDW_BOOT_ENTRIES_H
#define FDW_BOOT_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>

#include "crypttab.h"

struct fdw_boot_request {
	const char *root;	/* "/" or an installer's target root */
	const char *name;	/* device-mapper name; NULL: from the label or partition */
	bool discard;		/* pass TRIM through */
	bool fstab;		/* also rewrite fstab lines that name the raw partition */
};

struct fdw_boot_result {
	char name[128];
	char uuid[64];
	char header[4096];		/* detached header (crypttab header=), or "" */
	char source[96];		/* how crypttab names it: UUID=... or PARTUUID=... */
	bool crypttab_present;		/* an equal entry was already there */
	struct fdw_tab_result crypttab;
	struct fdw_tab_result fstab;
	bool fstab_failed;		/* crypttab written, fstab left alone; see @why */
	int partlabel_shared;		/* >1: partitions with this GPT name; its PARTLABEL=
					 * lines were left alone */
	char partlabel[256];		/* that name */
};

/*
 * Add the crypttab entry for the LUKS2 volume at @address under @rq->root (idempotent;
 * the old file kept as a backup) and, with @rq->fstab, point fstab lines that named the
 * partition itself at /dev/mapper/NAME (PARTLABEL= lines only when no other partition of
 * the machine has that name: see @out->partlabel_shared). Returns 0; 1 when crypttab was
 * written but fstab could not be (@why says why); or -errno with @why (nothing was
 * changed).
 */
int fdw_boot_entries_write(const char *address, const struct fdw_boot_request *rq,
			   struct fdw_boot_result *out, char *why, size_t len);

#endif
