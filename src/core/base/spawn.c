/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs helper programs with their output captured into the log. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "spawn.h"

/*
 * Helpers run as root: they are found in the system's own directories, never through the
 * caller's PATH, and get a minimal environment (no LD_PRELOAD, IFS, locale or tool
 * variables of the caller). Messages stay untranslated for the log.
 */
static char *const helper_env[] = { "PATH=" FDW_HELPER_PATH, "LC_ALL=C",
				     /* libdevmapper's control node stays open in fdewiz: LVM's
				      * tools would warn of it at each run. */
				     "LVM_SUPPRESS_FD_WARNINGS=1", NULL };

int fdw_helper_resolve(const char *name, char *out, size_t len)
{
	const char *dir = FDW_HELPER_PATH, *end;

	if (strchr(name, '/')) {
		if (snprintf(out, len, "%s", name) >= (int)len)
			return -ENAMETOOLONG;
		return access(out, X_OK) == 0 ? 0 : -errno;
	}
	for (; *dir; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		if (snprintf(out, len, "%.*s/%s", (int)(end - dir), dir, name) >= (int)len)
			continue;
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* The file actions of @o, around the pipes the caller made; 0 or an errno. */
static int file_actions(posix_spawn_file_actions_t *fa, const struct fdw_spawn_opts *o,
			int in_read, int out_write)
{
	int rc;

	rc = in_read >= 0 ? posix_spawn_file_actions_adddup2(fa, in_read, STDIN_FILENO) :
	     posix_spawn_file_actions_addopen(fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!rc && o->output_file)
		rc = posix_spawn_file_actions_addopen(fa, STDOUT_FILENO, o->output_file,
						      O_WRONLY | O_CREAT | O_APPEND, 0644);
	else if (!rc)
		rc = posix_spawn_file_actions_adddup2(fa, out_write, STDOUT_FILENO);
	if (!rc && o->discard_stderr)
		rc = posix_spawn_file_actions_addopen(fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	else if (!rc)
		rc = posix_spawn_file_actions_adddup2(fa, STDOUT_FILENO, STDERR_FILENO);
	if (!rc && o->fd3 >= 0)
		rc = posix_spawn_file_actions_adddup2(fa, o->fd3, 3);
	return rc;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}

/*
 * write() to a helper's stdin that cannot kill fdewiz: a helper that exits without reading
 * it (an escrow command that ignores its input) makes the write fail with EPIPE; the
 * SIGPIPE it raises is blocked meanwhile and taken back, unless one was already pending.
 */
static ssize_t write_no_sigpipe(int fd, const void *buf, size_t len)
{
	sigset_t pipe_set, old;
	const struct timespec none = { 0, 0 };
	bool pending_before;
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	{
		sigset_t pending;

		sigpending(&pending);
		pending_before = sigismember(&pending, SIGPIPE);
	}
	n = write(fd, buf, len);
	if (n < 0 && errno == EPIPE && !pending_before)
		while (sigtimedwait(&pipe_set, NULL, &none) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return n;
}

int fdw_spawn_start(char *const argv[], const struct fdw_spawn_opts *o, pid_t *pid,
		    int *out_fd)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, rc;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char prog[PATH_MAX];
	char *env[] = { helper_env[0], helper_env[1], (char *)o->extra_env, NULL };

	if (out_fd)
		*out_fd = -1;
	rc = fdw_helper_resolve(argv[0], prog, sizeof(prog));
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not find %s in %s: %s", argv[0], FDW_HELPER_PATH,
			strerror(-rc));
		return rc;
	}
	if ((o->stdin_bytes && pipe2(in, O_CLOEXEC) != 0) ||
	    (!o->output_file && pipe2(out, O_CLOEXEC) != 0)) {
		rc = -errno;
		close_pair(in);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	rc = file_actions(&fa, o, in[0], out[1]);
	if (!rc && o->own_pgroup) {
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
		posix_spawnattr_setpgroup(&attr, 0);
	}
	if (!rc)
		rc = posix_spawn(pid, prog, &fa, &attr, argv, o->extra_env ? env : helper_env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	in[0] = out[1] = -1;
	if (rc) {
		close_pair(in);
		close_pair(out);
		fdw_log(FDW_LOG_ERROR, "could not run %s: %s", prog, strerror(rc));
		return -rc;
	}
	/* The bytes fit the pipe (callers send a few hundred): written without blocking. */
	if (in[1] >= 0 && write_no_sigpipe(in[1], o->stdin_bytes, o->stdin_len) !=
			  (ssize_t)o->stdin_len)
		fdw_log(FDW_LOG_ERROR, "%s: its input could not be written whole", argv[0]);
	close_pair(in);
	if (out_fd)
		*out_fd = out[0];
	else if (out[0] >= 0)
		close(out[0]);
	return 0;
}

int fdw_spawn_wait(pid_t pid, struct rusage *usage)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, usage ? usage : &ru) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int fdw_spawn(char *const argv[])
{
	/*
	 * A process group of its own: Ctrl-C or Ctrl-\ at the terminal, meant for fdewiz
	 * (which holds them back while a step must not be cut), never reaches a helper
	 * in the middle of resizing a filesystem; nor does fdewiz's own death.
	 */
	const struct fdw_spawn_opts o = { .fd3 = -1, .own_pgroup = true };
	char *line = NULL;
	size_t cap = 0;
	int fd, rc;
	pid_t pid;
	FILE *out;

	rc = fdw_spawn_start(argv, &o, &pid, &fd);
	if (rc)
		return rc;
	out = fdopen(fd, "r");
	while (out && getline(&line, &cap, out) > 0) {
		line[strcspn(line, "\n")] = '\0';
		fdw_log(FDW_LOG_INFO, "%s: %s", argv[0], line);
	}
	free(line);
	if (out)
		fclose(out);
	else
		close(fd);
	rc = fdw_spawn_wait(pid, NULL);
	if (rc > 128)
		fdw_log(FDW_LOG_ERROR, "%s was killed by signal %d", argv[0], rc - 128);
	return rc;
}

int fdw_spawn_collect(char *const argv[], const struct fdw_spawn_opts *o, char *buf,
		      size_t len)
{
	char chunk[512];
	size_t used = 0;
	int fd, rc;
	pid_t pid;

	if (len)
		buf[0] = '\0';
	rc = fdw_spawn_start(argv, o, &pid, &fd);
	if (rc)
		return rc;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && used + 1 < len; i++)
			buf[used++] = chunk[i];
	}
	/* What it printed may be a secret (a key clevis unsealed): no copy stays here. */
	explicit_bzero(chunk, sizeof(chunk));
	if (len)
		buf[used] = '\0';
	close(fd);
	return fdw_spawn_wait(pid, NULL);
}

/* Run @argv in the C locale and keep what it prints (stdout and stderr) in @buf. */
static int spawn_read(char *const argv[], bool stdout_only, char *buf, size_t len)
{
	const struct fdw_spawn_opts o = { .fd3 = -1, .discard_stderr = stdout_only };

	return fdw_spawn_collect(argv, &o, buf, len);
}

int fdw_spawn_output(char *const argv[], char *buf, size_t len)
{
	return spawn_read(argv, false, buf, len);
}

int fdw_spawn_stdout(char *const argv[], char *buf, size_t len)
{
	return spawn_read(argv, true, buf, len);
}
