/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the one-restart files share inside src/core/convert: restart.c (prepared, cancelled)
 * and restart_step.c (the step in the initramfs, the started system's take-over). */
#ifndef FDW_RESTART_INTERNAL_H
#define FDW_RESTART_INTERNAL_H

#include <stddef.h>

/* The initramfs's state folder: its /run is moved onto the started system's. */
#define INITRD_STATE "/run/" FDW_RESTART_NAME "/state"

/* The restart's folder in the state folder, its stage record and its prepared header. */
void fdw_restart_stage_paths(char *dir, size_t dlen, char *stage, char *header, size_t len);

/* The restart's folder @dir emptied and removed: the stage, the header, the planned move
 * of /boot, the records kept for a power cut and the kept initramfs. */
void fdw_restart_remove_stage_dir(const char *dir, const char *stage, const char *header);

#endif
