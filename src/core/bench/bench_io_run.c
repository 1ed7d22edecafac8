/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The I/O benchmark's timed loop: io_uring or a thread pool, latencies, CPU. */
#include "config.h"

#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_io.h"
#include "base/clock.h"
#include "base/dropcache.h"

/* Latencies kept per test (8 bytes each); beyond this the first ones stand for all. */
#define LAT_CAP (4u << 20)

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: fast, good enough to spread offsets and fill buffers */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

uint64_t bench_io_rng_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s) || !s)
		s = fdw_now_ns() | 1;
	return s;
}

void bench_io_fill_random(unsigned char *buf, size_t len)
{
	uint64_t s = bench_io_rng_seed(), x;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x = rng_next(&s);
		memcpy(buf + i, &x, 8);
	}
}

static void lat_add(struct lat *l, uint64_t ns)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		uint64_t *v;

		if (cap > LAT_CAP)
			return;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile in microseconds. */
double bench_io_lat_pct_us(const struct lat *l, double pct)
{
	size_t i;

	if (!l->n)
		return 0;
	/* nearest rank: the smallest value with at least pct percent at or below it */
	i = (size_t)(pct / 100.0 * (double)l->n);
	if ((double)i < pct / 100.0 * (double)l->n)
		i++;
	if (i > 0)
		i--;
	if (i >= l->n)
		i = l->n - 1;
	return (double)l->v[i] / 1000.0;
}

static uint64_t next_offset(struct io_run *j, uint64_t *rng);

/* Does the next I/O write? A mixed test draws it, with its share of reads. */
static bool next_is_write(const struct io_run *j, uint64_t *rng)
{
	if (!j->spec->read_pct)
		return j->spec->write;
	return rng_next(rng) % 100 >= j->spec->read_pct;
}

static void prep(struct io_uring_sqe *sqe, struct io_run *j, unsigned char *buf, uint64_t *rng)
{
	uint64_t off = next_offset(j, rng);

	if (next_is_write(j, rng))
		io_uring_prep_write(sqe, j->fd, buf, j->spec->bs, off);
	else
		io_uring_prep_read(sqe, j->fd, buf, j->spec->bs, off);
}

static uint64_t next_offset(struct io_run *j, uint64_t *rng)
{
	uint64_t b;

	if (j->spec->random)
		b = rng_next(rng) % j->nblocks;
	else
		b = __atomic_fetch_add(&j->seq_next, 1, __ATOMIC_RELAXED) % j->nblocks;
	return b * j->spec->bs;
}

/*
 * Queue one I/O in @slot and submit it on its own, as fio does by default
 * (iodepth_batch_submit=1, which KDiskMark and the usual fio recipes keep). Submitting a
 * whole batch of refills in one call lets the block layer plug and dispatch them together:
 * at QD32 on a loop device that measured up to twice fio's IOPS with a quarter of its
 * median latency, a figure no fio-based tool would give for the same disk.
 */
static int submit_one(struct io_uring *ring, struct io_run *j, unsigned slot,
		      uint64_t *started, uint64_t *rng)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	prep(sqe, j, j->bufs + (size_t)slot * IO_MAX_BS, rng);
	io_uring_sqe_set_data64(sqe, slot);
	started[slot] = fdw_now_ns();
	return io_uring_submit(ring);
}

/* Reap every completion there is; the freed slots go to @freed. How many, or -errno. */
static int reap(struct io_uring *ring, struct io_run *j, const uint64_t *started,
		unsigned *freed, bool *done)
{
	struct io_uring_cqe *cqe;
	unsigned n = 0;
	int rc = io_uring_wait_cqe(ring, &cqe);

	if (rc < 0)
		return rc;
	do {
		unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);
		int res = cqe->res;
		uint64_t t = fdw_now_ns();

		io_uring_cqe_seen(ring, cqe);
		if (res != (int)j->spec->bs) {
			if (!j->err)
				j->err = res < 0 ? res : -EIO;
			*done = true;
		} else {
			lat_add(&j->lat, t - started[slot]);
			j->ios++;
		}
		if (t >= j->deadline_ns || (j->stop && *j->stop))
			*done = true;
		if (slot < IO_MAX_QD)
			freed[n++] = slot;
	} while (n < IO_MAX_QD && io_uring_peek_cqe(ring, &cqe) == 0);
	return (int)n;
}

