/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The prediction shown before a conversion: how fast the encrypted volume will be, per
 * benchmark line, from a read-only measurement of the partition and the cipher benchmark
 * of this CPU. The model is stated in doc/manual.md ("How the prediction is made").
 */
#ifndef FDW_PREDICT_H
#define FDW_PREDICT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/child.h"
#include "bench/bench.h"
#include "state/job.h"
#include "plan.h"

struct fdw_encrypt;

/*
 * The model, for one stream of requests of @bytes each (4096 for the RND4K lines, 1 MiB
 * for SEQ1M). @disk is the plain figure at that queue depth and @cipher the cipher's bulk
 * speed on one core, both in MB/s (bytes per microsecond); @overhead_us the fixed cost of
 * one request on the encrypted volume (fdw_predict_measure_request()). One core's work per
 * request is cpu = bytes/cipher + overhead_us.
 * One at a time (@qd 1) the disk and the CPU take turns, so the times add up:
 * bytes / (bytes/disk + cpu). With several in flight they overlap, and up to
 * min(@qd, @cores) cores each work on one request (dm-crypt's work queue runs on every
 * CPU): min(disk, bytes * min(qd, cores) / cpu). 0 when a figure is unknown (<= 0).
 */
double fdw_predict_stream(double disk, double cipher, double bytes, double overhead_us,
			  unsigned qd, unsigned cores);

/*
 * Where the measurement keeps the per-request cost: metric "call_us" of each cipher test
 * (one 4 KiB crypto call's fixed part, in microseconds) and test "cpu.wakeup", metrics
 * "hop_us" (one thread waking another and that one running: a work-queue hop while both
 * are busy) and "wake_us" (the same when the woken one's CPU had gone idle, as for a
 * request alone in flight).
 */
#define FDW_PREDICT_CALL_KEY "call_us"
#define FDW_PREDICT_HOP_TEST "cpu.wakeup"
#define FDW_PREDICT_HOP_KEY "hop_us"
#define FDW_PREDICT_WAKE_KEY "wake_us"

/* The cipher benchmark test of a plan's cipher ("cipher.aes-xts-512"), or NULL. */
const char *fdw_predict_cipher_test(const char *cipher, const char *mode, unsigned key_bits);

/*
 * From @measured (the read-only I/O tests of the partition, the cipher tests of this CPU
 * and the per-request cost) and the cipher @cipher_test, fill @out (label "predicted")
 * with one test per benchmark line, same ids and metrics as `fdewiz bench`: the expected
 * figure of the encrypted volume (the "mbps" or "iops" headline), "plain_mbps"/"plain_iops"
 * (the disk figure of the same line it came from: a write line only where @measured has
 * the disk's write test, never from a read figure), "crypto_cpu_pct" (percent
 * of one core spent on encryption at that speed) and "request_us" (the fixed cost per
 * request counted: the crypto call, one work-queue hop for a read, two for a write).
 * @cpus: online CPUs. Returns how many lines could be predicted (0: the disk or the cipher
 * figure is missing). Without the per-request figures the term is left out (0).
 */
size_t fdw_predict_make(const struct fdw_bench_run *measured, const char *cipher_test,
			unsigned cpus, struct fdw_bench_run *out);

/* fdw_predict_make() for the cipher of @pl, on this machine's online CPUs. */
size_t fdw_predict_plan(const struct fdw_bench_run *measured, const struct fdw_plan *pl,
			struct fdw_bench_run *out);

/* A cipher the person may choose on the plan. */
struct fdw_cipher_choice {
	const char *title;	/* English (N_): translate it to show it */
	const char *spec;	/* as fdw_encrypt_set_cipher() takes it */
	unsigned key_bits;
	const char *test;	/* its cipher benchmark test */
};

/* The ciphers offered, in the order shown; how many. */
size_t fdw_cipher_choices(const struct fdw_cipher_choice **out);
/* The index of the choice that is @pl's cipher, or -1. */
int fdw_cipher_choice_of(const struct fdw_plan *pl);

/*
 * What to say of choice @c with the measurement @measured (NULL: still measuring):
 * its speed in *@mibps and 1 when measured (by the kernel's crypto API, or by OpenSSL
 * with *@userspace); 0 with a translated phrase in @buf when it could not be. A choice
 * the kernel lacks (no figure at all) is not to be chosen: fdw_cipher_choice_usable().
 */
