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
#include <stdlib.h>
#include <string.h>

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
};

int fdw_system_data_save(const struct fdw_job *job, const struct fdw_sysdata_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_OWNER, path, sizeof(path));
	return fdw_step_record_save_file(&sysdata_kind, path, r);
}

/* "key=value": copy the value when @line has @key. */
static bool field(const char *line, const char *key, char *dst, size_t len)
{
	size_t k = strlen(key);

	if (strncmp(line, key, k) || line[k] != '=')
		return false;
	snprintf(dst, len, "%s", line + k + 1);
	return true;
}

/* The previous version's "key=value" lines; any other line is a changed file's. */
static void load_key_value(FILE *f, void *rec)
{
	struct fdw_sysdata_record *r = rec;
	char line[1024], num[32];

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (field(line, "name", r->name, sizeof(r->name)) ||
		    field(line, "dir", r->dir, sizeof(r->dir)) ||
		    field(line, "spec", r->spec, sizeof(r->spec)) ||
		    field(line, "root_disk", r->root_disk, sizeof(r->root_disk)) ||
		    field(line, "root_uuid", r->root_uuid, sizeof(r->root_uuid)) ||
		    field(line, "root_address", r->root_address, sizeof(r->root_address)))
			continue;
		if (field(line, "root_number", num, sizeof(num)))
			r->root_number = atoi(num);
		else if (field(line, "root_start", num, sizeof(num)))
			r->root_start = strtoull(num, NULL, 10);
		else if (field(line, "root_size", num, sizeof(num)))
			r->root_size = strtoull(num, NULL, 10);
		else if (field(line, "done", num, sizeof(num)))
			r->done = !strcmp(num, "1");
		else if (line[0] && strlen(r->changed) + strlen(line) + 2 < sizeof(r->changed))
			strcat(strcat(r->changed, line), "\n");
	}
}

int fdw_system_data_load(const struct fdw_job *job, struct fdw_sysdata_record *r)
{
	char path[PATH_MAX];

	fdw_job_file_path(job, FDW_JOB_OWNER, path, sizeof(path));
	return fdw_step_record_load_older(&sysdata_kind, path, r, load_key_value);
}
