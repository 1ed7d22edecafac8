/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the reading of a typed recovery key. */
#include "fuzz_common.h"

#include "core/luks2/recovery.h"
#include "core/base/secret.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdw_secret *key = NULL;
	char why[512];

	if (fdw_recovery_key_canonicalize((const char *)data, size, &key, why,
					  sizeof(why)) == 0) {
		if (!key || key->len != FDW_RECOVERY_KEY_LEN)
			abort();
		fdw_secret_free(key);
	}
	return 0;
}
