/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Run a helper program (e2fsck, resize2fs) with its output sent to the log, never the terminal. */
#ifndef FDW_SPAWN_H
#define FDW_SPAWN_H

/*
 * Run @argv (argv[0] looked up in PATH) with stdin from /dev/null and stdout and stderr
 * logged line by line. Returns the exit status (0..255), or -errno if it could not run,
 * or 128 + signal number when it was killed.
 */
int fdw_spawn(char *const argv[]);

#endif
