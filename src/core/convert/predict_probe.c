/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The measurement the prediction is made from: the partition read (never written) with
 * O_DIRECT, the ciphers in memory and the fixed cost of one request, in a child process so
 * a screen never waits for it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_cipher.h"
#include "base/clock.h"
#include "encrypt_flow.h"
#include "encrypt_internal.h"
#include "base/child.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/loopdev.h"
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
	if (!rc && fdw_predict_measure_request(out, stop) == -EINTR) {
		snprintf(why, len, "%s", _("The cipher benchmark was stopped; nothing was changed."));
		rc = -EINTR;
	}
	return rc;
}

/*
 * The per-request cost. Each timing takes about REQ_TIME_NS and keeps the median of its
 * samples (a few were disturbed by whatever else runs here): with four ciphers and the
 * wakeups, a tenth to a fifth of a second, more on a slow emulated CPU.
 */
#define REQ_TIME_NS 20000000ULL
#define REQ_MAX_SAMPLES 4096
#define REQ_MIN_SAMPLES 5
#define REQ_SMALL 4096		/* one request of the RND4K lines, one 4 KiB sector */
#define REQ_LARGE 65536
#define REQ_IDLE_NS 500000ULL	/* long enough for a CPU to go idle */

/* The kernel crypto API's name of each cipher benchmark test. */
static const struct req_cipher {
	const char *test;
	const char *alg;
	size_t key_bytes, iv_bytes;
} req_ciphers[] = {
	{ "cipher.aes-xts-256", "xts(aes)", 32, 16 },
	{ "cipher.aes-xts-512", "xts(aes)", 64, 16 },
	{ "cipher.serpent-xts-512", "xts(serpent)", 64, 16 },
	{ "cipher.adiantum", "adiantum(xchacha12,aes)", 32, 32 },
};

struct req_caller {
	int tfm, op;		/* the AF_ALG sockets, or -1: OpenSSL in this process */
	const struct req_cipher *c;
	unsigned char key[64];
	unsigned char *in, *out;
};

/* One call of @len bytes, as dm-crypt makes one per sector: its own IV each time. */
static int req_call(struct req_caller *k, size_t len)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 32)];
	} ctl;
	struct iovec iov = { .iov_base = k->in, .iov_len = len };
	/* Exactly the two messages: the kernel refuses space left over after them. */
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = CMSG_SPACE(sizeof(uint32_t)) +
						CMSG_SPACE(sizeof(struct af_alg_iv) +
							   k->c->iv_bytes) };
	struct cmsghdr *cm;
	struct af_alg_iv *iv;
	uint32_t op = ALG_OP_ENCRYPT;

	if (k->op < 0)
		return fdw_cipher_xts_userspace(k->key, k->c->key_bytes, 0, len, k->in, k->out,
						len, true);
	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_ALG;
	cm->cmsg_type = ALG_SET_OP;
	cm->cmsg_len = CMSG_LEN(sizeof(op));
	memcpy(CMSG_DATA(cm), &op, sizeof(op));
	cm = CMSG_NXTHDR(&msg, cm);
	cm->cmsg_level = SOL_ALG;
	cm->cmsg_type = ALG_SET_IV;
	cm->cmsg_len = CMSG_LEN(sizeof(*iv) + k->c->iv_bytes);
	iv = (struct af_alg_iv *)(void *)CMSG_DATA(cm);
	iv->ivlen = (uint32_t)k->c->iv_bytes;
	errno = EIO;
	if (sendmsg(k->op, &msg, 0) != (ssize_t)len || read(k->op, k->out, len) != (ssize_t)len)
		return -errno;
	return 0;
}

static int req_open(struct req_caller *k, const struct req_cipher *c, bool userspace)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "skcipher" };

	k->c = c;
	k->tfm = k->op = -1;
	/* Not a secret, only a key whose two XTS halves differ. */
	for (size_t i = 0; i < sizeof(k->key); i++)
		k->key[i] = (unsigned char)(i * 7 + 1);
	if (userspace)
		return 0;
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", c->alg);
	k->tfm = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (k->tfm < 0 || bind(k->tfm, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    setsockopt(k->tfm, SOL_ALG, ALG_SET_KEY, k->key, (socklen_t)c->key_bytes) != 0)
		return -errno;
	k->op = accept4(k->tfm, NULL, NULL, SOCK_CLOEXEC);
	return k->op < 0 ? -errno : 0;
}

static void req_close(struct req_caller *k)
{
	if (k->op >= 0)
		close(k->op);
	if (k->tfm >= 0)
		close(k->tfm);
	k->op = k->tfm = -1;
}

