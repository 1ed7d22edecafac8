/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fio-style I/O benchmark: sequential and random reads and writes via io_uring or threads. */
#include "config.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "i18n.h"
#include "log.h"
#include "sysstate.h"
#include "units.h"

#define MIB (1024ULL * 1024)
#define IO_MIN_SIZE (64 * MIB)
#define IO_ALIGN 4096
#define IO_MAX_QD 32
#define IO_MAX_BS (1024 * 1024)
/* Latencies kept per test (8 bytes each); beyond this the first ones stand for all. */
#define LAT_CAP (4u << 20)

struct io_spec {
	const char *id;
	const char *title;
	bool write, random;
	unsigned bs, qd;
};

static const struct io_spec io_specs[] = {
	{ "io.seqread.qd1", N_("sequential read 1 MiB, QD1"), false, false, IO_MAX_BS, 1 },
	{ "io.seqread.qd32", N_("sequential read 1 MiB, QD32"), false, false, IO_MAX_BS, 32 },
	{ "io.seqwrite.qd1", N_("sequential write 1 MiB, QD1"), true, false, IO_MAX_BS, 1 },
	{ "io.seqwrite.qd32", N_("sequential write 1 MiB, QD32"), true, false, IO_MAX_BS, 32 },
	{ "io.randread.qd1", N_("random read 4 KiB, QD1"), false, true, 4096, 1 },
	{ "io.randread.qd32", N_("random read 4 KiB, QD32"), false, true, 4096, 32 },
	{ "io.randwrite.qd1", N_("random write 4 KiB, QD1"), true, true, 4096, 1 },
	{ "io.randwrite.qd32", N_("random write 4 KiB, QD32"), true, true, 4096, 32 },
};
#define N_SPECS (sizeof(io_specs) / sizeof(io_specs[0]))

enum { M_MBPS, M_IOPS, M_P50, M_P99, M_CPU, N_IO_METRICS };

struct lat {
	uint64_t *v;		/* nanoseconds */
	size_t n, cap;
};

/* One timed test: what to do and what was measured. */
struct io_run {
	int fd;
	const struct io_spec *spec;
	uint64_t nblocks;	/* of spec->bs in the file or device region */
	double runtime;
	unsigned char *bufs;	/* IO_MAX_QD buffers of IO_MAX_BS bytes */
	volatile sig_atomic_t *stop;
	uint64_t seq_next;	/* next sequential block, shared by the threads */
	uint64_t deadline_ns;
	/* results */
	uint64_t ios;
	double secs, cpu_pct;
	struct lat lat;
	int err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

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

static uint64_t rng_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s) || !s)
		s = now_ns() | 1;
	return s;
}

