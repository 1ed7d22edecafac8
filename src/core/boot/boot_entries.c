/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Boot integration for one encrypted partition: its crypttab entry and the fstab lines
 * that named the raw partition, under a chosen root. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "boot_entries.h"
#include "base/i18n.h"
#include "disk/target.h"
#include "disk/volume_id.h"

/* How many partitions of this machine the kernel knows by the GPT name @name. */
static int kernel_partname_count(const char *name)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *de;
	int count = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX], line[512];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/uevent", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strncmp(line, "PARTNAME=", 9) && !strcmp(line + 9, name))
				count++;
		}
		fclose(f);
	}
	closedir(d);
	return count;
}

/*
 * Partitions named @t's GPT name: those the kernel knows (every disk of the machine) and,
 * for a disk image whose partitions have no nodes, the others on that image. A PARTLABEL=
 * line only says which partition it means when this is 1.
 */
static int partlabel_count(const struct fdw_target *t)
{
	int count = kernel_partname_count(t->part->name);

	if (t->disk.kind == FDW_DISK_IMAGE || !t->part->node) {
		for (size_t i = 0; i < t->disk.n_parts; i++)
			if (t->disk.parts[i].name && !strcmp(t->disk.parts[i].name, t->part->name))
				count++;
	}
	return count;
}

int fdw_boot_entries_write(const char *address, const struct fdw_boot_request *rq,
			   struct fdw_boot_result *out, char *why, size_t len)
{
	struct fdw_part_ids ids = { 0 };
	struct fdw_target t;
	char partuuid[64] = "", detail[1024];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fdw_target_open(address, &t);
	if (rc) {
		snprintf(why, len, _("%s: %s. Nothing was changed."), address,
			 fdw_scan_error_text(rc));
		return rc;
	}
	rc = -EINVAL;
	/* The header is in a file: crypttab names the partition and points at the header. */
	if (t.part->luks_version == 2 && t.part->detached_header && t.part->number > 0 &&
	    fdw_partuuid_probe(t.disk.path, t.part->number, partuuid, sizeof(partuuid)) == 0)
		snprintf(out->header, sizeof(out->header), "%s", t.part->detached_header);
	if (t.part->luks_version != 2 || (!t.part->uuid && !out->header[0])) {
		snprintf(why, len, _("%s is not a LUKS2 volume, so there is nothing to open at "
				     "boot; encrypt it first. Nothing was changed."), address);
		goto out;
	}
	snprintf(out->uuid, sizeof(out->uuid), "%s", out->header[0] ? partuuid : t.part->uuid);
	snprintf(out->source, sizeof(out->source), "%s%s", out->header[0] ? "PARTUUID=" : "UUID=",
		 out->uuid);
	if (rq->name)
		snprintf(out->name, sizeof(out->name), "%s", rq->name);
	else
		fdw_crypttab_default_name(t.part, out->name, sizeof(out->name));
	rc = fdw_crypttab_add_detached(rq->root, out->name, out->uuid,
				       out->header[0] ? out->header : NULL, rq->discard,
				       &out->crypttab, detail, sizeof(detail));
	if (rc < 0) {
		snprintf(why, len, _("%s. Nothing was changed."), detail);
		goto out;
	}
	out->crypttab_present = rc == 1;
	rc = 0;
	if (!rq->fstab)
		goto out;
	ids.node = t.part->node;
	if (t.part->name && *t.part->name) {
		int n = partlabel_count(&t);

		if (n == 1)
			ids.partlabel = t.part->name;
		else
			out->partlabel_shared = n;
		snprintf(out->partlabel, sizeof(out->partlabel), "%s", t.part->name);
	}
	/* Links under /dev describe this system only: follow them for its own root. */
	ids.resolve_links = !strcmp(rq->root, "/");
	if (t.part->number > 0 && fdw_partuuid_probe(t.disk.path, t.part->number, partuuid,
						      sizeof(partuuid)) == 0)
		ids.partuuid = partuuid;
	rc = fdw_fstab_update(rq->root, out->name, &ids, &out->fstab, why, len);
	if (rc < 0) {
		out->fstab_failed = true;
		rc = 1;	/* crypttab is written; the caller says fstab was not changed */
	} else {
		rc = 0;
	}
out:
	fdw_target_close(&t);
	return rc;
}
