/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Benchmarks: the result model every kind of benchmark (I/O, build, cipher) fills in,
 * the options they share, and how results are kept and compared. No printing here;
 * the front-ends render results.
 */
#ifndef FDW_BENCH_H
#define FDW_BENCH_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define FDW_BENCH_MAX_METRICS 8
#define FDW_BENCH_MAX_TESTS 40
#define FDW_BENCH_MAX_REPEATS 9

/* One measured quantity of one test, over its repetitions. */
struct fdw_bench_metric {
	char key[24];		/* stable: "mbps", "iops", "lat_p50_us", "wall_s", "cpu_pct" */
	char unit[12];		/* as shown: "MB/s", "IOPS", "us", "s", "%" */
	bool higher_is_better;
	size_t n;		/* repetitions measured */
	double samples[FDW_BENCH_MAX_REPEATS];
	double median, min, max;
	double spread_pct;	/* (max - min) / median * 100 */
};

/* One test (for example sequential read at queue depth 1). */
struct fdw_bench_test {
	char id[40];		/* stable key: "io.seqread.qd1", "build.compile", "cipher.aes-xts-512" */
	char kind[8];		/* "io", "build", "cipher" */
	char title[64];		/* English, short: "sequential read 1 MiB, QD1" */
	size_t n_metrics;
	size_t primary;		/* index of the headline metric */
	struct fdw_bench_metric metrics[FDW_BENCH_MAX_METRICS];
	bool unstable;		/* the headline spread is too large to trust */
	char note[160];		/* English; why unstable, fallback used, ... */
};

/* One run of `fdewiz bench` on one target, as saved and compared. */
struct fdw_bench_run {
	char label[32];		/* "before", "after", or what the user chose */
	char target[PATH_MAX];	/* directory or device benchmarked */
	char device[PATH_MAX];	/* the block device under it, where known */
	char fdewiz_version[32];
	char kernel[128];	/* uname -r */
	char cpu_model[128];
	char cipher[64];	/* of the volume, "" when plain */
	char io_engine[16];	/* "io_uring", "threads", ... */
	char scale[8];		/* "quick", "normal", "full" */
	time_t date;
	char note[256];		/* English: what was left out of this run and why */
	uint64_t io_size;	/* bytes of the I/O test file or device region, 0 if none */
	double io_runtime;	/* seconds of each I/O test and repetition */
	size_t n_tests;
	struct fdw_bench_test tests[FDW_BENCH_MAX_TESTS];
};

/* TINY is for tests and slow emulated machines: seconds, and figures only roughly right. */
enum fdw_bench_scale { FDW_BENCH_QUICK, FDW_BENCH_NORMAL, FDW_BENCH_FULL, FDW_BENCH_TINY };

/* Return nonzero to stop early. @what is an English test title, @fraction 0..1. */
typedef int (*fdw_bench_progress_fn)(const char *what, double fraction, void *ctx);

struct fdw_bench_options {
	const char *dir;		/* scratch directory on a mounted filesystem, or NULL */
	const char *device;		/* block device, or NULL (exactly one of dir/device) */
	bool allow_write;		/* device: the user allowed writing (destroys data) */
	enum fdw_bench_scale scale;
	int repeats;			/* 0: 3 */
	bool real_cc;			/* build: compile the generated C with cc for real */
	volatile sig_atomic_t *stop;	/* nonzero: stop at the next step */
	fdw_bench_progress_fn progress;
	void *progress_ctx;
	/* I/O: exact parameters, to run the same thing as a reference tool (0: by scale). */
	uint64_t io_size;		/* bytes of the scratch file or of the device used */
	double io_runtime;		/* seconds per test and repetition */
	const char *io_engine;		/* NULL: io_uring, else the thread pool; "threads" */
	const char *io_tests;		/* NULL: all, or a list: "seqread.qd1,randwrite.qd32" */
	bool skip_pbkdf;		/* cipher: leave out the key derivation's timing */
};

/*
 * Each appends its tests to @r. Return 0, or -errno with one sentence in @why saying
 * what happened and that nothing was changed (the scratch files are removed).
 */
int fdw_bench_io(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		 size_t len);
int fdw_bench_build(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		    size_t len);
int fdw_bench_cipher(const struct fdw_bench_options *o, struct fdw_bench_run *r, char *why,
		     size_t len);

/* Median, min, max and spread of @m from its samples. */
void fdw_bench_metric_finish(struct fdw_bench_metric *m);
/* Sorts the @n (> 0) values of @v in place, smallest first, and returns their median. */
double fdw_median_sort(double *v, size_t n);

/*
 * The block device under @path: @path itself when it is one, else the source of the
 * filesystem it is on ("" when unknown).
 */
void fdw_bench_device_of(const char *path, char *buf, size_t len);

/*
 * Fill date, kernel, CPU model and version of @r, its device from its target when not
 * known yet, and its cipher when that device is dm-crypt.
 */
void fdw_bench_run_describe(struct fdw_bench_run *r);

/* The run as the JSON object that is saved (the caller puts it). */
struct json_object;
struct json_object *fdw_bench_run_to_json(const struct fdw_bench_run *r);

/*
 * Before anything runs: TARGET exists, is a directory on a writable filesystem with room
 * for the I/O test file, or a block device that may be read (and written with allow_write:
 * unused, no data on it). Fills @r's target and device. 0, or -errno and a sentence.
 */
int fdw_bench_target_check(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			   char *why, size_t len);

/* Atomic save / load as JSON. */
int fdw_bench_run_save(const struct fdw_bench_run *r, const char *path);
int fdw_bench_run_load(const char *path, struct fdw_bench_run *r);

/* "tiny", "quick", "normal", "full": 0, or -EINVAL. */
int fdw_bench_scale_parse(const char *name, enum fdw_bench_scale *out);
const char *fdw_bench_scale_name(enum fdw_bench_scale s);

/* Where results are kept by default: <state dir>/bench. */
const char *fdw_bench_dir(void);
/* Create fdw_bench_dir() (and the state directory) when missing; 0 or -errno. */
int fdw_bench_dir_ensure(void);

/* Default file of @r: <dir>/<label or "bench">-<device or dirname>-<YYYYmmdd-HHMMSS>.json */
void fdw_bench_default_path(const struct fdw_bench_run *r, char *buf, size_t len);

/* The metric of @t with @key, or NULL. */
const struct fdw_bench_metric *fdw_bench_metric_get(const struct fdw_bench_test *t,
						    const char *key);

/* Mark @t unstable (with a note) when its headline spread exceeds this many percent. */
#define FDW_BENCH_UNSTABLE_PCT 20.0
void fdw_bench_test_finish(struct fdw_bench_test *t);

/* One line of a before/after comparison. */
struct fdw_bench_delta {
	const struct fdw_bench_test *plain, *encrypted;
	double ratio_pct;	/* encrypted / plain * 100, for the headline metric */
	double slowdown_pct;	/* 100 - encrypted speed in % of plain (times inverted):
				 * positive when worse, never above 100 */
	double spread_pct;	/* the larger of the two spreads */
	double cpu_plain, cpu_encrypted;	/* percent of one core, -1 unknown */
	bool suspicious;	/* encrypted better beyond the spread: cache or sync artifact */
	bool unstable;
};

/* Pair the tests of two runs by id; returns how many deltas were filled. */
size_t fdw_bench_compare(const struct fdw_bench_run *plain, const struct fdw_bench_run *enc,
			 struct fdw_bench_delta *out, size_t max);

#endif