static void fill_random(unsigned char *buf, size_t len)
{
	uint64_t s = rng_seed(), x;
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
static double lat_pct_us(struct lat *l, double pct)
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

static uint64_t next_offset(struct io_run *j, uint64_t *rng)
{
	uint64_t b;

	if (j->spec->random)
		b = rng_next(rng) % j->nblocks;
	else
		b = __atomic_fetch_add(&j->seq_next, 1, __ATOMIC_RELAXED) % j->nblocks;
	return b * j->spec->bs;
}

static int run_uring(struct io_run *j)
{
	unsigned qd = j->spec->qd, bs = j->spec->bs, inflight = 0, i;
	uint64_t started[IO_MAX_QD], rng = rng_seed();
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	bool done = false;
	int rc;

	rc = io_uring_queue_init(qd, &ring, 0);
	if (rc < 0)
		return rc;
	for (i = 0; i < qd; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		uint64_t off = next_offset(j, &rng);

		if (j->spec->write)
			io_uring_prep_write(sqe, j->fd, j->bufs + (size_t)i * IO_MAX_BS, bs, off);
		else
			io_uring_prep_read(sqe, j->fd, j->bufs + (size_t)i * IO_MAX_BS, bs, off);
		io_uring_sqe_set_data64(sqe, i);
		started[i] = now_ns();
		inflight++;
	}
	rc = io_uring_submit(&ring);
	if (rc < 0) {
		io_uring_queue_exit(&ring);
		return rc;
	}
	while (inflight) {
		rc = io_uring_wait_cqe(&ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0) {
			j->err = rc;
			break;
		}
		do {
			unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);
			int res = cqe->res;
			uint64_t t = now_ns();

			io_uring_cqe_seen(&ring, cqe);
			inflight--;
			if (res != (int)bs) {
				if (!j->err)
					j->err = res < 0 ? res : -EIO;
				done = true;
			} else {
				lat_add(&j->lat, t - started[slot]);
				j->ios++;
			}
			if (t >= j->deadline_ns || (j->stop && *j->stop))
				done = true;
			if (!done && slot < qd) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
				uint64_t off = next_offset(j, &rng);
				unsigned char *b = j->bufs + (size_t)slot * IO_MAX_BS;

				if (j->spec->write)
					io_uring_prep_write(sqe, j->fd, b, bs, off);
				else
					io_uring_prep_read(sqe, j->fd, b, bs, off);
				io_uring_sqe_set_data64(sqe, slot);
				started[slot] = now_ns();
				inflight++;
			}
		} while (io_uring_peek_cqe(&ring, &cqe) == 0);
		if (!done || inflight) {
			rc = io_uring_submit(&ring);
			if (rc < 0 && !j->err)
				j->err = rc;
		}
	}
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
	uint64_t rng = rng_seed();

	while (now_ns() < j->deadline_ns && !(j->stop && *j->stop)) {
		uint64_t off = next_offset(j, &rng), t0 = now_ns();
		ssize_t n = j->spec->write ? pwrite(j->fd, t->buf, bs, (off_t)off) :
					     pread(j->fd, t->buf, bs, (off_t)off);

		if (n != (ssize_t)bs) {
			t->err = n < 0 ? -errno : -EIO;
			break;
		}
		lat_add(&t->lat, now_ns() - t0);
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
	for (i = 0; i < started; i++) {
		pthread_join(th[i].tid, NULL);
		j->ios += th[i].ios;
		if (th[i].err && !j->err)
			j->err = th[i].err;
		for (size_t k = 0; k < th[i].lat.n; k++)
			lat_add(&j->lat, th[i].lat.v[k]);
		free(th[i].lat.v);
	}
	return rc;
}

/*
 * Empty the page cache: of the whole system when @all, else of this file only. With
 * O_DIRECT reads never come from the cache anyway; dropping everyone's cache before every
 * test would make the rest of the machine read back its files while we measure.
 */
static void drop_caches(int fd, bool all)
{
	int p;

	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (!all)
		return;
	p = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (p >= 0) {
		if (write(p, "1", 1) != 1)
			fdw_log(FDW_LOG_DEBUG, "bench: drop_caches refused: %s", strerror(errno));
		close(p);
	}
}

/* One repetition of one test; fills @j's results. */
static int io_run_once(struct io_run *j, bool threads, bool direct)
{
	uint64_t t0, c0;
	int rc;

	if (!j->spec->write)
		drop_caches(j->fd, !direct);
	else	/* reads may have left the device's contents (zeros, say) in the buffers */
		fill_random(j->bufs, (size_t)j->spec->qd * IO_MAX_BS);
	j->ios = 0;
	j->lat.n = 0;
	j->err = 0;
	j->seq_next = 0;
	c0 = cpu_ns();
	t0 = now_ns();
	j->deadline_ns = t0 + (uint64_t)(j->runtime * 1e9);
	rc = threads ? run_threads(j) : run_uring(j);
	if (rc)
		return rc;
	/* Writes count until they are on the disk. */
	if (j->spec->write && !j->err && fsync(j->fd) != 0)
		j->err = -errno;
	j->secs = (double)(now_ns() - t0) / 1e9;
	j->cpu_pct = j->secs > 0 ? (double)(cpu_ns() - c0) / 1e9 / j->secs * 100.0 : 0;
	if (j->err)
		return j->err;
	qsort(j->lat.v, j->lat.n, sizeof(j->lat.v[0]), cmp_u64);
	return 0;
}

static uint64_t scale_size(enum fdw_bench_scale s)
{
	static const uint64_t mib[] = { [FDW_BENCH_TINY] = 64, [FDW_BENCH_QUICK] = 256,
					[FDW_BENCH_NORMAL] = 1024, [FDW_BENCH_FULL] = 4096 };

	return mib[s] * MIB;
}

