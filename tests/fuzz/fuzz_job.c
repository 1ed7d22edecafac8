/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the reader of job records (state directory, jobs/NAME.json). */
#include "fuzz_common.h"

#include "core/state/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct fdw_job job;

	fdw_job_load_file(path, &job);
	close(fd);
	return 0;
}
