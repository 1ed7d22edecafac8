/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Run a helper program (e2fsck, resize2fs) with its output sent to the log, never the terminal. */
#ifndef FDW_SPAWN_H
#define FDW_SPAWN_H

#include <stddef.h>

/* The only directories helpers are taken from, whatever PATH fdewiz was started with. */
#define FDW_HELPER_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * Run @argv (argv[0] looked up in FDW_HELPER_PATH, not the inherited PATH) with stdin from
 * /dev/null, stdout and stderr logged line by line, and an environment of only PATH and
 * LC_ALL=C. Returns the exit status (0..255), or -errno if it could not run, or
 * 128 + signal number when it was killed.
 */
int fdw_spawn(char *const argv[]);
/*
 * Run @argv like fdw_spawn, but in the C locale (its output is parsed) and with what it
 * prints kept in @buf (cut to @len - 1 bytes, always terminated) instead of logged.
 */
int fdw_spawn_output(char *const argv[], char *buf, size_t len);

/* The full path fdw_spawn() would run for @name (a name with a '/' is taken as it is). */
int fdw_helper_resolve(const char *name, char *out, size_t len);

#endif