/*
 * Samples of what @one times (microseconds, in its *us) for about REQ_TIME_NS: their
 * median. How many samples, or -errno.
 */
static int time_samples(int (*one)(void *, double *), void *arg, volatile sig_atomic_t *stop,
			double *us)
{
	static double v[REQ_MAX_SAMPLES];
	uint64_t start = fdw_now_ns();
	unsigned n = 0;

	while (n < REQ_MIN_SAMPLES || (n < REQ_MAX_SAMPLES && fdw_now_ns() - start < REQ_TIME_NS)) {
		int rc;

		if (stop && *stop)
			return -EINTR;
		rc = one(arg, &v[n]);
		if (rc)
			return rc;
		n++;
	}
	*us = fdw_median_sort(v, n);
	return (int)n;
}

/* CPU time this process has used, both threads, in nanoseconds. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The fixed part of one call: a call of S bytes takes a + S*b, so from the medians of a
 * small and a large one, a = (L*t_S - S*t_L) / (L - S); never below 0 or above t_S. The
 * two sizes take turns, so that whatever disturbs one disturbs the other alike.
 */
static int call_cost(struct req_caller *k, volatile sig_atomic_t *stop, double *call_us)
{
	static double vs[REQ_MAX_SAMPLES / 2], vl[REQ_MAX_SAMPLES / 2];
	uint64_t start = fdw_now_ns(), t0, t1 = start, t2;
	double small, large, a;
	unsigned n = 0;

	while (n < REQ_MIN_SAMPLES || (n < REQ_MAX_SAMPLES / 2 && t1 - start < REQ_TIME_NS)) {
		int rc;

		if (stop && *stop)
			return -EINTR;
		t0 = fdw_now_ns();
		rc = req_call(k, REQ_SMALL);
		t2 = fdw_now_ns();
		if (!rc)
			rc = req_call(k, REQ_LARGE);
		t1 = fdw_now_ns();
		if (rc)
			return rc;
		vs[n] = (t2 - t0) / 1e3;
		vl[n++] = (t1 - t2) / 1e3;
	}
	small = fdw_median_sort(vs, n);
	large = fdw_median_sort(vl, n);
	a = (REQ_LARGE * small - REQ_SMALL * large) / (REQ_LARGE - REQ_SMALL);
	*call_us = a < 0 ? 0 : a > small ? small : a;
	fdw_log(FDW_LOG_INFO, "predict: %s %s: %.2f us per 4 KiB call, %.2f per 64 KiB, "
		"fixed part %.2f us", k->c->test, k->op >= 0 ? "AF_ALG" : "OpenSSL", small, large,
		*call_us);
	return 0;
}

static void metric_add(struct fdw_bench_test *t, const char *key, double v)
{
	struct fdw_bench_metric *m = &t->metrics[t->n_metrics++];

	memset(m, 0, sizeof(*m));
	snprintf(m->key, sizeof(m->key), "%s", key);
	snprintf(m->unit, sizeof(m->unit), "us");
	m->samples[0] = v;
	m->n = 1;
	fdw_bench_metric_finish(m);
}

static struct fdw_bench_test *test_of(struct fdw_bench_run *r, const char *id)
{
	for (size_t i = 0; i < r->n_tests; i++)
		if (!strcmp(r->tests[i].id, id))
			return &r->tests[i];
	return NULL;
}

/* "call_us" for each cipher test that has figures, timed the way it was measured. */
static int req_ciphers_measure(struct fdw_bench_run *r, volatile sig_atomic_t *stop,
			       unsigned char *in, unsigned char *out)
{
	for (size_t i = 0; i < sizeof(req_ciphers) / sizeof(req_ciphers[0]); i++) {
		struct fdw_bench_test *t = test_of(r, req_ciphers[i].test);
		struct req_caller k = { .in = in, .out = out };
		double us = 0;
		int rc;

		if (!t || !t->n_metrics || t->n_metrics >= FDW_BENCH_MAX_METRICS)
			continue;
		/* The OpenSSL fallback stands for the kernel where the kernel was not reachable. */
		rc = req_open(&k, &req_ciphers[i], strstr(t->note, "userspace") != NULL);
		if (!rc)
			rc = call_cost(&k, stop, &us);
		req_close(&k);
		if (rc == -EINTR)
			return rc;
		if (rc) {
			fdw_log(FDW_LOG_INFO, "predict: cannot time calls of %s: %s",
				req_ciphers[i].test, strerror(-rc));
			continue;
		}
		metric_add(t, FDW_PREDICT_CALL_KEY, us);
	}
	return 0;
}

