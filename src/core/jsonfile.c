/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Atomic JSON record files and tolerant field getters. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "durable.h"
#include "jsonfile.h"

int fdw_json_write_atomic(const char *path, struct json_object *o)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = strlen(text);
	char tmp[PATH_MAX];
	int fd, rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) != 0)
		rc = errno ? -errno : -EIO;
	close(fd);
	if (!rc && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	else
		rc = fdw_sync_path(path);
	return rc;
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
