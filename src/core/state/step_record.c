/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Step records: one writer and one checked reader for every resumable layout change. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/jsonfile.h"
#include "base/log.h"
#include "base/statedir.h"
#include "step_record.h"

bool fdw_step_record_id_valid(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (n < 8 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') ||
		      (id[i] >= '0' && id[i] <= '9') || id[i] == '-'))
			return false;
	return true;
}

/* The id goes into a path: only a well-formed one. */
int fdw_step_record_path(const struct fdw_step_record *k, const char *dir, const char *id,
			 char *buf, size_t len)
{
	if (!fdw_step_record_id_valid(id))
		return -EINVAL;
	snprintf(buf, len, "%s/%s-%s.json", dir ? dir : fdw_state_dir(), k->kind, id);
	return 0;
}

/* Only an id that its field holds whole: a longer one would be saved cut short, under a
 * name no load finds again. */
static int record_path(const struct fdw_step_record *k, const char *id, char *buf, size_t len)
{
	for (size_t i = 0; i < k->n_fields; i++)
		if (!strcmp(k->fields[i].key, k->id_key) &&
		    (k->fields[i].type != FDW_REC_STR || strlen(id) >= k->fields[i].size))
			return -EINVAL;
	return fdw_step_record_path(k, NULL, id, buf, len);
}

static struct json_object *fields_add(struct json_object *o,
				      const struct fdw_record_field *fields, size_t n,
				      const char *base);

static struct json_object *field_value(const struct fdw_record_field *f, const char *base)
{
	const char *at = base + f->offset;

	switch (f->type) {
	case FDW_REC_STR:
		return json_object_new_string(at);
	case FDW_REC_U64:
		return json_object_new_int64((int64_t) * (const uint64_t *)(const void *)at);
	case FDW_REC_I64:
		return json_object_new_int64(*(const int64_t *)(const void *)at);
	case FDW_REC_INT:
		return json_object_new_int(*(const int *)(const void *)at);
	case FDW_REC_BOOL:
		return json_object_new_boolean(*(const bool *)(const void *)at);
	case FDW_REC_OBJ:
		return fields_add(json_object_new_object(), f->sub, f->n_sub, at);
	}
	return NULL;
}

/* The fields of the struct at @base added to @o (NULL: out of memory); returns @o. */
static struct json_object *fields_add(struct json_object *o,
				      const struct fdw_record_field *fields, size_t n,
				      const char *base)
{
	for (size_t i = 0; o && i < n; i++)
		json_object_object_add(o, fields[i].key, field_value(&fields[i], base));
	return o;
}

int fdw_step_record_save(const struct fdw_step_record *k, const char *id, const void *rec)
{
	char path[PATH_MAX];
	int rc = record_path(k, id, path, sizeof(path));

	return rc ? rc : fdw_step_record_save_file(k, path, rec);
}

int fdw_step_record_save_file(const struct fdw_step_record *k, const char *path,
			      const void *rec)
{
	const char *base = rec;
	int step = k->n_steps ? *(const int *)(const void *)(base + k->step_offset) : 0;
	struct json_object *o;
	int rc;

	if (k->n_steps && (step < 0 || step >= k->n_steps))
		return -EINVAL;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "version", json_object_new_int(FDW_STEP_RECORD_VERSION));
	json_object_object_add(o, "kind", json_object_new_string(k->kind));
	fields_add(o, k->fields, k->n_fields, base);
	if (k->n_steps)
		json_object_object_add(o, "step", json_object_new_string(k->steps[step]));
	rc = fdw_json_write_atomic(path, o);
	json_object_put(o);
	return rc;
}

static void field_take(const struct fdw_record_field *f, struct json_object *o, char *base)
{
	char *at = base + f->offset;
	struct json_object *inner;

	switch (f->type) {
	case FDW_REC_STR:
		fdw_json_get_str(o, f->key, at, f->size);
		break;
	case FDW_REC_U64:
		*(uint64_t *)(void *)at = (uint64_t)fdw_json_get_int(o, f->key);
		break;
	case FDW_REC_I64:
		*(int64_t *)(void *)at = fdw_json_get_int(o, f->key);
		break;
	case FDW_REC_INT:
		*(int *)(void *)at = (int)fdw_json_get_int(o, f->key);
		break;
	case FDW_REC_BOOL:
		*(bool *)(void *)at = fdw_json_get_int(o, f->key) != 0;
		break;
	case FDW_REC_OBJ:
		/* A record older than the object has none: its fields keep what they held. */
		if (json_object_object_get_ex(o, f->key, &inner) &&
		    json_object_is_type(inner, json_type_object))
			for (size_t i = 0; i < f->n_sub; i++)
				field_take(&f->sub[i], inner, at);
		break;
	}
}

/* @rec as the kind's blank record, or zeros. */
static void record_clear(const struct fdw_step_record *k, void *rec)
{
	if (k->blank)
		memcpy(rec, k->blank, k->size);
	else
		memset(rec, 0, k->size);
}

/* Which step @key names: its index, or -1. */
static int step_index(const struct fdw_step_record *k, const char *key)
{
	for (int i = 0; i < k->n_steps; i++)
		if (!strcmp(key, k->steps[i]))
			return i;
	return -1;
}

int fdw_step_record_load(const struct fdw_step_record *k, const char *id, void *rec, char *why,
			 size_t len)
{
	char path[PATH_MAX];

	if (record_path(k, id, path, sizeof(path))) {
		record_clear(k, rec);
		return -ENOENT;
	}
	return fdw_step_record_load_file(k, path, id, rec, why, len);
}

