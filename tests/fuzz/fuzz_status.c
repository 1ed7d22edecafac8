/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the reader of status records (jobs/NAME.status, written by the worker). */
#include "fuzz_common.h"

#include "core/state/progress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));
	struct fdw_progress p;

	if (fdw_progress_read(path, &p) == 0 && (p.state < 0 || p.state >= FDW_JOB__COUNT))
		abort();
	/* Whatever the record says, the phase read is one this version knows. */
	if ((unsigned)p.phase >= FDW_PHASE__COUNT)
		abort();
	close(fd);
	return 0;
}
