/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Run a helper program (e2fsck, resize2fs) with its output sent to the log, never the terminal. */
#ifndef FDW_SPAWN_H
#define FDW_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

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
/* The same with its stderr thrown away: for a report (JSON) that warnings must not break. */
int fdw_spawn_stdout(char *const argv[], char *buf, size_t len);

/*
 * The one way the engine starts a helper program; fdw_spawn() and fdw_spawn_output() are
 * made of it. Always: argv[0] looked up in FDW_HELPER_PATH (never the caller's PATH), an
 * environment of only PATH and LC_ALL=C (nothing of the caller's: no LD_PRELOAD, IFS,
 * locale or tool variables), every other descriptor closed.
 */
struct fdw_spawn_opts {
	const char *stdin_bytes;	/* written to its stdin (a few KiB at most), or NULL:
					 * stdin is /dev/null */
	size_t stdin_len;
	int fd3;			/* handed to it as descriptor 3, or -1 */
	const char *output_file;	/* stdout and stderr appended to this file, or NULL:
					 * they go to the pipe in *@out_fd */
	bool discard_stderr;		/* stderr to /dev/null (with the pipe: stdout only) */
	bool own_pgroup;		/* its own process group: the terminal's Ctrl-C is
					 * fdewiz's, which stops the group itself */
	const char *extra_env;		/* one more "NAME=value" in its environment, or NULL */
};
/*
 * Start @argv as @o says. 0 with *@pid set and, when no output_file is given, *@out_fd the
 * read end of its output (the caller closes it); or -errno (logged) when it cannot run.
 */
int fdw_spawn_start(char *const argv[], const struct fdw_spawn_opts *o, pid_t *pid,
		    int *out_fd);
/*
 * Run @argv as @o says (its output to a pipe) and keep what it prints in @buf (cut to
 * @len - 1 bytes, always terminated); nothing of it stays elsewhere in this process.
 * The exit status as fdw_spawn_wait() gives it, or -errno.
 */
int fdw_spawn_collect(char *const argv[], const struct fdw_spawn_opts *o, char *buf,
		      size_t len);
/*
 * Wait for @pid (through EINTR): its exit status 0..255, 128 + the signal that killed it,
 * or -errno. @usage (may be NULL) gets its resource usage and that of all it waited for.
 */
int fdw_spawn_wait(pid_t pid, struct rusage *usage);

/* The full path fdw_spawn() would run for @name (a name with a '/' is taken as it is). */
int fdw_helper_resolve(const char *name, char *out, size_t len);

#endif