static double scale_runtime(enum fdw_bench_scale s)
{
	static const double seconds[] = { [FDW_BENCH_TINY] = 0.5, [FDW_BENCH_QUICK] = 2.0,
					  [FDW_BENCH_NORMAL] = 5.0, [FDW_BENCH_FULL] = 10.0 };

	return seconds[s];
}

/* The source of the filesystem mounted at device number @dev ("" when unknown). */
static void mount_source_of(dev_t dev, char *buf, size_t len)
{
	struct fdw_sysstate st;
	size_t i;

	buf[0] = '\0';
	if (fdw_sysstate_load(&st) != 0)
		return;
	for (i = 0; i < st.n_mounts; i++) {
		if (st.mounts[i].major == major(dev) && st.mounts[i].minor == minor(dev) &&
		    st.mounts[i].source && st.mounts[i].source[0] == '/') {
			snprintf(buf, len, "%s", st.mounts[i].source);
			break;
		}
	}
	fdw_sysstate_free(&st);
}

/* A filesystem signature or partition table on @dev: its name in @type, 1; 0 none. */
static int device_signature(const char *dev, char *type, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *v = NULL;
	int rc, found = 0;

	if (!pr)
		return 0;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) != 0)
			blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL);
		snprintf(type, len, "%s", v ? v : "data");
		found = 1;
	} else if (rc == -2) {
		snprintf(type, len, "%s", "several signatures");
		found = 1;
	}
	blkid_free_probe(pr);
	return found;
}

/* How much the I/O test uses on a filesystem with @avail bytes free, or 0 if too little. */
static uint64_t dir_io_size(const struct fdw_bench_options *o, uint64_t avail, uint64_t *need)
{
	uint64_t size;

	if (o->io_size) {
		size = o->io_size / IO_MAX_BS * IO_MAX_BS;
		*need = 2 * size;
		return size && size <= avail / 2 ? size : 0;
	}
	size = scale_size(o->scale);
	if (size > avail / 2)
		size = avail / 2 / MIB * MIB;
	*need = 2 * IO_MIN_SIZE;
	return size >= IO_MIN_SIZE ? size : 0;
}

static int check_dir(const struct fdw_bench_options *o, struct fdw_bench_run *r,
		     uint64_t *size, char *why, size_t len)
{
	char a[32], b[32];
	struct statvfs vfs;
	struct stat st;
	uint64_t avail, need;

	snprintf(r->target, sizeof(r->target), "%s", o->dir);
	if (stat(o->dir, &st) != 0) {
		int err = errno;

		snprintf(why, len, _("%s: %s. Nothing was changed. Name an existing directory on "
				     "a mounted filesystem, or a block device."), o->dir,
			 strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, _("%s is neither a directory nor a block device. Nothing was "
				     "changed. Name a directory on the mounted filesystem to "
				     "measure, or a block device."), o->dir);
		return -ENOTDIR;
	}
	if (statvfs(o->dir, &vfs) != 0) {
		int err = errno;

		snprintf(why, len, _("%s: cannot read its filesystem's state: %s. Nothing was "
				     "changed."), o->dir, strerror(err));
		return -err;
	}
	mount_source_of(st.st_dev, r->device, sizeof(r->device));
	if ((vfs.f_flag & ST_RDONLY) || access(o->dir, W_OK) != 0) {
		bool ro = (vfs.f_flag & ST_RDONLY) || errno == EROFS;

		snprintf(why, len, ro ? _("%s is on a read-only filesystem; the test needs to "
					  "write a scratch file there. Nothing was changed. "
					  "Remount it read-write or choose another directory.") :
					_("%s cannot be written to (permission denied). Nothing "
					  "was changed. Run as root or choose another directory."),
			 o->dir);
		return ro ? -EROFS : -EACCES;
	}
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	*size = dir_io_size(o, avail, &need);
	if (!*size) {
		snprintf(why, len, _("%s has too little free space: the test needs %s free "
				     "(its file uses at most half), %s is available. Nothing was "
				     "changed. Free some space or choose another filesystem."),
			 o->dir, fdw_format_size(need, a, sizeof(a)),
			 fdw_format_size(avail, b, sizeof(b)));
		return -ENOSPC;
	}
	return 0;
}

