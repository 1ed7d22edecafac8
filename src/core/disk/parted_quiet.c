/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A partition table written by libparted without a word on the terminal. */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "parted_quiet.h"

/*
 * libparted runs `udevadm settle` through the shell after a commit and lets the shell
 * complain on our stderr when there is no udev. A terminal screen must never get that,
 * so stderr points at /dev/null for the duration.
 */
bool fdw_parted_commit_quietly(PedDisk *disk)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	bool ok;

	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
	ok = ped_disk_commit(disk) != 0;
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	return ok;
}
