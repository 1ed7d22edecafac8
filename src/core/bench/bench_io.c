/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fio-style I/O benchmark: the tests, their scratch file, and the run over all of them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_io.h"
#include "base/i18n.h"
#include "base/log.h"

/*
 * The default set is CrystalDiskMark's (and KDiskMark's), named as they name it, so figures
 * can be set beside theirs: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, each read and
 * write (1 thread each: Q is the queue depth), and a 70/30 random read/write mix. The
 * sequential QD32 tests run when asked for by name (--io-tests).
 */
static const struct io_spec io_specs[] = {
	{ "io.seqread.qd8", N_("SEQ1M Q8T1 read"), false, false, IO_MAX_BS, 8, 0, true },
	{ "io.seqwrite.qd8", N_("SEQ1M Q8T1 write"), true, false, IO_MAX_BS, 8, 0, true },
	{ "io.seqread.qd1", N_("SEQ1M Q1T1 read"), false, false, IO_MAX_BS, 1, 0, true },
	{ "io.seqwrite.qd1", N_("SEQ1M Q1T1 write"), true, false, IO_MAX_BS, 1, 0, true },
	{ "io.randread.qd32", N_("RND4K Q32T1 read"), false, true, 4096, 32, 0, true },
	{ "io.randwrite.qd32", N_("RND4K Q32T1 write"), true, true, 4096, 32, 0, true },
	{ "io.randread.qd1", N_("RND4K Q1T1 read"), false, true, 4096, 1, 0, true },
	{ "io.randwrite.qd1", N_("RND4K Q1T1 write"), true, true, 4096, 1, 0, true },
	{ "io.randrw70.qd32", N_("RND4K Q32T1 mix 70/30"), true, true, 4096, 32, 70, true },
	{ "io.seqread.qd32", N_("SEQ1M Q32T1 read"), false, false, IO_MAX_BS, 32, 0, false },
	{ "io.seqwrite.qd32", N_("SEQ1M Q32T1 write"), true, false, IO_MAX_BS, 32, 0, false },
};
#define N_SPECS (sizeof(io_specs) / sizeof(io_specs[0]))

enum { M_MBPS, M_IOPS, M_P50, M_P99, M_CPU, N_IO_METRICS };

/* --full, as the usual disk benchmarks run: 5 runs of each test, a pause between tests. */
#define FULL_REPEATS 5
#define FULL_INTERVAL_S 5

/* The pause between two tests of a full run, cut short by a stop; nonzero: stopped. */
static int interval(const struct fdw_bench_options *o)
{
	for (int i = 0; i < FULL_INTERVAL_S * 10; i++) {
		if (o->stop && *o->stop)
			return 1;
		usleep(100000);
	}
	return 0;
}

