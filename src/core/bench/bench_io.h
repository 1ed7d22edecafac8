/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The I/O benchmark's parts, shared by its files: one test, the timed loop, the target. */
#ifndef FDW_BENCH_IO_H
#define FDW_BENCH_IO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

#define MIB (1024ULL * 1024)
#define IO_MIN_SIZE (64 * MIB)
#define IO_ALIGN 4096
#define IO_MAX_QD 32
#define IO_MAX_BS (1024 * 1024)

struct io_spec {
	const char *id;
	const char *title;	/* the name the usual disk benchmarks give it: "SEQ1M Q8T1 read" */
	bool write, random;	/* write: it writes at all (a mixed test too) */
	unsigned bs, qd;
	unsigned read_pct;	/* mixed: the share of reads in percent; 0: not mixed */
	bool preset;		/* in the default set (CrystalDiskMark's, and the mix) */
};

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
	bool cold_global;	/* drop the whole page cache before each test, not only ours */
	uint64_t t0_ns, deadline_ns, end_ns;	/* the timed window: I/O only, as fio */
	/* results */
	uint64_t ios;
	double secs, cpu_pct;
	struct lat lat;
	int err;
};

/* bench_io_run.c: the timed loop. */
uint64_t bench_io_rng_seed(void);
/* Fill @buf with pseudo-random bytes (a fresh seed each call). */
void bench_io_fill_random(unsigned char *buf, size_t len);
/* Nearest-rank percentile of @l (sorted by bench_io_run_once) in microseconds. */
double bench_io_lat_pct_us(const struct lat *l, double pct);
/* One repetition of one test with io_uring or (@threads) a thread pool; fills @j's results. */
int bench_io_run_once(struct io_run *j, bool threads, bool direct);

/* bench_io_target.c: what may be measured, and how much of it. */
uint64_t bench_io_scale_size(enum fdw_bench_scale s);
/* A filesystem signature or partition table on @dev: its name in @type, 1; 0 none. */
int bench_io_device_signature(const char *dev, char *type, size_t len);
/* fdw_bench_target_check, and the bytes the test will use in *@size. */
int bench_io_check_target(const struct fdw_bench_options *o, struct fdw_bench_run *r,
			  uint64_t *size, char *why, size_t len);
/*
 * Does @target (a directory: the device of its filesystem; or a block device) sit on a loop
 * device without direct I/O, at any depth (dm-crypt on a loop device, say)? Then the image
 * file's page cache in the host is part of every figure measured through it.
 */
bool bench_io_buffered_loop(const char *target);

#endif