int fdw_cipher_choice_speed(const struct fdw_bench_run *measured,
			    const struct fdw_cipher_choice *c, double *mibps, bool *userspace,
			    char *buf, size_t len);
bool fdw_cipher_choice_usable(const struct fdw_bench_run *measured,
			      const struct fdw_cipher_choice *c);

/*
 * One translated sentence on @pred: what the slowdown means ("Reading large files: about
 * 35 % slower here; small-file work barely changes.").
 */
void fdw_predict_sentence(const struct fdw_bench_run *pred, char *buf, size_t len);
/* Percent slower of line @id in @pred (from its plain and encrypted figures), or -1. */
double fdw_predict_slowdown(const struct fdw_bench_run *pred, const char *id);
/* The same for figure @key ("mbps", "iops"): the one rule from a ratio to a percentage. */
double fdw_predict_slowdown_of(const struct fdw_bench_run *pred, const char *id,
			       const char *key);
/*
 * The ratio of line @id's encrypted figure to its plain one for @key ("mbps", "iops"):
 * what the prediction says encryption does to that figure, whatever the disk's speed
 * that day; -1 when @pred has no such line. The slowdown above is the same ratio.
 */
double fdw_predict_ratio(const struct fdw_bench_run *pred, const char *id, const char *key);

/*
 * What may be shown of cipher test @id in @measured: its encryption speed (MiB/s) in
 * *@mibps, and true; false with *@mibps 0 when it could not be measured here.
 */
bool fdw_predict_cipher_speed(const struct fdw_bench_run *measured, const char *id,
			      double *mibps);

/*
 * The measurement, a few seconds, reading only: sequential and random reads of @device
 * with O_DIRECT (the engine's I/O benchmark without its write tests), the in-memory
 * cipher benchmark and the per-request cost (fdw_predict_measure_request()). TINY scale:
 * shorter. 0, or -errno with @why.
 */
int fdw_predict_measure(const char *device, enum fdw_bench_scale scale,
			volatile sig_atomic_t *stop, struct fdw_bench_run *out, char *why,
			size_t len);

/*
 * The fixed cost of one request on this CPU, a fraction of a second (about a second on
 * an emulated one), added to @r (which holds fdw_bench_cipher()'s tests): for each cipher
 * test with figures, "call_us", from timing crypto calls of 4 KiB (one sector) and of
 * 64 KiB in turn through the kernel's crypto API (AF_ALG), or through OpenSSL where that
 * cipher was measured in user space; and the test "cpu.wakeup" with "hop_us" (the CPU
 * time of a handover between two threads) and "wake_us" (waking one asleep on an idle
 * CPU). A cipher whose calls cannot be timed keeps no "call_us". 0, -EINTR when stopped,
 * or -ENOSPC when @r holds no more tests.
 */
int fdw_predict_measure_request(struct fdw_bench_run *r, volatile sig_atomic_t *stop);

/* The measurement of a prepared conversion's partition, in a child process. */
struct fdw_predict_probe {
	struct fdw_child child;	/* pid 0: not running */
	size_t got;
	void *buf;		/* the reply as it comes in */
	struct fdw_bench_run *run;	/* into buf, when done */
	int rc;
	char why[512];
	bool done;
};

/*
 * Start measuring the partition of @e (attaching a loop device of its own for an image
 * file's partition) without waiting. 0, or -errno with p->why.
 */
int fdw_predict_probe_start(struct fdw_predict_probe *p, const struct fdw_encrypt *e,
			    enum fdw_bench_scale scale);
/* Read what has come: 1 when done (p->rc, p->run), 0 while it runs. Never blocks. */
int fdw_predict_probe_poll(struct fdw_predict_probe *p);
/*
 * Stop it (the child stops at its next step, detaches its loop device) and free all. A
 * zeroed probe (never started) is left alone.
 */
void fdw_predict_probe_stop(struct fdw_predict_probe *p);

/*
 * Keep @pred with the job: saved as <bench dir>/predicted-<id>.json and named in
 * job->bench_predicted (the caller saves the record). 0 or -errno.
 */
int fdw_predict_record(const struct fdw_bench_run *pred, struct fdw_job *job);

#endif