static int run_uring(struct io_run *j)
{
	unsigned qd = j->spec->qd, inflight = 0, i, freed[IO_MAX_QD];
	uint64_t started[IO_MAX_QD], rng = bench_io_rng_seed();
	struct io_uring ring;
	bool done = false;
	int rc;

	rc = io_uring_queue_init(qd, &ring, 0);
	if (rc < 0)
		return rc;
	/* The clock starts once the ring exists: setting it up is not I/O (fio starts its
	 * clock after the engine's init too). */
	j->t0_ns = fdw_now_ns();
	j->deadline_ns = j->t0_ns + (uint64_t)(j->runtime * 1e9);
	for (i = 0; i < qd && !j->err; i++) {
		rc = submit_one(&ring, j, i, started, &rng);
		if (rc < 0)
			j->err = rc;
		else
			inflight++;
	}
	while (inflight) {
		rc = reap(&ring, j, started, freed, &done);
		if (rc == -EINTR)
			continue;
		if (rc < 0) {
			if (!j->err)
				j->err = rc;
			break;
		}
		inflight -= (unsigned)rc;
		for (i = 0; i < (unsigned)rc && !done; i++) {
			int s = submit_one(&ring, j, freed[i], started, &rng);

			if (s < 0) {
				if (!j->err)
					j->err = s;
				done = true;
			} else {
				inflight++;
			}
		}
	}
	j->end_ns = fdw_now_ns();
	io_uring_queue_exit(&ring);
	return 0;
}

struct io_thread {
	struct io_run *j;
	unsigned char *buf;
	struct lat lat;
	uint64_t ios;
	int err;
	pthread_t tid;
};

static void *io_thread_main(void *arg)
{
	struct io_thread *t = arg;
	struct io_run *j = t->j;
	unsigned bs = j->spec->bs;
	uint64_t rng = bench_io_rng_seed();

	while (fdw_now_ns() < j->deadline_ns && !(j->stop && *j->stop)) {
		uint64_t off = next_offset(j, &rng), t0 = fdw_now_ns();
		ssize_t n = next_is_write(j, &rng) ? pwrite(j->fd, t->buf, bs, (off_t)off) :
						     pread(j->fd, t->buf, bs, (off_t)off);

		if (n != (ssize_t)bs) {
			t->err = n < 0 ? -errno : -EIO;
			break;
		}
		lat_add(&t->lat, fdw_now_ns() - t0);
		t->ios++;
	}
	return NULL;
}

/* The fallback: one thread per queue slot, each with synchronous pread/pwrite. */
static int run_threads(struct io_run *j)
{
	struct io_thread th[IO_MAX_QD];
	unsigned qd = j->spec->qd, i, started = 0;
	int rc = 0;

	memset(th, 0, sizeof(th));
	j->t0_ns = fdw_now_ns();
	j->deadline_ns = j->t0_ns + (uint64_t)(j->runtime * 1e9);
	for (i = 0; i < qd; i++) {
		th[i].j = j;
		th[i].buf = j->bufs + (size_t)i * IO_MAX_BS;
		if (pthread_create(&th[i].tid, NULL, io_thread_main, &th[i]) != 0) {
			rc = -EAGAIN;
			j->deadline_ns = 0;	/* the started ones stop at once */
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i].tid, NULL);
	j->end_ns = fdw_now_ns();
	for (i = 0; i < started; i++) {
		j->ios += th[i].ios;
		if (th[i].err && !j->err)
			j->err = th[i].err;
		for (size_t k = 0; k < th[i].lat.n; k++)
			lat_add(&j->lat, th[i].lat.v[k]);
		free(th[i].lat.v);
	}
	return rc;
}

int bench_io_run_once(struct io_run *j, bool threads, bool direct)
{
	uint64_t c0, f0;
	int rc;

	/*
	 * Every test starts from the same cache state, the one fio's --invalidate=1 gives:
	 * none of our file cached. Where the page cache is still in the path (no O_DIRECT, or
	 * a loop device over an image file without direct I/O, whose image's pages are the
	 * host's page cache) the whole cache is dropped before each test, reads and writes
	 * alike, so that no test reads what the one before left behind.
	 */
	fdw_drop_caches(j->fd, !direct || j->cold_global);
	if (j->spec->write)	/* reads may have left the device's contents in the buffers */
		bench_io_fill_random(j->bufs, (size_t)j->spec->qd * IO_MAX_BS);
	j->ios = 0;
	j->lat.n = 0;
	j->err = 0;
	j->seq_next = 0;
	c0 = cpu_ns();
	rc = threads ? run_threads(j) : run_uring(j);
	if (rc)
		return rc;
	/* Writes count until they are on the disk: the fsync's time is added. */
	f0 = fdw_now_ns();
	if (j->spec->write && !j->err && fsync(j->fd) != 0)
		j->err = -errno;
	j->secs = (double)(j->end_ns - j->t0_ns + (fdw_now_ns() - f0)) / 1e9;
	j->cpu_pct = j->secs > 0 ? (double)(cpu_ns() - c0) / 1e9 / j->secs * 100.0 : 0;
	if (j->err)
		return j->err;
	qsort(j->lat.v, j->lat.n, sizeof(j->lat.v[0]), cmp_u64);
	return 0;
}
