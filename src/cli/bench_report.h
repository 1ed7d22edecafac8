/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Rendering of benchmark runs and comparisons: tables for people, JSON for programs. */
#ifndef FDW_BENCH_REPORT_H
#define FDW_BENCH_REPORT_H

#include <stdio.h>

#include "core/bench/bench_api.h"

void bench_print_table(FILE *out, const struct fdw_bench_run *r);
void bench_print_json(FILE *out, const struct fdw_bench_run *r);

/* @a and @b name the files compared. */
void bench_print_compare_table(FILE *out, const struct fdw_bench_run *plain,
			       const struct fdw_bench_run *enc,
			       const struct fdw_bench_delta *d, size_t n);
void bench_print_compare_json(FILE *out, const char *a, const struct fdw_bench_run *plain,
			      const char *b, const struct fdw_bench_run *enc,
			      const struct fdw_bench_delta *d, size_t n);

#endif
