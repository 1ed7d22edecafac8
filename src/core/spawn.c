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
	posix_spawnattr_t attr;
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
	/*
	 * A process group of its own: Ctrl-C or Ctrl-\ at the terminal, meant for fdewiz
	 * (which holds them back while a step must not be cut), never reaches a helper
	 * in the middle of resizing a filesystem; nor does fdewiz's own death.
	 */
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
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
