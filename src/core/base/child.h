/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one way fdewiz forks a child of its own: a step waited for, a worker read while it
 * runs, and the background worker detached. (Helper programs: spawn.h.) */
#ifndef FDW_CHILD_H
#define FDW_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The work of a child: 0 or -errno, and a sentence for the person in @note (@len bytes).
 * It runs in a fork of the caller: what it changes in its own process (mounts in a private
 * namespace, a chroot) dies with it; what must last it writes to disk itself.
 */
typedef int (*fdw_child_fn)(void *ctx, char *note, size_t len);

/*
 * Run @fn(@ctx) in a child and wait for it. @note gets the child's sentence (or ""). Returns
 * the child's result (-errno; the errno number travels in the exit status), -EINTR when the
 * child was killed, or -errno when it could not be started.
 */
int fdw_child_run(fdw_child_fn fn, void *ctx, char *note, size_t len);

/* A child the parent reads while it runs. */
struct fdw_child {
	pid_t pid;			/* 0: none */
	int reply_fd;			/* read end of what it sends back, or -1 */
	int status_fd;			/* read end of its status messages, or -1 */
};

/*
 * The body of such a child: it writes its reply to @reply_fd (fdw_child_send) and, when
 * @status_fd is not -1, its steps there; what it returns is its exit status.
 */
typedef int (*fdw_child_body)(void *ctx, int reply_fd, int status_fd);

struct fdw_child_opts {
	bool status_pipe;		/* a second pipe for steps (none when it cannot be
					 * made: the child then runs unseen) */
	int parent_death_signal;	/* sent to the child when the parent dies, or 0 */
};

/*
 * Start @body(@ctx) in a child as @o says; the parent goes on. 0 with @c set, or -errno
 * (@c then holds nothing to reap).
 */
int fdw_child_start(struct fdw_child *c, const struct fdw_child_opts *o, fdw_child_body body,
		    void *ctx);
/* Write all of @buf to @fd, through interruptions: 0, or -errno. */
int fdw_child_send(int fd, const void *buf, size_t len);
/*
 * Close the pipes still open and wait for the child: its wait status (waitpid's), or
 * -errno. A child never started (or reaped already) gives 0.
 */
int fdw_child_reap(struct fdw_child *c);

/*
 * In a child: a mount namespace of its own, private from "/" down, so that whatever it
 * mounts is seen nowhere else and goes when it ends, however it ends. 0 or -errno.
 */
int fdw_child_private_mounts(void);

/*
 * Detach the caller into a background process of its own: a new session, forked twice so
 * that it can never reacquire a terminal, umask 077, "/" as its folder, standard streams on
 * /dev/null. Returns 0 in that process; in the caller its pid once it has detached, or
 * -errno.
 */
pid_t fdw_child_detach(void);

#endif
