/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small JSON files written atomically and read back field by field (job and status records). */
#ifndef FDW_JSONFILE_H
#define FDW_JSONFILE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Write @o to @path (mode 0600) with fdw_write_file_atomic(): a reader (or a power cut)
 * sees the old record or the new one, never half of one, and no planted link is followed.
 */
int fdw_json_write_atomic(const char *path, struct json_object *o);

/* Field getters that tolerate a missing key: "" and 0. */
void fdw_json_get_str(struct json_object *o, const char *key, char *buf, size_t len);
int64_t fdw_json_get_int(struct json_object *o, const char *key);
double fdw_json_get_double(struct json_object *o, const char *key);

#endif
