/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of disk/ (the disks and their verdicts, a
 * target, where a job's volume is and what it says): the one header of this folder they
 * include. */
#ifndef FDW_DISK_API_H
#define FDW_DISK_API_H

#include "disk.h"
#include "job_locate.h"
#include "job_observe.h"
#include "target.h"
#include "volume_id.h"

#endif
