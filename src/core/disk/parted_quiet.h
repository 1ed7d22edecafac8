/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A partition table written by libparted without a word on the terminal. */
#ifndef FDW_PARTED_QUIET_H
#define FDW_PARTED_QUIET_H

#include <stdbool.h>
#include <parted/parted.h>

/* ped_disk_commit(@disk) with stderr on /dev/null meanwhile: whether it was written. */
bool fdw_parted_commit_quietly(PedDisk *disk);

#endif