static int check_device(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			uint64_t *size, char *why, size_t len)
{
	uint64_t dev_size = 0;
	struct stat st;
	char sig[64];
	int fd, ro = 0;

	snprintf(r->target, sizeof(r->target), "%s", o->device);
	snprintf(r->device, sizeof(r->device), "%s", o->device);
	if (stat(o->device, &st) != 0) {
		int err = errno;

		snprintf(why, len, _("%s: %s. Nothing was changed. Name an existing directory on "
				     "a mounted filesystem, or a block device."), o->device,
			 strerror(err));
		return -err;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(why, len, _("%s is neither a directory nor a block device. Nothing was "
				     "changed. Name a directory on the mounted filesystem to "
				     "measure, or a block device."), o->device);
		return -ENOTBLK;
	}
	fd = open(o->device, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &dev_size) != 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		snprintf(why, len, _("%s cannot be opened: %s. Nothing was changed."), o->device,
			 strerror(err));
		return -err;
	}
	if (ioctl(fd, BLKROGET, &ro) != 0)
		ro = 0;
	close(fd);
	*size = o->io_size ? o->io_size : scale_size(o->scale);
	if (*size > dev_size)
		*size = dev_size;
	*size = *size / IO_MAX_BS * IO_MAX_BS;
	if (*size < 4 * MIB) {
		snprintf(why, len, _("%s is too small to measure (under 4 MiB). Nothing was "
				     "changed."), o->device);
		return -ENOSPC;
	}
	if (!o->allow_write)
		return 0;
	if (ro) {
		snprintf(why, len, _("%s is read-only, so it cannot be written to. Nothing was "
				     "changed. Leave out --allow-write to measure reading only."),
			 o->device);
		return -EROFS;
	}
	fd = open(o->device, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == EBUSY)
			snprintf(why, len, _("%s is in use (mounted, swap, or held by "
					     "another device), so it must not be written to. "
					     "Nothing was changed. Unmount it first, or leave out "
					     "--allow-write to measure reading only."), o->device);
		else
			snprintf(why, len, _("%s cannot be opened for writing: %s. Nothing was "
					     "changed."), o->device, strerror(err));
		return -err;
	}
	close(fd);
	if (device_signature(o->device, sig, sizeof(sig))) {
		snprintf(why, len, _("%s holds data (%s); writing to it would destroy it. Nothing "
				     "was changed. Leave out --allow-write to measure reading "
				     "only, or erase it first (wipefs -a %s) if the data is not "
				     "needed."), o->device, sig, o->device);
		return -ENOTEMPTY;
	}
	return 0;
}

static int check_target(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			uint64_t *size, char *why, size_t len)
{
	if (!!o->dir == !!o->device) {
		snprintf(why, len, _("Name one target: a directory or a block device. Nothing was "
				     "changed."));
		return -EINVAL;
	}
	return o->dir ? check_dir(o, r, size, why, len) : check_device(o, r, size, why, len);
}

int fdw_bench_target_check(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			   char *why, size_t len)
{
	uint64_t size;

	return check_target(o, r, &size, why, len);
}

/* An unnamed file in @dir (O_TMPFILE) or one unlinked at once: it never outlives us. */
static int open_scratch(const char *dir, bool direct)
{
	int flags = O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0);
	char path[PATH_MAX];
	int fd;

	fd = open(dir, flags | O_TMPFILE, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd >= 0 ? fd : -errno;
	snprintf(path, sizeof(path), "%s/.fdewiz-bench.%ld.%llx", dir, (long)getpid(),
		 (unsigned long long)(rng_seed() & 0xffffff));
	fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

static int report_progress(const struct fdw_bench_options *o, const char *what, double f)
{
	if (o->stop && *o->stop)
		return 1;
	return o->progress ? o->progress(what, f, o->progress_ctx) : 0;
}

/* Write the whole scratch file once with random data, as a reference tool lays it out. */
static int lay_out(const struct fdw_bench_options *o, int fd, unsigned char *bufs,
		   uint64_t size)
{
	uint64_t off;

	for (off = 0; off < size; off += IO_MAX_BS) {
		unsigned slot = (unsigned)(off / IO_MAX_BS) % IO_MAX_QD;
		ssize_t n = pwrite(fd, bufs + (size_t)slot * IO_MAX_BS, IO_MAX_BS, (off_t)off);

		if (n != IO_MAX_BS)
			return n < 0 ? -errno : -ENOSPC;
		if ((off / IO_MAX_BS) % 64 == 0 &&
		    report_progress(o, N_("preparing the test file"), (double)off / (double)size))
			return -EINTR;
	}
	return fsync(fd) ? -errno : 0;
}

static void metric_init(struct fdw_bench_metric *m, const char *key, const char *unit,
			bool higher)
{
	snprintf(m->key, sizeof(m->key), "%s", key);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->higher_is_better = higher;
}

static void test_init(struct fdw_bench_test *t, const struct io_spec *s)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", s->id);
	snprintf(t->kind, sizeof(t->kind), "io");
	snprintf(t->title, sizeof(t->title), "%s", s->title);
	metric_init(&t->metrics[M_MBPS], "mbps", "MB/s", true);
	metric_init(&t->metrics[M_IOPS], "iops", "IOPS", true);
	metric_init(&t->metrics[M_P50], "lat_p50_us", "us", false);
	metric_init(&t->metrics[M_P99], "lat_p99_us", "us", false);
	metric_init(&t->metrics[M_CPU], "cpu_pct", "%", false);
	t->n_metrics = N_IO_METRICS;
	t->primary = s->random ? M_IOPS : M_MBPS;
}

