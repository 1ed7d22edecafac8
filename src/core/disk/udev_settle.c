/* SPDX-License-Identifier: GPL-3.0-or-later */
/* udevadm settle, where udevd runs. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "base/log.h"
#include "base/spawn.h"
#include "udev_settle.h"

void fdw_udev_settle(int timeout_s)
{
	char timeout[32];
	char *argv[] = { "udevadm", "settle", timeout, NULL };

	/* Without udevd there is no queue to wait for, and nothing will make the nodes. */
	if (access("/run/udev/control", F_OK) != 0)
		return;
	snprintf(timeout, sizeof(timeout), "--timeout=%d", timeout_s);
	if (fdw_spawn(argv) != 0)
		fdw_log(FDW_LOG_INFO, "udevadm settle did not end cleanly; going on");
}
