/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a conversion being set up holds on to between its steps: the partition's block
 * device, exclusively, and what the plan was made for, to be checked again under the lock. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/log.h"
#include "disk/lvm_room.h"
#include "encrypt_internal.h"

/* The bytes @t names: a block device's number, or an image file's device and inode. */
static int identity_of(const struct fdw_target *t, dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (stat(t->part->node ? t->part->node : t->disk.path, &st) != 0)
		return -errno;
	*dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	*ino = S_ISBLK(st.st_mode) ? 0 : st.st_ino;
	return 0;
}

int fdw_encrypt_remember_identity(struct fdw_encrypt *e, char *why, size_t len)
{
	int rc = identity_of(&e->target, &e->ident_dev, &e->ident_ino);

	if (rc) {
		snprintf(why, len, _("%s: %s. Nothing was changed."), e->target.part->address,
			 strerror(-rc));
		return rc;
	}
	e->ident_start = e->target.part->start;
	e->ident_size = e->target.part->size;
	snprintf(e->ident_uuid, sizeof(e->ident_uuid), "%s",
		 e->target.part->uuid ? e->target.part->uuid : "");
	return 0;
}

/* What differs between the plan's partition and @now, in words; NULL when nothing. */
const char *fdw_encrypt_what_changed(const struct fdw_encrypt *e, const struct fdw_target *now)
{
	dev_t dev;
	ino_t ino;

	if (identity_of(now, &dev, &ino) != 0 || dev != e->ident_dev || ino != e->ident_ino)
		return _("it is another device now");
	if (now->part->start != e->ident_start || now->part->size != e->ident_size)
		return _("its start or size changed");
	if (strcmp(now->part->uuid ? now->part->uuid : "", e->ident_uuid))
		return _("it holds another filesystem now (its UUID changed)");
	return NULL;
}

/*
 * Hold the partition's block device exclusively between steps: nobody can mount it or
 * build a device-mapper table on it meanwhile. Each step's own tool (mount, e2fsck,
 * resize2fs, libcryptsetup) opens it exclusively itself, so it is let go just before.
 * -EBUSY: someone else holds it (a mount in another mount namespace, a table, a RAID).
 */
int fdw_encrypt_excl_take(struct fdw_encrypt *e)
{
	const char *node = e->target.part->node;

	if (!node || e->excl_fd >= 0)
		return 0;
	e->excl_fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);
	return e->excl_fd >= 0 ? 0 : -errno;
}

int fdw_encrypt_hold_closed_pv(struct fdw_encrypt *e, int tries, bool nothing_yet, char *why,
			       size_t len)
{
	const char *vg = e->target.part->lvm.vg;
	int rc = fdw_encrypt_excl_take(e);

	for (int i = 0; rc < 0 && i < tries; i++) {
		int drc = fdw_lvm_deactivate(vg, nothing_yet, why, len);

		if (drc)
			return drc;
		rc = fdw_encrypt_excl_take(e);
		if (rc < 0)
			fdw_log(FDW_LOG_INFO, "%s cannot be held alone yet (%s)",
				e->target.part->address, strerror(-rc));
	}
	return rc;
}

void fdw_encrypt_excl_drop(struct fdw_encrypt *e)
{
	if (e->excl_fd >= 0)
		close(e->excl_fd);
	e->excl_fd = -1;
}
