/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Process identity by pid, start time and boot id. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procid.h"
#include "sysstate.h"

static int read_boot_id(char *buf, size_t len)
{
	return fdw_read_line_file("/proc/sys/kernel/random/boot_id", buf, len);
}

/* Start time of @pid; the command name in field 2 may hold spaces and parentheses. */
static int read_start_ticks(pid_t pid, uint64_t *ticks, char *state)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* After ") " come field 3 (state) .. field 22 (starttime): skip 19 fields. */
	if (!p || sscanf(p + 2, "%c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
			 "%*s %*s %*s %*s %llu", state, &v) != 2)
		return -EINVAL;
	*ticks = v;
	return 0;
}

int fdw_proc_id_self(struct fdw_proc_id *id)
{
	char state;

	memset(id, 0, sizeof(*id));
	id->pid = getpid();
	read_boot_id(id->boot_id, sizeof(id->boot_id));
	return read_start_ticks(id->pid, &id->start_ticks, &state);
}

bool fdw_proc_id_alive(const struct fdw_proc_id *id)
{
	char boot[40] = "", state = 'X';
	uint64_t ticks;

	if (id->pid <= 0 || id->pid == getpid())
		return false;
	if (read_boot_id(boot, sizeof(boot)) != 0 || strcmp(boot, id->boot_id) != 0)
		return false;
	if (read_start_ticks(id->pid, &ticks, &state) != 0)
		return false;
	return ticks == id->start_ticks && state != 'Z' && state != 'X';
}
