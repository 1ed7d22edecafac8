/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the loader of saved benchmark results (bench --compare A B reads any file). */
#include "fuzz_common.h"

#include "core/bench/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	static struct fdw_bench_run r;

	if (fdw_bench_run_load(path, &r) == 0 && r.n_tests > FDW_BENCH_MAX_TESTS)
		abort();
	close(fd);
	return 0;
}
