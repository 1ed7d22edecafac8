/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A step run in a forked child of fdewiz, its result and one sentence brought back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

int fdw_child_run(fdw_child_fn fn, void *ctx, char *note, size_t len)
{
	int fds[2], status, rc;
	ssize_t n;
	pid_t pid;

	note[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (pid == 0) {
		close(fds[0]);
		rc = fn(ctx, note, len);
		if (write(fds[1], note, strlen(note)) < 0)
			rc = rc ? rc : -EIO;
		_exit(rc ? (-rc & 0xff) : 0);
	}
	close(fds[1]);
	n = read(fds[0], note, len - 1);
	note[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -EINTR;
	return WEXITSTATUS(status) ? -WEXITSTATUS(status) : 0;
}
