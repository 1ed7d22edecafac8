/* Runs helper programs with their output captured into the log. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "spawn.h"

extern char **environ;

int fdw_spawn(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, rc;
	pid_t pid;
	FILE *out;
	char *line = NULL;
	size_t cap = 0;

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
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
