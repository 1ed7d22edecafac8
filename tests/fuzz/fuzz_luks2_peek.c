/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the read-only LUKS2 header reader (src/core/luks2/luks2_peek.c): both copies, checksums. */
#include "fuzz_common.h"

#include "core/luks2/luks2_peek.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdw_luks2_peek p;

	if (fdw_luks2_peek_buf(data, size, &p) == 0)
		fdw_luks2_peek_release(&p);
	return 0;
}
