/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where fdewiz keeps its records and header backups: the state folder, private to root. */
#ifndef FDW_STATEDIR_H
#define FDW_STATEDIR_H

#define FDW_DEFAULT_STATE_DIR "/var/lib/fdewiz"

/* $FDEWIZ_STATE_DIR or /var/lib/fdewiz; created on demand with mode 0700. */
const char *fdw_state_dir(void);
int fdw_state_dir_ensure(void);
/*
 * @path must be a real directory (lstat: not a link), owned by root (or by the user fdewiz
 * runs as) and writable by no one else; 0, or -ELOOP/-ENOTDIR/-EPERM after logging why.
 * _ensure creates it (mode 0700) first when missing.
 */
int fdw_private_dir_check(const char *path);
int fdw_private_dir_ensure(const char *path);

#endif
