/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the front-ends (src/cli, src/tui) use of bench/ (the benchmarks and their
 * results): the one header of this folder they include. */
#ifndef FDW_BENCH_API_H
#define FDW_BENCH_API_H

#include "bench.h"
#include "bench_cipher.h"
#include "bench_kernel.h"

#endif
