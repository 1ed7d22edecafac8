/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of luks2/ (the conversion loop, header
 * files, progress from the segments, recovery keys and their escrow): the one header of this folder they
 * include. */
#ifndef FDW_LUKS2_API_H
#define FDW_LUKS2_API_H

#include "convert.h"
#include "escrow.h"
#include "headerio.h"
#include "luks2_progress.h"
#include "recovery.h"

#endif
