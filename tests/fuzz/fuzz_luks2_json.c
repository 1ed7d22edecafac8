/* Fuzz the LUKS2 JSON reading of the end-window code of resume (src/core/convert.c). */
#include "fuzz_common.h"

#include "core/convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = fuzz_cstr(data, size);

	fdw_convert_end_window_json(json);
	free(json);
	return 0;
}
