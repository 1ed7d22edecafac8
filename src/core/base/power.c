/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The battery guard: reads /sys/class/power_supply and says whether a conversion may run. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "i18n.h"
#include "log.h"
#include "power.h"
#include "testhook.h"

/* The first line of @dir/@name, without its newline; "" when it cannot be read. */
static void read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static long attr_long(const char *dir, const char *name)
{
	char buf[32], *end;
	long v;

	read_attr(dir, name, buf, sizeof(buf));
	if (!buf[0])
		return -1;
	v = strtol(buf, &end, 10);
	return *end || v < 0 ? -1 : v;
}

void fdw_power_read(struct fdw_power *pw)
{
	const char *root = fdw_power_supply_root();
	long now_sum = 0, full_sum = 0, cap_sum = 0, cap_n = 0;
	bool mains = false, discharging = false;
	struct dirent *de;
	DIR *d = opendir(root);

	pw->battery = pw->on_battery = false;
	pw->charge = -1;
	if (!d)
		return;
	while ((de = readdir(d))) {
		char dir[PATH_MAX], type[32], scope[32], status[32];
		long now, full, cap;

		if (de->d_name[0] == '.' ||
		    snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name) >= (int)sizeof(dir))
			continue;
		read_attr(dir, "type", type, sizeof(type));
		if (!strcmp(type, "Mains") || !strcmp(type, "USB")) {
			mains |= attr_long(dir, "online") == 1;
			continue;
		}
		read_attr(dir, "scope", scope, sizeof(scope));
		/* A wireless mouse's or a phone's battery says nothing about this computer. */
		if (strcmp(type, "Battery") || !strcmp(scope, "Device") ||
		    attr_long(dir, "present") == 0)
			continue;
		pw->battery = true;
		read_attr(dir, "status", status, sizeof(status));
		discharging |= !strcmp(status, "Discharging");
		/* Two batteries: what is left of both together, by energy when known. */
		now = attr_long(dir, "energy_now");
		full = attr_long(dir, "energy_full");
		if (now < 0 || full <= 0) {
			now = attr_long(dir, "charge_now");
			full = attr_long(dir, "charge_full");
		}
		if (now >= 0 && full > 0) {
			now_sum += now;
			full_sum += full;
		}
		cap = attr_long(dir, "capacity");
		if (cap >= 0 && cap <= 100) {
			cap_sum += cap;
			cap_n++;
		}
	}
	closedir(d);
	/* Without a mains supply listed, the battery's own status tells. */
	pw->on_battery = pw->battery && !mains && discharging;
	if (cap_n)
		pw->charge = (int)(cap_sum / cap_n);
	else if (full_sum > 0)
		pw->charge = (int)(100 * now_sum / full_sum);
}

bool fdw_power_low(const struct fdw_power *pw, int percent)
{
	return pw->on_battery && pw->charge < percent;
}

int fdw_power_start_check(bool force, char *why, size_t len)
{
	struct fdw_power pw;

	fdw_power_read(&pw);
	if (!fdw_power_low(&pw, FDW_BATTERY_START_PERCENT))
		return 0;
	if (force) {
		fdw_log(FDW_LOG_WARN, "starting on battery at %d %% as asked", pw.charge);
		return 0;
	}
	if (pw.charge >= 0)
		snprintf(why, len, _("this computer runs on its battery, at %d %% (a conversion "
				     "starts on battery only from %d %%): it writes the whole "
				     "partition and can take hours, and a battery running out in "
				     "the middle leaves it to be repaired at the next start. "
				     "Nothing was changed. Connect the charger and start again."),
			 pw.charge, FDW_BATTERY_START_PERCENT);
	else
		snprintf(why, len, _("this computer runs on its battery and its charge cannot "
				     "be read (a conversion starts on battery only from %d %%): "
				     "it writes the whole partition and can take hours. Nothing "
				     "was changed. Connect the charger and start again."),
			 FDW_BATTERY_START_PERCENT);
	return -EAGAIN;
}

static bool guard_insisted;

void fdw_power_guard_insist(void)
{
	guard_insisted = true;
}

bool fdw_power_guard_insisted(void)
{
	return guard_insisted;
}
