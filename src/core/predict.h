/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The prediction shown before a conversion: how fast the encrypted volume will be, per
 * benchmark line, from a read-only measurement of the partition and the cipher benchmark
 * of this CPU. The model is stated in README.md ("How the prediction is made").
 */
#ifndef FDW_PREDICT_H
#define FDW_PREDICT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "bench.h"
#include "job.h"
#include "plan.h"

struct fdw_encrypt;

/*
 * The model, for one stream of requests of the same size. @disk and @cipher (one core) in
 * the same unit (MB/s); @qd requests in flight at once, @cores CPUs to encrypt them.
 * One at a time (@qd 1) the disk and the cipher take turns: 1 / (1/disk + 1/cipher).
 * With several in flight they overlap, and up to min(@qd, @cores) cores share the
 * cipher's work: min(disk, cipher * min(qd, cores)). 0 when either is unknown (<= 0).
 */
double fdw_predict_stream(double disk, double cipher, unsigned qd, unsigned cores);

/* The cipher benchmark test of a plan's cipher ("cipher.aes-xts-512"), or NULL. */
const char *fdw_predict_cipher_test(const char *cipher, const char *mode, unsigned key_bits);

/*
 * From @measured (the read-only I/O tests of the partition and the cipher tests of this
 * CPU) and the cipher @cipher_test, fill @out (label "predicted") with one test per
 * benchmark line, same ids and metrics as `fdewiz bench`: the expected figure of the
 * encrypted volume (the "mbps" or "iops" headline), "plain_mbps"/"plain_iops" (the disk
 * figure it came from; writes use the read figure), and "crypto_cpu_pct" (percent of
 * one core spent on the cipher at that speed). @cpus: online CPUs. Returns how many lines
 * could be predicted (0: the disk or the cipher figure is missing).
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

/*
 * What may be shown of cipher test @id in @measured: its encryption speed (MiB/s) in
 * *@mibps, and true; false with *@mibps 0 when it could not be measured here.
 */
bool fdw_predict_cipher_speed(const struct fdw_bench_run *measured, const char *id,
			      double *mibps);

/*
 * The measurement, a few seconds, reading only: sequential and random reads of @device
 * with O_DIRECT (the engine's I/O benchmark without its write tests) and the in-memory
 * cipher benchmark. TINY scale: shorter. 0, or -errno with @why.
 */
int fdw_predict_measure(const char *device, enum fdw_bench_scale scale,
			volatile sig_atomic_t *stop, struct fdw_bench_run *out, char *why,
			size_t len);

/* The measurement of a prepared conversion's partition, in a child process. */
struct fdw_predict_probe {
	pid_t pid;		/* 0: not running */
	int fd;			/* the child's reply, or -1 */
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
