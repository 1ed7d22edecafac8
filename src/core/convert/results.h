/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a finished conversion is said to have done: its summary and the benchmark verdict. */
#ifndef FDW_RESULTS_H
#define FDW_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/bench.h"
#include "state/job.h"

/* Mean slowdowns (percent) below which encryption is called cheap, small, or noticeable. */
#define FDW_RESULTS_CHEAP_PCT 5.0
#define FDW_RESULTS_SMALL_PCT 20.0
#define FDW_RESULTS_NOTICEABLE_PCT 50.0

/*
 * One translated sentence on a whole before/after comparison, from its trustworthy
 * tests (the suspicious ones are left out) into @buf; says so when none is trustworthy.
 */
void fdw_results_verdict(const struct fdw_bench_delta *d, size_t n, char *buf, size_t len);

/*
 * Whether test @t is a row of the results: it has a measured headline figure. The cipher
 * recommendation, kept in a run as a test without figures, is not ("recommended: aes
 * xts-plain64, 512-bit key -").
 */
bool fdw_results_has_figure(const struct fdw_bench_test *t);

/* Below this (percent) the plan's probe and the baseline agree, whatever their spreads. */
#define FDW_RESULTS_PROBE_FLOOR_PCT 10.0

/*
 * The figure expected of the encrypted volume for test @id in @key ("mbps", "iops") on the
 * plain figure @baseline measured before the conversion: @baseline times the ratio @pred
 * (the prediction kept with the job, src/core/convert/predict.h) gives that line; -1 when
 * it has none. One basis for every prediction set beside a measurement: the disk's speed
 * on the day of the plan's probe does not count.
 */
double fdw_results_predicted(const struct fdw_bench_run *pred, const char *id, const char *key,
			     double baseline);
/* The percentage that goes with it: (1 - ratio) * 100, 0 when not slower; -1 when none. */
double fdw_results_predicted_slowdown(const struct fdw_bench_run *pred, const char *id,
				      const char *key);
/*
 * When the plan's probe saw the disk faster or slower than the baseline @base did, by more
 * than the spread of either (at least FDW_RESULTS_PROBE_FLOOR_PCT) on some line: one
 * translated sentence that says by how much, on which line, and what the predictions are
 * based on, and true; false and "" when they agree.
 */
bool fdw_results_probe_note(const struct fdw_bench_run *pred, const struct fdw_bench_run *base,
			    char *buf, size_t len);

/*
 * One translated sentence on how far the prediction was from the measured encrypted
 * figures of @d (the trustworthy ones); "" when nothing can be compared.
 */
void fdw_results_prediction_verdict(const struct fdw_bench_delta *d, size_t n,
				    const struct fdw_bench_run *pred, char *buf, size_t len);

/* Whether one test's slowdown is worth a warning colour. */
bool fdw_results_delta_notable(const struct fdw_bench_delta *d);

/*
 * The summary of @job, translated: @headline "ADDRESS is encrypted (LUKS2, CIPHER).";
 * @note what was measured when there is no comparison (@before: a baseline was loaded,
 * @after: the benchmark after it too; "" when both were).
 */
void fdw_results_summary(const struct fdw_job *job, bool before, bool after, char *headline,
			 size_t hlen, char *note, size_t nlen);

/*
 * When @job converted an installed system's root: one translated sentence on its boot
 * step into @buf, *@ok whether it was done (what it changed, each file kept as a backup)
 * or is still left (what to run). Returns false, @buf "", for any other conversion.
 */
bool fdw_results_system(const struct fdw_job *job, bool *ok, char *buf, size_t len);

/*
 * When @job's header backup could not be refreshed after the conversion (the file still
 * describes the volume before it): one translated sentence that there is no valid header
 * backup and how to make one, into @buf, and true; false and "" otherwise.
 */
bool fdw_results_backup_stale(const struct fdw_job *job, char *buf, size_t len);

#endif
