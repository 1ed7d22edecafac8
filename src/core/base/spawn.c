/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs helper programs with their output captured into the log. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "spawn.h"

/*
 * Helpers run as root: they are found in the system's own directories, never through the
 * caller's PATH, and get a minimal environment (no LD_PRELOAD, IFS, locale or tool
 * variables of the caller). Messages stay untranslated for the log.
 */
static char *const helper_env[] = { "PATH=" FDW_HELPER_PATH, "LC_ALL=C", NULL };

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

int fdw_spawn(char *const argv[])
{
	char prog[PATH_MAX];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pipefd[2], status, rc;
	pid_t pid;
	FILE *out;
	char *line = NULL;
	size_t cap = 0;

	rc = fdw_helper_resolve(argv[0], prog, sizeof(prog));
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not find %s in %s: %s", argv[0], FDW_HELPER_PATH,
			strerror(-rc));
		return rc;
	}
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	/*
	 * A process group of its own: Ctrl-C or Ctrl-\ at the terminal, meant for fdewiz
	 * (which holds them back while a step must not be cut), never reaches a helper
	 * in the middle of resizing a filesystem; nor does fdewiz's own death.
	 */
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	rc = posix_spawn(&pid, prog, &fa, &attr, argv, helper_env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0) {
		close(pipefd[0]);
		fdw_log(FDW_LOG_ERROR, "could not run %s: %s", argv[0], strerror(rc));
		return -rc;
	}
	out = fdopen(pipefd[0], "r");
	while (out && getline(&line, &cap, out) > 0) {
		line[strcspn(line, "\n")] = '\0';
		fdw_log(FDW_LOG_INFO, "%s: %s", argv[0], line);
	}
	free(line);
	if (out)
		fclose(out);
	else
		close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status)) {
		fdw_log(FDW_LOG_ERROR, "%s was killed by signal %d", argv[0], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/* Run @argv in the C locale and keep what it prints (stdout and stderr) in @buf. */
int fdw_spawn_output(char *const argv[], char *buf, size_t len)
{
	static char lc_all[] = "LC_ALL=C";
	posix_spawn_file_actions_t fa;
	char *envp[] = { lc_all, NULL, NULL };
	const char *path = getenv("PATH");
	char pathvar[4096];
	int pipefd[2], status, rc;
	size_t used = 0;
	ssize_t n;
	pid_t pid;

	if (path && snprintf(pathvar, sizeof(pathvar), "PATH=%s", path) < (int)sizeof(pathvar))
		envp[1] = pathvar;
	if (len)
		buf[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0) {
		close(pipefd[0]);
		fdw_log(FDW_LOG_ERROR, "could not run %s: %s", argv[0], strerror(rc));
		return -rc;
	}
	for (;;) {
		char chunk[512];

		n = read(pipefd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && used + 1 < len; i++)
			buf[used++] = chunk[i];
	}
	if (len)
		buf[used] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