int fdw_step_record_load_file(const struct fdw_step_record *k, const char *path,
			      const char *id, void *rec, char *why, size_t len)
{
	char step[32], got[128] = "", kind[32];
	struct json_object *o;
	int64_t version;
	int index;

	record_clear(k, rec);
	if (access(path, F_OK) != 0)
		return -ENOENT;
	o = json_object_from_file(path);
	if (!o || !json_object_is_type(o, json_type_object)) {
		snprintf(why, len, "%s: not a JSON record", path);
		json_object_put(o);
		fdw_log(FDW_LOG_ERROR, "%s", why);
		return -EBADMSG;
	}
	for (size_t i = 0; i < k->n_fields; i++)
		field_take(&k->fields[i], o, rec);
	if (k->id_key)
		fdw_json_get_str(o, k->id_key, got, sizeof(got));
	fdw_json_get_str(o, "step", step, sizeof(step));
	fdw_json_get_str(o, "kind", kind, sizeof(kind));
	version = fdw_json_get_int(o, "version");
	json_object_put(o);
	index = k->n_steps ? step_index(k, step) : 0;
	if (version > FDW_STEP_RECORD_VERSION)
		snprintf(why, len, "%s: version %lld, written by a newer fdewiz", path,
			 (long long)version);
	else if (kind[0] && strcmp(kind, k->kind))	/* older versions wrote no kind */
		snprintf(why, len, "%s: a record of '%s', not of '%s'", path, kind, k->kind);
	else if (id && k->id_key && strcmp(got, id))
		snprintf(why, len, "%s: it names %s '%s', not '%s'", path, k->id_key, got, id);
	else if (index < 0)
		snprintf(why, len, "%s: unknown step '%s'", path, step);
	else if (k->fits && !k->fits(rec))
		snprintf(why, len, "%s: %s", path, k->misfit);
	else {
		if (k->n_steps)
			*(int *)(void *)((char *)rec + k->step_offset) = index;
		return 0;
	}
	fdw_log(FDW_LOG_ERROR, "%s", why);
	return -EBADMSG;
}

/* The field that the older line "KEY=value" of @line sets, or NULL; *@value is its value. */
static const struct fdw_record_field *older_field(const struct fdw_step_record *k,
						  const char *line, const char **value)
{
	const char *eq = strchr(line, '='), *key;
	char older[64];
	size_t n = eq ? (size_t)(eq - line) : 0;

	if (!n || n >= sizeof(older))
		return NULL;
	snprintf(older, sizeof(older), "%.*s", (int)n, line);
	key = older;
	for (size_t i = 0; i < k->n_older_keys; i++)
		if (!strcmp(older, k->older_keys[i].older))
			key = k->older_keys[i].key;
	*value = eq + 1;
	for (size_t i = 0; i < k->n_fields; i++)
		if (!strcmp(key, k->fields[i].key) && (!k->older_rest || strcmp(key, k->older_rest)))
			return &k->fields[i];
	return NULL;
}

/* Set @f of @base from its older text @value; false when that is no number of its type. */
static bool older_take(const struct fdw_record_field *f, const char *value, char *base)
{
	char *at = base + f->offset;
	int v;

	switch (f->type) {
	case FDW_REC_STR:
		snprintf(at, f->size, "%s", value);
		return true;
	case FDW_REC_U64:
		return sscanf(value, "%" SCNu64, (uint64_t *)(void *)at) == 1;
	case FDW_REC_I64:
		return sscanf(value, "%" SCNd64, (int64_t *)(void *)at) == 1;
	case FDW_REC_INT:
		return sscanf(value, "%d", (int *)(void *)at) == 1;
	case FDW_REC_BOOL:
		if (sscanf(value, "%d", &v) != 1)
			return false;
		*(bool *)(void *)at = v == 1;
		return true;
	case FDW_REC_OBJ:	/* the older lines had no objects */
		return false;
	}
	return false;
}

/* The older version's lines into @rec; a line that sets no field goes to older_rest. */
static void older_read(const struct fdw_step_record *k, FILE *f, char *rec)
{
	const struct fdw_record_field *rest = NULL, *field;
	char line[1024], *to;
	const char *value;

	for (size_t i = 0; k->older_rest && i < k->n_fields; i++)
		if (!strcmp(k->fields[i].key, k->older_rest))
			rest = &k->fields[i];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		field = older_field(k, line, &value);
		if (field && older_take(field, value, rec))
			continue;
		to = rest ? rec + rest->offset : NULL;
		if (to && line[0] && strlen(to) + strlen(line) + 2 < rest->size)
			strcat(strcat(to, line), "\n");
	}
}

int fdw_step_record_load_older(const struct fdw_step_record *k, const char *path, void *rec)
{
	char why[PATH_MAX + 128];
	FILE *f = fopen(path, "re");
	int rc = f ? 0 : -errno;

	if (f && fgetc(f) == '{') {
		fclose(f);
		return fdw_step_record_load_file(k, path, NULL, rec, why, sizeof(why)) ? -EINVAL
										       : 0;
	}
	record_clear(k, rec);
	if (!f)
		return rc;
	rewind(f);
	older_read(k, f, rec);
	fclose(f);
	if (k->fits && !k->fits(rec)) {
		fdw_log(FDW_LOG_ERROR, "%s: %s", path, k->misfit);
		return -EINVAL;
	}
	return 0;
}
