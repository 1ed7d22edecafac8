/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What /proc/cpuinfo says about the CPU's crypto instructions. */
#ifndef FDW_CPUINFO_H
#define FDW_CPUINFO_H

#include <stdbool.h>

/*
 * Whether the "flags" line (x86) or "Features" line (ARM) of the first processor block in
 * @text lists @flag as a whole word. Separate from the file so tests can feed captured text.
 */
bool fdw_cpuinfo_has_flag(const char *text, const char *flag);

/* The CPU has AES instructions (x86 AES-NI, ARMv8 crypto extension). */
bool fdw_cpuinfo_text_has_aes(const char *text);

/* Read /proc/cpuinfo into a new string (caller frees), or NULL with errno set. */
char *fdw_cpuinfo_read(void);

#endif