struct hop {
	int ping, pong;		/* eventfds */
	int done;
};

static void *hop_echo(void *arg)
{
	struct hop *h = arg;
	uint64_t v;

	for (;;) {
		if (read(h->ping, &v, sizeof(v)) != sizeof(v) ||
		    __atomic_load_n(&h->done, __ATOMIC_ACQUIRE))
			return NULL;
		v = 1;
		if (write(h->pong, &v, sizeof(v)) != sizeof(v))
			return NULL;
	}
}

/* One round trip to the echo thread, both sleeping in turn: two hops. */
static int one_round_trip(void *arg, double *us)
{
	struct hop *h = arg;
	uint64_t v = 1, t0 = fdw_now_ns();

	if (write(h->ping, &v, sizeof(v)) != sizeof(v) ||
	    read(h->pong, &v, sizeof(v)) != sizeof(v))
		return errno == EINTR ? -EINTR : -EIO;
	*us = (fdw_now_ns() - t0) / 1e3;
	return 0;
}

/*
 * One wakeup of the echo thread, asleep long enough for its CPU to go idle, by this one,
 * which stays awake and polls for the answer: what a lone request waits for dm-crypt's
 * worker to run.
 */
static int one_idle_wake(void *arg, double *us)
{
	struct hop *h = arg;
	struct pollfd pfd = { .fd = h->pong, .events = POLLIN };
	uint64_t v = 1, t0 = fdw_now_ns();
	int n;

	while (fdw_now_ns() - t0 < REQ_IDLE_NS)
		;
	t0 = fdw_now_ns();
	if (write(h->ping, &v, sizeof(v)) != sizeof(v))
		return errno == EINTR ? -EINTR : -EIO;
	while ((n = poll(&pfd, 1, 0)) == 0)
		;
	if (n < 0 || read(h->pong, &v, sizeof(v)) != sizeof(v))
		return errno == EINTR ? -EINTR : -EIO;
	*us = (fdw_now_ns() - t0) / 1e3;
	return 0;
}

static int hop_measure(volatile sig_atomic_t *stop, double *hop_us, double *wake_us)
{
	struct hop h = { .ping = eventfd(0, EFD_CLOEXEC), .pong = eventfd(0, EFD_CLOEXEC) };
	sigset_t all, old;
	pthread_t th;
	uint64_t v = 1, c0, w0;
	double rt_us = 0;
	int rc;

	*hop_us = *wake_us = 0;
	if (h.ping < 0 || h.pong < 0) {
		rc = -errno;
		goto out;
	}
	/* Signals (a stop) go to this thread, whose reads they interrupt, never to the echo. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = -pthread_create(&th, NULL, hop_echo, &h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		goto out;
	/*
	 * Queued requests find dm-crypt's worker busy, so what a hop costs them is the CPU
	 * work of the handover, not the time spent waiting for a CPU to wake: the CPU time
	 * both threads used, per hop.
	 */
	c0 = cpu_ns();
	w0 = fdw_now_ns();
	rc = time_samples(one_round_trip, &h, stop, &rt_us);
	if (rc > 0) {
		double wall = (fdw_now_ns() - w0) / 1e3 / (2.0 * rc);

		*hop_us = (cpu_ns() - c0) / 1e3 / (2.0 * rc);
		/*
		 * The two take turns, so they cannot use more CPU than the time that passed;
		 * where the CPU clock is coarse (an emulated machine's, in ticks) it says so.
		 */
		if (*hop_us > wall)
			*hop_us = wall;
		rc = time_samples(one_idle_wake, &h, stop, wake_us);
	}
	rc = rc > 0 ? 0 : rc;
	__atomic_store_n(&h.done, 1, __ATOMIC_RELEASE);
	if (write(h.ping, &v, sizeof(v)) != sizeof(v))
		pthread_cancel(th);
	pthread_join(th, NULL);
	fdw_log(FDW_LOG_INFO, "predict: a round trip between two threads %.2f us, %.2f us of "
		"CPU a hop; waking a thread on an idle CPU %.2f us", rt_us, *hop_us, *wake_us);
out:
	if (h.ping >= 0)
		close(h.ping);
	if (h.pong >= 0)
		close(h.pong);
	return rc;
}

