/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A partition another installed system mounts (its /home, /srv, /var), encrypted from
 * outside: after the conversion, THAT system's etc/crypttab gets the volume (by its LUKS
 * UUID) and its etc/fstab is checked, never the running system's. Recorded before a byte
 * changes, idempotent, resumable like an installed system's root's boot step.
 */
#ifndef FDW_SYSTEM_DATA_H
#define FDW_SYSTEM_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "disk/disk.h"
#include "state/job.h"
#include "base/secret.h"
#include "disk/target.h"

/* Is @p a partition another installed system mounts after its root (use data)? */
bool fdw_system_data_applies(const struct fdw_partition *p);

/* Its crypttab name, from where that system mounts it: /home -> home_crypt. */
void fdw_system_data_name(const struct fdw_owner *o, char *name, size_t len);

/* The steps after the conversion, one translated line each ("\n" between), for plans. */
size_t fdw_system_data_steps(const struct fdw_partition *p, char *buf, size_t len);

/*
 * Before a byte changes: can that system's tables be written after the conversion (its
 * header on the partition, its root found and not in use by anything but a mount, what
 * the record keeps printable)? 0, or -errno with @why (ending "Nothing was changed.").
 */
int fdw_system_data_prepare(const struct fdw_target *t, bool detached, char *why, size_t len);

/* Record, before the conversion starts, that the step is still to do
 * (<state>/jobs/<id>.owner). 0, or -errno with @why. */
int fdw_system_data_record(const struct fdw_target *t, const struct fdw_job *job, char *why,
			   size_t len);

/* Is @job's step recorded and not done yet? */
bool fdw_system_data_pending(const struct fdw_job *job);

struct fdw_system_data_result {
	char root_address[512];		/* that system's root */
	char changed[2048];		/* "path (backup)\n" lines, or "" when nothing changed */
	char line[512];			/* the crypttab line it has now */
	bool key_file;			/* opened with a key file inside that system's
					 * encrypted root, not a passphrase typed at boot */
};

/*
 * A partition no system claims, on a disk that also holds a closed LUKS volume: if that is
 * the encrypted root of a system that mounts this partition, fdewiz cannot see it, and
 * that system would not find this partition at its next boot. The sentence for the plan
 * (what to do: open it first), or 0 when there is nothing to say.
 */
size_t fdw_system_data_unseen_note(const struct fdw_disk *d, const struct fdw_partition *p,
				   char *buf, size_t len);

/*
 * The step, for a complete conversion of @job: mount that system's root (read-write, in a
 * private mount namespace of a child; a loop device for a partition of an image), add the
 * crypttab line, point fstab lines that named the raw partition at /dev/mapper/NAME, check
 * that its fstab still finds the filesystem, unmount, mark the record done. Idempotent.
 * When that root is encrypted (unlocked here, so that fdewiz could read it), this volume
 * also gets a key file inside it, added with @pass (this volume's passphrase; NULL: it
 * asks at boot): one passphrase starts that system.
 * 0, or -errno with @why (the data is intact; 'fdewiz resume' does the step again).
 */
int fdw_system_data_finish(const struct fdw_job *job, const struct fdw_secret *pass,
			   struct fdw_system_data_result *res, char *why, size_t len);

/* The record of @job: -ENOENT when there is none; else 0, *@done and what changed. */
int fdw_system_data_status(const struct fdw_job *job, struct fdw_system_data_result *res,
			   bool *done);

#endif