static double scale_runtime(enum fdw_bench_scale s)
{
	static const double seconds[] = { [FDW_BENCH_TINY] = 0.5, [FDW_BENCH_QUICK] = 2.0,
					  [FDW_BENCH_NORMAL] = 5.0, [FDW_BENCH_FULL] = 5.0 };

	return seconds[s];
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
		 (unsigned long long)(bench_io_rng_seed() & 0xffffff));
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
		return s->preset;
	while (*p) {
		size_t k = strcspn(p, ",");

		if ((k == n && !strncmp(p, id, n)) || (k == n + 3 && !strncmp(p, s->id, n + 3)))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

/* The tests @o selects that may run on its target, into @todo; how many. */
static size_t pick_tests(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			 const struct io_spec **todo)
{
	size_t n = 0, i;
	char sig[64];

	for (i = 0; i < N_SPECS; i++)
		if ((!io_specs[i].write || o->dir || o->allow_write) && selected(o, &io_specs[i]))
			todo[n++] = &io_specs[i];
	if (o->device && !o->allow_write) {
		if (bench_io_device_signature(o->device, sig, sizeof(sig)))
			append_note(r->note, sizeof(r->note), "Write tests left out: the device "
				    "holds data, and --allow-write would destroy it.");
		else
			append_note(r->note, sizeof(r->note), "Write tests left out: "
				    "--allow-write was not given.");
	}
	return n;
}

/* The scratch file (laid out) or the device, with O_DIRECT where it works; fd or -errno. */
static int open_target(const struct fdw_bench_options *o, struct fdw_bench_run *r,
		       unsigned char *bufs, uint64_t size, bool *direct, char *why, size_t len)
{
	int fd, rc;

	*direct = true;
	if (o->dir) {
		fd = open_scratch(o->dir, true);
		if (fd == -EINVAL) {
			*direct = false;
			fd = open_scratch(o->dir, false);
		}
	} else {
		int flags = (o->allow_write ? O_RDWR | O_EXCL : O_RDONLY) | O_CLOEXEC;

		fd = open(o->device, flags | O_DIRECT);
		if (fd < 0 && errno == EINVAL) {
			*direct = false;
			fd = open(o->device, flags);
		}
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0) {
		snprintf(why, len, _("%s: cannot open a test file: %s. Nothing was changed."),
			 r->target, strerror(-fd));
		return fd;
	}
	if (!*direct)
		append_note(r->note, sizeof(r->note), "No direct I/O here: the page cache is "
			    "part of these figures.");
	if (!o->dir)
		return fd;
	rc = lay_out(o, fd, bufs, size);
	if (!rc)
		return fd;
	if (rc == -EINTR)
		snprintf(why, len, _("Stopped. The test file was removed; nothing else was "
				     "changed."));
	else
		snprintf(why, len, _("%s: writing the test file failed: %s. It was removed; "
				     "nothing else was changed."), r->target, strerror(-rc));
	close(fd);
	return rc;
}

/* io_uring unless told otherwise or not available; true: the thread pool. */
static bool pick_engine(const struct fdw_bench_options *o, struct fdw_bench_run *r)
{
	struct io_uring ring;
	bool threads = true;
	int qrc;

	if (!o->io_engine || !strcmp(o->io_engine, "io_uring")) {
		qrc = io_uring_queue_init(IO_MAX_QD, &ring, 0);
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
	return threads;
}

/* Every repetition of every test in @todo; 0, or -errno with the sentence in @why. */
static int run_all(const struct fdw_bench_options *o, struct fdw_bench_run *r, struct io_run *j,
		   const struct io_spec **todo, size_t n_todo, int repeats, bool threads,
		   bool direct, uint64_t size, char *why, size_t len)
{
	struct fdw_bench_test *tests = &r->tests[r->n_tests];
	size_t i, step = 0, steps = n_todo * (size_t)repeats;
	int rc, rep;

	/* Repetitions go round all tests, so slow drift spreads over every test alike. */
	for (rep = 0; rep < repeats; rep++) {
		for (i = 0; i < n_todo; i++, step++) {
			struct fdw_bench_metric *m = tests[i].metrics;

			rc = report_progress(o, todo[i]->title, (double)step / (double)steps) ?
				     -EINTR : 0;
			if (!rc && step && o->scale == FDW_BENCH_FULL && interval(o))
				rc = -EINTR;
			j->spec = todo[i];
			j->nblocks = size / todo[i]->bs;
			if (!rc)
				rc = bench_io_run_once(j, threads, direct);
			if (rc == 0 && o->stop && *o->stop)
				rc = -EINTR;
			if (rc == -EINTR)
				snprintf(why, len, _("Stopped. The test file was removed; nothing "
						     "else was changed."));
			else if (rc)
				snprintf(why, len, _("%s: %s failed: %s. The test file was "
						     "removed; nothing else was changed."),
					 r->target, todo[i]->title, strerror(-rc));
			if (rc)
				return rc;
			add_sample(&m[M_MBPS], (double)j->ios * todo[i]->bs / j->secs / 1e6);
			add_sample(&m[M_IOPS], (double)j->ios / j->secs);
			add_sample(&m[M_P50], bench_io_lat_pct_us(&j->lat, 50));
			add_sample(&m[M_P99], bench_io_lat_pct_us(&j->lat, 99));
			add_sample(&m[M_CPU], j->cpu_pct);
		}
	}
	return 0;
}

int fdw_bench_io(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		 size_t len)
{
	const struct io_spec *todo[N_SPECS];
	struct fdw_bench_test *tests = &r->tests[r->n_tests];
	struct io_run j;
	size_t n_todo, i;
	bool threads, direct;
	unsigned char *bufs = NULL;
	int repeats = o->repeats > 0 ? o->repeats : 3, rc, fd;
	uint64_t size;

	if (o->repeats <= 0 && o->scale == FDW_BENCH_FULL)
		repeats = FULL_REPEATS;
	if (repeats > FDW_BENCH_MAX_REPEATS)
		repeats = FDW_BENCH_MAX_REPEATS;
	rc = bench_io_check_target(o, r, &size, why, len);
	if (rc)
		return rc;
	n_todo = pick_tests(o, r, todo);
	if (!n_todo) {
		snprintf(why, len, _("No I/O test matches that selection. Nothing was changed."));
		return -EINVAL;
	}
	if (r->n_tests + n_todo > FDW_BENCH_MAX_TESTS) {
		snprintf(why, len, _("Too many tests in one run. Nothing was changed."));
		return -E2BIG;
	}
	if (posix_memalign((void **)&bufs, IO_ALIGN, (size_t)IO_MAX_QD * IO_MAX_BS) != 0) {
		snprintf(why, len, _("Out of memory for the I/O buffers. Nothing was changed."));
		return -ENOMEM;
	}
	bench_io_fill_random(bufs, (size_t)IO_MAX_QD * IO_MAX_BS);
	fd = open_target(o, r, bufs, size, &direct, why, len);
	if (fd < 0) {
		free(bufs);
		return fd;
	}
	threads = pick_engine(o, r);
	memset(&j, 0, sizeof(j));
	j.cold_global = bench_io_buffered_loop(o->dir ? o->dir : o->device);
	if (j.cold_global)
		append_note(r->note, sizeof(r->note), "A loop device without direct I/O is "
			    "under this target: its image file's page cache was dropped before "
			    "each test, but writes and re-reads within a test still go through it.");
	for (i = 0; i < n_todo; i++)
		test_init(&tests[i], todo[i]);
	j.fd = fd;
	j.bufs = bufs;
	j.stop = o->stop;
	j.runtime = o->io_runtime > 0 ? o->io_runtime : scale_runtime(o->scale);
	r->io_size = size;
	r->io_runtime = j.runtime;
	rc = run_all(o, r, &j, todo, n_todo, repeats, threads, direct, size, why, len);
	if (rc)
		goto out;
	for (i = 0; i < n_todo; i++) {
		if (!direct)
			append_note(tests[i].note, sizeof(tests[i].note), "Buffered I/O.");
		fdw_bench_test_finish(&tests[i]);
	}
	r->n_tests += n_todo;
	if (!r->scale[0])
		snprintf(r->scale, sizeof(r->scale), "%s", fdw_bench_scale_name(o->scale));
	report_progress(o, N_("I/O tests done"), 1.0);
out:
	free(j.lat.v);
	close(fd);
	free(bufs);
	return rc;
}
