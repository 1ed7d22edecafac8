/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The measurement the prediction is made from: the partition read (never written) with
 * O_DIRECT and the ciphers in memory, in a child process so a screen never waits for it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "encrypt_flow.h"
#include "i18n.h"
#include "log.h"
#include "loopdev.h"
#include "predict.h"

/* The read tests only: the partition holds the data, nothing may be written to it. */
#define PROBE_TESTS "seqread.qd8,seqread.qd1,randread.qd32,randread.qd1"

int fdw_predict_measure(const char *device, enum fdw_bench_scale scale,
			volatile sig_atomic_t *stop, struct fdw_bench_run *out, char *why,
			size_t len)
{
	struct fdw_bench_options o = {
		.device = device,
		.scale = scale,
		.repeats = 1,
		.stop = stop,
		.io_tests = PROBE_TESTS,
		.io_runtime = scale == FDW_BENCH_TINY ? 0.3 : 1.0,
		.skip_pbkdf = true,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(out->label, sizeof(out->label), "probe");
	snprintf(out->target, sizeof(out->target), "%s", device);
	snprintf(out->device, sizeof(out->device), "%s", device);
	fdw_bench_run_describe(out);
	rc = fdw_bench_io(&o, out, why, len);
	if (!rc)
		rc = fdw_bench_cipher(&o, out, why, len);
	return rc;
}

/* What the child tells its parent. */
struct probe_reply {
	int rc;
	char why[512];
	struct fdw_bench_run run;
};

static volatile sig_atomic_t probe_stop;

static void on_term(int sig)
{
	(void)sig;
	probe_stop = 1;
}

static void quiet_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return;
	/* Nothing of the child may reach a curses screen. */
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	close(null);
}

static void __attribute__((noreturn))
probe_child(int fd, pid_t parent, const struct fdw_encrypt *e, enum fdw_bench_scale scale)
{
	static struct probe_reply r;	/* large: off the stack */
	struct sigaction sa = { .sa_handler = on_term };
	struct fdw_target tg = e->target;	/* a copy: the parent's stays as it is */
	size_t off = 0;

	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	setpgid(0, 0);
	quiet_stdio();
	r.rc = fdw_target_attach(&tg);
	if (r.rc)
		snprintf(r.why, sizeof(r.why), _("cannot attach a loop device to read it: %s."),
			 strerror(-r.rc));
	else
		r.rc = fdw_predict_measure(tg.device, scale, &probe_stop, &r.run, r.why,
					   sizeof(r.why));
	/* Our own loop device (autoclear) goes with its last descriptor; wait until it has. */
	if (tg.loop_attached && !tg.loop_handed_over && tg.loop_fd != e->target.loop_fd) {
		close(tg.loop_fd);
		fdw_loop_wait_detached(tg.device);
	}
	while (off < sizeof(r) && !probe_stop) {
		ssize_t n = write(fd, (char *)&r + off, sizeof(r) - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	_exit(off == sizeof(r) ? 0 : 1);
}

int fdw_predict_probe_start(struct fdw_predict_probe *p, const struct fdw_encrypt *e,
			    enum fdw_bench_scale scale)
{
	pid_t parent = getpid(), pid;
	int pfd[2];

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->buf = calloc(1, sizeof(struct probe_reply));
	if (!p->buf || !e->target_open || pipe2(pfd, O_CLOEXEC) != 0) {
		p->rc = p->buf && e->target_open ? -errno : -ENOMEM;
		snprintf(p->why, sizeof(p->why), _("the measurement could not start: %s."),
			 strerror(-p->rc));
		free(p->buf);
		p->buf = NULL;
		return p->rc;
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		probe_child(pfd[1], parent, e, scale);
	}
	close(pfd[1]);
	if (pid < 0) {
		p->rc = -errno;
		close(pfd[0]);
		free(p->buf);
		p->buf = NULL;
		snprintf(p->why, sizeof(p->why), _("the measurement could not start: %s."),
			 strerror(-p->rc));
		return p->rc;
	}
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	p->fd = pfd[0];
	p->pid = pid;
	fdw_log(FDW_LOG_INFO, "predict: measuring %s read-only (pid %ld)", e->target.part->address,
		(long)pid);
	return 0;
}

static void reap(struct fdw_predict_probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (p->pid > 0)
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
	p->pid = 0;
}

int fdw_predict_probe_poll(struct fdw_predict_probe *p)
{
	struct probe_reply *r = p->buf;

	if (p->done || !r)
		return p->done || p->rc ? 1 : 0;
	for (;;) {
		ssize_t n = read(p->fd, (char *)r + p->got, sizeof(*r) - p->got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n > 0) {
			p->got += (size_t)n;
			if (p->got < sizeof(*r))
				continue;
		}
		break;
	}
	reap(p);
	p->done = true;
	if (p->got < sizeof(*r)) {
		p->rc = -ECHILD;
		snprintf(p->why, sizeof(p->why), "%s", _("the measurement ended without a result."));
		return 1;
	}
	p->rc = r->rc;
	snprintf(p->why, sizeof(p->why), "%s", r->why);
	p->run = r->rc ? NULL : &r->run;
	return 1;
}

void fdw_predict_probe_stop(struct fdw_predict_probe *p)
{
	/* A zeroed probe was never started: its fd 0 is not ours to close. */
	if (!p->buf) {
		memset(p, 0, sizeof(*p));
		p->fd = -1;
		return;
	}
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		reap(p);
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}
