/* SPDX-License-Identifier: GPL-3.0-or-later */
/* UUIDs in their canonical text form. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "sysstate.h"
#include "uuid.h"

int fdw_new_uuid(char *buf, size_t len)
{
	return fdw_read_line_file("/proc/sys/kernel/random/uuid", buf, len);
}

bool fdw_uuid_valid(const char *uuid)
{
	size_t n = strlen(uuid);

	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)uuid[i]) && uuid[i] != '-')
			return false;
	return true;
}