static void add_sample(struct fdw_bench_metric *m, double v)
{
	if (m->n < FDW_BENCH_MAX_REPEATS)
		m->samples[m->n++] = v;
}

static void append_note(char *note, size_t len, const char *text)
{
	size_t used = strlen(note);

	if (used + 1 < len)
		snprintf(note + used, len - used, "%s%s", used ? " " : "", text);
}

/* Is @s in the comma-separated list o->io_tests (ids with or without "io.")? */
static bool selected(const struct fdw_bench_options *o, const struct io_spec *s)
{
	const char *p = o->io_tests, *id = s->id + 3;
	size_t n = strlen(id);

	if (!p)
		return true;
	while (*p) {
		size_t k = strcspn(p, ",");

		if ((k == n && !strncmp(p, id, n)) || (k == n + 3 && !strncmp(p, s->id, n + 3)))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

int fdw_bench_io(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		 size_t len)
{
	const struct io_spec *todo[N_SPECS];
	struct fdw_bench_test *tests;
	struct io_run j;
	size_t n_todo = 0, i, step = 0, steps;
	bool threads, direct = true;
	unsigned char *bufs = NULL;
	int repeats = o->repeats > 0 ? o->repeats : 3, rc, fd = -1, rep;
	uint64_t size;
	char sig[64];

	if (repeats > FDW_BENCH_MAX_REPEATS)
		repeats = FDW_BENCH_MAX_REPEATS;
	rc = check_target(o, r, &size, why, len);
	if (rc)
		return rc;
	for (i = 0; i < N_SPECS; i++)
		if ((!io_specs[i].write || o->dir || o->allow_write) && selected(o, &io_specs[i]))
			todo[n_todo++] = &io_specs[i];
	if (!n_todo) {
		snprintf(why, len, _("No I/O test matches that selection. Nothing was changed."));
		return -EINVAL;
	}
	if (r->n_tests + n_todo > FDW_BENCH_MAX_TESTS) {
		snprintf(why, len, _("Too many tests in one run. Nothing was changed."));
		return -E2BIG;
	}
	if (o->device && !o->allow_write) {
		if (device_signature(o->device, sig, sizeof(sig)))
			append_note(r->note, sizeof(r->note), "Write tests left out: the device "
				    "holds data, and --allow-write would destroy it.");
		else
			append_note(r->note, sizeof(r->note), "Write tests left out: "
				    "--allow-write was not given.");
	}

	memset(&j, 0, sizeof(j));
	if (posix_memalign((void **)&bufs, IO_ALIGN, (size_t)IO_MAX_QD * IO_MAX_BS) != 0) {
		snprintf(why, len, _("Out of memory for the I/O buffers. Nothing was changed."));
		return -ENOMEM;
	}
	fill_random(bufs, (size_t)IO_MAX_QD * IO_MAX_BS);

	if (o->dir) {
		fd = open_scratch(o->dir, true);
		if (fd == -EINVAL) {
			direct = false;
			fd = open_scratch(o->dir, false);
		}
	} else {
		int flags = (o->allow_write ? O_RDWR | O_EXCL : O_RDONLY) | O_CLOEXEC;

		fd = open(o->device, flags | O_DIRECT);
		if (fd < 0 && errno == EINVAL) {
			direct = false;
			fd = open(o->device, flags);
		}
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0) {
		snprintf(why, len, _("%s: cannot open a test file: %s. Nothing was changed."),
			 r->target, strerror(-fd));
		free(bufs);
		return fd;
	}
	if (!direct)
		append_note(r->note, sizeof(r->note), "No direct I/O here: the page cache is "
			    "part of these figures.");
	if (o->dir) {
		rc = lay_out(o, fd, bufs, size);
		if (rc) {
			if (rc == -EINTR)
				snprintf(why, len, _("Stopped. The test file was removed; nothing "
						     "else was changed."));
			else
				snprintf(why, len, _("%s: writing the test file failed: %s. It was "
						     "removed; nothing else was changed."),
					 r->target, strerror(-rc));
			goto out;
		}
	}

	if (o->io_engine && strcmp(o->io_engine, "io_uring"))
		threads = true;
	else {
		struct io_uring ring;
		int qrc = io_uring_queue_init(IO_MAX_QD, &ring, 0);

		threads = qrc < 0;
		if (threads) {
			fdw_log(FDW_LOG_INFO, "bench: io_uring unavailable (%s); using threads",
				strerror(-qrc));
			append_note(r->note, sizeof(r->note), "io_uring is not available here; "
				    "a pool of threads with pread/pwrite stood in.");
		} else {
			io_uring_queue_exit(&ring);
		}
	}
	snprintf(r->io_engine, sizeof(r->io_engine), "%s", threads ? "threads" : "io_uring");
	drop_caches(fd, true);

	tests = &r->tests[r->n_tests];
	for (i = 0; i < n_todo; i++)
		test_init(&tests[i], todo[i]);
	j.fd = fd;
	j.bufs = bufs;
	j.stop = o->stop;
	j.runtime = o->io_runtime > 0 ? o->io_runtime : scale_runtime(o->scale);
	r->io_size = size;
	r->io_runtime = j.runtime;
	steps = n_todo * (size_t)repeats;
	/* Repetitions go round all tests, so slow drift spreads over every test alike. */
	for (rep = 0; rep < repeats; rep++) {
		for (i = 0; i < n_todo; i++, step++) {
			struct fdw_bench_metric *m = tests[i].metrics;

			if (report_progress(o, todo[i]->title, (double)step / (double)steps)) {
				rc = -EINTR;
				snprintf(why, len, _("Stopped. The test file was removed; nothing "
						     "else was changed."));
				goto out;
			}
			j.spec = todo[i];
			j.nblocks = size / todo[i]->bs;
			rc = io_run_once(&j, threads, direct);
			if (rc == 0 && o->stop && *o->stop)
				rc = -EINTR;
			if (rc) {
				if (rc == -EINTR)
					snprintf(why, len, _("Stopped. The test file was removed; "
							     "nothing else was changed."));
				else
					snprintf(why, len, _("%s: %s failed: %s. The test file "
							     "was removed; nothing else was "
							     "changed."), r->target,
						 todo[i]->title, strerror(-rc));
				goto out;
			}
			add_sample(&m[M_MBPS], (double)j.ios * todo[i]->bs / j.secs / 1e6);
			add_sample(&m[M_IOPS], (double)j.ios / j.secs);
			add_sample(&m[M_P50], lat_pct_us(&j.lat, 50));
			add_sample(&m[M_P99], lat_pct_us(&j.lat, 99));
			add_sample(&m[M_CPU], j.cpu_pct);
		}
	}
	for (i = 0; i < n_todo; i++) {
		if (!direct)
			append_note(tests[i].note, sizeof(tests[i].note), "Buffered I/O.");
		fdw_bench_test_finish(&tests[i]);
	}
	r->n_tests += n_todo;
	if (!r->scale[0])
		snprintf(r->scale, sizeof(r->scale), "%s", fdw_bench_scale_name(o->scale));
	report_progress(o, N_("I/O tests done"), 1.0);
	rc = 0;
out:
	free(j.lat.v);
	if (fd >= 0)
		close(fd);
	free(bufs);
	return rc;
}
