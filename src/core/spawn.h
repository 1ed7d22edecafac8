/* Run a helper program (e2fsck, resize2fs) with its output sent to the log, never the terminal. */
#ifndef FDW_SPAWN_H
#define FDW_SPAWN_H

#include <stddef.h>

/*
 * Run @argv (argv[0] looked up in PATH) with stdin from /dev/null and stdout and stderr
 * logged line by line. Returns the exit status (0..255), or -errno if it could not run,
 * or 128 + signal number when it was killed.
 */
int fdw_spawn(char *const argv[]);
/*
 * Run @argv like fdw_spawn, but in the C locale (its output is parsed) and with what it
 * prints kept in @buf (cut to @len - 1 bytes, always terminated) instead of logged.
 */
int fdw_spawn_output(char *const argv[], char *buf, size_t len);

#endif
