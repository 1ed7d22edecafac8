/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of boot/ (an installed system's boot: its
 * entries, crypttab, the boot and data steps): the one header of this folder they
 * include. */
#ifndef FDW_BOOT_API_H
#define FDW_BOOT_API_H

#include "boot_entries.h"
#include "crypttab.h"
#include "system_boot.h"
#include "system_data.h"
#include "tpm.h"

#endif