int fdw_predict_measure_request(struct fdw_bench_run *r, volatile sig_atomic_t *stop)
{
	unsigned char *in = calloc(1, REQ_LARGE), *out = calloc(1, REQ_LARGE);
	struct fdw_bench_test *t;
	double hop_us, wake_us;
	int rc;

	rc = in && out ? req_ciphers_measure(r, stop, in, out) : -ENOMEM;
	free(in);
	free(out);
	if (rc)
		return rc;
	if (r->n_tests >= FDW_BENCH_MAX_TESTS)
		return -ENOSPC;
	rc = hop_measure(stop, &hop_us, &wake_us);
	if (rc == -EINTR)
		return rc;
	if (rc) {
		fdw_log(FDW_LOG_INFO, "predict: cannot time a wakeup: %s", strerror(-rc));
		return 0;
	}
	t = &r->tests[r->n_tests++];
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", FDW_PREDICT_HOP_TEST);
	snprintf(t->kind, sizeof(t->kind), "cpu");
	snprintf(t->title, sizeof(t->title), "one thread waking another");
	snprintf(t->note, sizeof(t->note), "a request's hop to dm-crypt's work queue: the CPU "
		 "time of one between two threads, and the wait to wake one on an idle CPU");
	metric_add(t, FDW_PREDICT_HOP_KEY, hop_us);
	metric_add(t, FDW_PREDICT_WAKE_KEY, wake_us);
	return 0;
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

/* What the child measures. */
struct probe_call {
	const struct fdw_encrypt *e;
	enum fdw_bench_scale scale;
};

static int probe_child(void *ctx, int fd, int status_fd)
{
	static struct probe_reply r;	/* large: off the stack */
	const struct probe_call *call = ctx;
	const struct fdw_encrypt *e = call->e;
	struct sigaction sa = { .sa_handler = on_term };
	struct fdw_target tg = e->target;	/* a copy: the parent's stays as it is */

	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	(void)status_fd;
	setpgid(0, 0);
	quiet_stdio();
	r.rc = fdw_target_attach(&tg);
	if (r.rc)
		snprintf(r.why, sizeof(r.why), _("cannot attach a loop device to read it: %s."),
			 strerror(-r.rc));
	else
		r.rc = fdw_predict_measure(tg.device, call->scale, &probe_stop, &r.run, r.why,
					   sizeof(r.why));
	/* Our own loop device (autoclear) goes with its last descriptor; wait until it has. */
	if (tg.loop_attached && !tg.loop_handed_over && tg.loop_fd != e->target.loop_fd) {
		close(tg.loop_fd);
		fdw_loop_wait_detached(tg.device);
	}
	/* Stopped, the parent reads no more: the write ends with EPIPE. */
	return fdw_child_send(fd, &r, sizeof(r)) ? 1 : 0;
}

int fdw_predict_probe_start(struct fdw_predict_probe *p, const struct fdw_encrypt *e,
			    enum fdw_bench_scale scale)
{
	/* The child gets SIGTERM when this process dies, so that it detaches its loop device. */
	const struct fdw_child_opts o = { .parent_death_signal = SIGTERM };
	struct probe_call call = { .e = e, .scale = scale };	/* the child's copy is its own */

	memset(p, 0, sizeof(*p));
	p->child.reply_fd = p->child.status_fd = -1;
	p->buf = calloc(1, sizeof(struct probe_reply));
	p->rc = !p->buf ? -ENOMEM : !e->target_open ? -EBADF : 0;
	if (!p->rc)
		p->rc = fdw_child_start(&p->child, &o, probe_child, &call);
	if (p->rc) {
		snprintf(p->why, sizeof(p->why), _("the measurement could not start: %s."),
			 strerror(-p->rc));
		free(p->buf);
		p->buf = NULL;
		return p->rc;
	}
	fcntl(p->child.reply_fd, F_SETFL, O_NONBLOCK);
	fdw_log(FDW_LOG_INFO, "predict: measuring %s read-only (pid %ld)", e->target.part->address,
		(long)p->child.pid);
	return 0;
}

int fdw_predict_probe_poll(struct fdw_predict_probe *p)
{
	struct probe_reply *r = p->buf;

	if (p->done || !r)
		return p->done || p->rc ? 1 : 0;
	for (;;) {
		ssize_t n = read(p->child.reply_fd, (char *)r + p->got, sizeof(*r) - p->got);

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
	fdw_child_reap(&p->child);
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
	if (p->buf) {
		if (p->child.pid > 0)
			kill(p->child.pid, SIGTERM);
		fdw_child_reap(&p->child);
		free(p->buf);
	}
	memset(p, 0, sizeof(*p));
	p->child.reply_fd = p->child.status_fd = -1;
}
