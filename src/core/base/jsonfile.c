/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Atomic JSON record files and tolerant field getters. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "durable.h"
#include "jsonfile.h"

int fdw_json_write_atomic(const char *path, struct json_object *o)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);

	return fdw_write_file_atomic(path, text, strlen(text), 0600);
}

void fdw_json_get_str(struct json_object *o, const char *key, char *buf, size_t len)
{
	struct json_object *v;

	snprintf(buf, len, "%s", json_object_object_get_ex(o, key, &v) ?
		 json_object_get_string(v) : "");
}

int64_t fdw_json_get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

double fdw_json_get_double(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}
