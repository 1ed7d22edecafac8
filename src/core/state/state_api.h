/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of state/ (job records and the published
 * progress): the one header of this folder they include. */
#ifndef FDW_STATE_API_H
#define FDW_STATE_API_H

#include "job.h"
#include "progress.h"

#endif
