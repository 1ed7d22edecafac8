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

/* The previous version's names of two fields; its lines of changed files had no key. */
static const struct fdw_record_older_key sysboot_older_keys[] = {
	{ "boot", "boot_spec" },
	{ "tpm", "tpm_pcrs" },
};

/* No TPM binding until one is recorded. */
static const struct fdw_sysboot_record sysboot_blank = { .tpm_slot = -1 };

static const struct fdw_step_record sysboot_kind = {
	.kind = "system-boot", .size = sizeof(struct fdw_sysboot_record),
	.fields = sysboot_fields, .n_fields = sizeof(sysboot_fields) / sizeof(sysboot_fields[0]),
	.fits = sysboot_fits, .misfit = "its crypttab name cannot be used",
	.blank = &sysboot_blank, .older_keys = sysboot_older_keys,
	.n_older_keys = sizeof(sysboot_older_keys) / sizeof(sysboot_older_keys[0]),
	.older_rest = "changed",
};

int fdw_system_boot_save(const struct fdw_job *job, const struct fdw_sysboot_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_SYSTEM, path, sizeof(path));
	return fdw_step_record_save_file(&sysboot_kind, path, r);
}

int fdw_system_boot_load(const struct fdw_job *job, struct fdw_sysboot_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_SYSTEM, path, sizeof(path));
	return fdw_step_record_load_older(&sysboot_kind, path, r);
}
