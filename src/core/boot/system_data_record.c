/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The record of a data volume's boot entries in the system it belongs to (the job's .owner
 * file): a step record (state/step_record.h) without steps, whose "done" says the entries
 * are written. The previous version wrote "key=value" lines, the changed files' lines
 * last; a conversion it left interrupted still resumes, so those load too.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "base/uuid.h"
#include "crypttab.h"
#include "state/step_record.h"
#include "system_data_internal.h"

static const struct fdw_record_field sysdata_fields[] = {
	FDW_REC_FIELD(struct fdw_sysdata_record, name, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysdata_record, dir, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysdata_record, spec, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysdata_record, root_disk, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysdata_record, root_number, FDW_REC_INT),
	FDW_REC_FIELD(struct fdw_sysdata_record, root_start, FDW_REC_U64),
	FDW_REC_FIELD(struct fdw_sysdata_record, root_size, FDW_REC_U64),
	FDW_REC_FIELD(struct fdw_sysdata_record, root_uuid, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysdata_record, root_address, FDW_REC_STR),
	FDW_REC_FIELD(struct fdw_sysdata_record, done, FDW_REC_BOOL),
	FDW_REC_FIELD(struct fdw_sysdata_record, changed, FDW_REC_STR),
};

/* Its name goes into that system's crypttab; its root is found again by UUID. */
static bool sysdata_fits(const void *rec)
{
	const struct fdw_sysdata_record *r = rec;

	return fdw_crypttab_name_valid(r->name) && fdw_uuid_valid(r->root_uuid);
}

static const struct fdw_step_record sysdata_kind = {
	.kind = "system-data", .size = sizeof(struct fdw_sysdata_record),
	.fields = sysdata_fields, .n_fields = sizeof(sysdata_fields) / sizeof(sysdata_fields[0]),
	.fits = sysdata_fits, .misfit = "its crypttab name or its system's root UUID is wrong",
	.older_rest = "changed",	/* the previous version's lines of changed files */
};

int fdw_system_data_save(const struct fdw_job *job, const struct fdw_sysdata_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_OWNER, path, sizeof(path));
	return fdw_step_record_save_file(&sysdata_kind, path, r);
}

int fdw_system_data_load(const struct fdw_job *job, struct fdw_sysdata_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_OWNER, path, sizeof(path));
	return fdw_step_record_load_older(&sysdata_kind, path, r);
}
