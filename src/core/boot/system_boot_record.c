/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The record of an installed system's boot step (the job's .system file): a step record
 * (state/step_record.h) without steps, whose "done" says the step ran. The previous
 * version wrote "key=value" lines, the changed files' lines last; a conversion it left
 * interrupted still resumes, so those load too.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "crypttab.h"
#include "state/job.h"
#include "state/step_record.h"
#include "system_boot_internal.h"

_Static_assert(sizeof(enum fdw_initramfs_kind) == sizeof(int), "a record's int field");
_Static_assert(sizeof(enum fdw_boot_loader) == sizeof(int), "a record's int field");

static const struct fdw_record_field sysboot_fields[] = {
	FDW_REC_FIELD(struct fdw_sysboot_record, name, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, boot_spec, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, fs_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, initramfs, FDW_REC_INT),
	FDW_REC_FIELD(struct fdw_sysboot_record, loader, FDW_REC_INT),
	FDW_REC_FIELD(struct fdw_sysboot_record, swap, FDW_REC_BOOL),
	FDW_REC_FIELD(struct fdw_sysboot_record, vg, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, root_dev, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, root_fstype, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, root_subvol, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, done, FDW_REC_BOOL),
	FDW_REC_FIELD(struct fdw_sysboot_record, tpm_pcrs, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysboot_record, tpm_slot, FDW_REC_INT),
	FDW_REC_FIELD(struct fdw_sysboot_record, tpm_unready, FDW_REC_BOOL),
	FDW_REC_FIELD(struct fdw_sysboot_record, changed, FDW_REC_STR),
};

/* Its name goes into crypttab and the initramfs' configuration. */
static bool sysboot_fits(const void *rec)
{
	return fdw_crypttab_name_valid(((const struct fdw_sysboot_record *)rec)->name);
}

static const struct fdw_step_record sysboot_kind = {
	.kind = "system-boot", .size = sizeof(struct fdw_sysboot_record),
	.fields = sysboot_fields, .n_fields = sizeof(sysboot_fields) / sizeof(sysboot_fields[0]),
	.fits = sysboot_fits, .misfit = "its crypttab name cannot be used",
};

int fdw_system_boot_save(const struct fdw_job *job, const struct fdw_sysboot_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_SYSTEM, path, sizeof(path));
	return fdw_step_record_save_file(&sysboot_kind, path, r);
}

/* The previous version's "key=value" lines; any other line is a changed file's. */
static void load_key_value(FILE *f, void *rec)
{
	struct fdw_sysboot_record *r = rec;
	char line[1024];
	int v;

	r->tpm_slot = -1;		/* none, unless a line says which */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "name=", 5))
			snprintf(r->name, sizeof(r->name), "%.63s", line + 5);
		else if (!strncmp(line, "boot=", 5))
			snprintf(r->boot_spec, sizeof(r->boot_spec), "%.127s", line + 5);
		else if (!strncmp(line, "fs_uuid=", 8))
			snprintf(r->fs_uuid, sizeof(r->fs_uuid), "%.39s", line + 8);
		else if (!strncmp(line, "vg=", 3))
			snprintf(r->vg, sizeof(r->vg), "%.127s", line + 3);
		else if (!strncmp(line, "root_dev=", 9))
			snprintf(r->root_dev, sizeof(r->root_dev), "%.191s", line + 9);
		else if (!strncmp(line, "root_fstype=", 12))
			snprintf(r->root_fstype, sizeof(r->root_fstype), "%.15s", line + 12);
		else if (!strncmp(line, "root_subvol=", 12))
			snprintf(r->root_subvol, sizeof(r->root_subvol), "%.63s", line + 12);
		else if (sscanf(line, "initramfs=%d", &v) == 1)
			r->initramfs = (enum fdw_initramfs_kind)v;
		else if (sscanf(line, "loader=%d", &v) == 1)
			r->loader = (enum fdw_boot_loader)v;
		else if (sscanf(line, "swap=%d", &v) == 1)
			r->swap = v == 1;
		else if (sscanf(line, "done=%d", &v) == 1)
			r->done = v == 1;
		else if (!strncmp(line, "tpm=", 4))
			snprintf(r->tpm_pcrs, sizeof(r->tpm_pcrs), "%.63s", line + 4);
		else if (sscanf(line, "tpm_slot=%d", &v) == 1)
			r->tpm_slot = v;
		else if (sscanf(line, "tpm_unready=%d", &v) == 1)
			r->tpm_unready = v == 1;
		else if (line[0] && strlen(r->changed) + strlen(line) + 2 < sizeof(r->changed))
			strcat(strcat(r->changed, line), "\n");
	}
}

int fdw_system_boot_load(const struct fdw_job *job, struct fdw_sysboot_record *r)
{
	char path[PATH_MAX];
	int rc;

	fdw_job_file_path(job, FDW_JOB_SYSTEM, path, sizeof(path));
	rc = fdw_step_record_load_older(&sysboot_kind, path, r, load_key_value);
	if (rc)
		r->tpm_slot = -1;	/* no binding known */
	return rc;
}
