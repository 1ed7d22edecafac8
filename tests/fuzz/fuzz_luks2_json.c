/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the LUKS2 JSON readers: the end window (luks2_final.c), progress (luks2_progress.c)
 * and the keyslots reader every keyslot walk goes through (luks2_json.c). */
#include "fuzz_common.h"

#include "core/luks2/luks2_final.h"
#include "core/luks2/luks2_json.h"
#include "core/luks2/luks2_progress.h"

/* Every keyslot read is whole: a type, and an area that does not wrap. */
static void keyslots(const char *json)
{
	struct fdw_luks2_keyslot ks[FDW_LUKS2_MAX_KEYSLOTS];
	json_object *root = json_tokener_parse(json);
	size_t n;

	if (root && fdw_luks2_keyslots(root, ks, FDW_LUKS2_MAX_KEYSLOTS, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (!ks[i].type || ks[i].area_end < ks[i].area_offset)
				abort();
	json_object_put(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdw_final_window fw;
	char *json = fuzz_cstr(data, size);
	uint64_t off, len, done, total;

	if (fdw_final_window_parse(json, &fw) == 1) {
		/* What resume does next with a header found in the window. */
		json_object_put(fdw_final_window_json(json, 16384, &fw));
		fdw_final_window_reencrypt_area(json, 16384, &fw, &off, &len);
	}
	fdw_final_window_release(&fw);
	if (fdw_luks2_progress(json, 1ULL << 30, &done, &total) == 0 && done > total)
		abort();
	keyslots(json);
	free(json);
	return 0;
}
