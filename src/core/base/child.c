/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one way fdewiz forks a child of its own: a step waited for, a worker read while it
 * runs, and the background worker detached. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

/* What fdw_child_run's child is asked to do. */
struct run_call {
	fdw_child_fn fn;
	void *ctx;
	char *note;
	size_t len;
};

/* fdw_child_run's body: the sentence is its reply, the errno number its exit status. */
static int run_body(void *ctx, int reply_fd, int status_fd)
{
	struct run_call *call = ctx;
	int rc = call->fn(call->ctx, call->note, call->len);

	(void)status_fd;
	if (fdw_child_send(reply_fd, call->note, strlen(call->note)) != 0)
		rc = rc ? rc : -EIO;
	return rc ? (-rc & 0xff) : 0;
}

int fdw_child_run(fdw_child_fn fn, void *ctx, char *note, size_t len)
{
	struct run_call call = { .fn = fn, .ctx = ctx, .note = note, .len = len };
	const struct fdw_child_opts o = { 0 };
	struct fdw_child c;
	size_t got = 0;
	ssize_t n;
	int status;

	note[0] = '\0';
	status = fdw_child_start(&c, &o, run_body, &call);
	if (status)
		return status;
	while (got < len - 1 && ((n = read(c.reply_fd, note + got, len - 1 - got)) > 0 ||
				 (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	note[got] = '\0';
	status = fdw_child_reap(&c);
	if (status < 0)
		return status;
	if (!WIFEXITED(status))
		return -EINTR;
	return WEXITSTATUS(status) ? -WEXITSTATUS(status) : 0;
}

int fdw_child_start(struct fdw_child *c, const struct fdw_child_opts *o, fdw_child_body body,
		    void *ctx)
{
	int reply[2], status[2] = { -1, -1 }, rc;
	pid_t parent = getpid();

	c->pid = 0;
	c->reply_fd = c->status_fd = -1;
	if (pipe2(reply, O_CLOEXEC) != 0)
		return -errno;
	if (o->status_pipe && pipe2(status, O_CLOEXEC) != 0)
		status[0] = status[1] = -1;
	c->pid = fork();
	if (c->pid == 0) {
		close(reply[0]);
		if (status[0] >= 0)
			close(status[0]);
		/* Dies with the one who waits for it, even if that one died before prctl. */
		if (o->parent_death_signal &&
		    (prctl(PR_SET_PDEATHSIG, o->parent_death_signal) != 0 || getppid() != parent))
			_exit(1);
		_exit(body(ctx, reply[1], status[1]) & 0xff);
	}
	rc = c->pid < 0 ? -errno : 0;
	close(reply[1]);
	if (status[1] >= 0)
		close(status[1]);
	if (rc) {
		close(reply[0]);
		if (status[0] >= 0)
			close(status[0]);
		c->pid = 0;
		return rc;
	}
	c->reply_fd = reply[0];
	c->status_fd = status[0];
	return 0;
}

int fdw_child_send(int fd, const void *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, (const char *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (size_t)n;
	}
	return 0;
}

int fdw_child_reap(struct fdw_child *c)
{
	int status = 0;

	/* Closed first: a child still writing gets EPIPE instead of waiting for a reader. */
	if (c->reply_fd >= 0)
		close(c->reply_fd);
	if (c->status_fd >= 0)
		close(c->status_fd);
	c->reply_fd = c->status_fd = -1;
	if (c->pid <= 0)
		return 0;
	while (waitpid(c->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -errno;
			break;
		}
	}
	c->pid = 0;
	return status;
}

int fdw_child_private_mounts(void)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -errno;
	return 0;
}

pid_t fdw_child_detach(void)
{
	int ready[2], fd;
	pid_t pid, worker = 0;
	ssize_t r;

	if (pipe2(ready, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		/* The caller learns the worker's pid once it has detached. */
		close(ready[1]);
		do
			r = read(ready[0], &worker, sizeof(worker));
		while (r < 0 && errno == EINTR);
		close(ready[0]);
		waitpid(pid, NULL, 0);
		return r == (ssize_t)sizeof(worker) ? worker : -ECHILD;
	}
	close(ready[0]);
	setsid();
	/* The second fork makes sure the worker can never reacquire a terminal. */
	pid = fork();
	if (pid != 0)
		_exit(pid < 0 ? 1 : 0);
	worker = getpid();
	if (write(ready[1], &worker, sizeof(worker)) != (ssize_t)sizeof(worker))
		_exit(1);
	close(ready[1]);
	umask(077);
	if (chdir("/") != 0)
		_exit(1);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	return 0;
}
