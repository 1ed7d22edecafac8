/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the one reader of LUKS2 segments and the one of its keyslots: what each
 * accepts, and each way it refuses. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "core/luks2/luks2_json.h"

static int read_segments(const char *json, struct fdw_luks2_segment *segs, size_t cap,
			 size_t *n)
{
	json_object *root = json_tokener_parse(json);
	int rc;

	assert_non_null(root);
	rc = fdw_luks2_segments(root, segs, cap, n);
	/* The pointers belong to the JSON: only their values are compared after this. */
	json_object_put(root);
	return rc;
}

/* A conversion's header as libcryptsetup writes it: a crypt segment, the plain rest, and
 * the final one flagged; numbers are decimal strings. */
static void test_reencrypt_header(void **state)
{
	const char *json =
		"{\"segments\":{"
		"\"0\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"8388608\","
		"\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\",\"sector_size\":4096},"
		"\"1\":{\"type\":\"linear\",\"offset\":\"25165824\",\"size\":\"dynamic\"},"
		"\"2\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"dynamic\","
		"\"flags\":[\"backup-final\"]}}}";
	json_object *root = json_tokener_parse(json);
	struct fdw_luks2_segment s[FDW_LUKS2_MAX_SEGMENTS];
	uint64_t bytes;
	size_t n;

	(void)state;
	assert_int_equal(fdw_luks2_segments(root, s, FDW_LUKS2_MAX_SEGMENTS, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(s[0].key, "0");
	assert_string_equal(s[0].type, "crypt");
	assert_true(s[0].offset == 16 * MIB && s[0].size == 8 * MIB && !s[0].dynamic);
	assert_true(s[1].dynamic && s[1].size == 0);
	assert_false(fdw_luks2_segment_flagged(&s[0]));
	assert_true(fdw_luks2_segment_flag(&s[2], "backup-final"));
	assert_true(fdw_luks2_segment_flag(&s[2], "backup-"));
	assert_false(fdw_luks2_segment_flag(&s[2], "in-reencryption"));
	/* On a 100 MiB device: the dynamic one runs to its end, the fixed one as written. */
	assert_true(fdw_luks2_segment_bytes(&s[1], 100 * MIB, &bytes));
	assert_true(bytes == 100 * MIB - 24 * MIB);
	assert_true(fdw_luks2_segment_bytes(&s[0], 100 * MIB, &bytes) && bytes == 8 * MIB);
	/* Past the end of a smaller device: a fixed size that runs over, an offset at the end. */
	assert_false(fdw_luks2_segment_bytes(&s[0], 20 * MIB, &bytes));
	assert_false(fdw_luks2_segment_bytes(&s[1], 24 * MIB, &bytes));
	json_object_put(root);
}

/* Each way a segment is not as the format writes it, one at a time. */
static void test_refused(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"segments\":[]}",
		"{\"segments\":{\"0\":7}}",
		"{\"segments\":{\"0\":{\"offset\":\"0\",\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":3,\"offset\":\"0\",\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":0,\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"-1\",\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\" 1\",\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"12ab\",\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"18446744073709551616\","
		"\"size\":\"512\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"0\",\"size\":\"Dynamic\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"0\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"0\",\"size\":\"512\","
		"\"flags\":\"backup-final\"}}}",
		"{\"segments\":{\"0\":{\"type\":\"crypt\",\"offset\":\"0\",\"size\":\"512\","
		"\"flags\":[null]}}}",
	};
	struct fdw_luks2_segment s[FDW_LUKS2_MAX_SEGMENTS];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("refused: %s\n", bad[i]);
		assert_int_equal(read_segments(bad[i], s, FDW_LUKS2_MAX_SEGMENTS, &n), -EINVAL);
	}
	assert_int_equal(fdw_luks2_segments(NULL, s, FDW_LUKS2_MAX_SEGMENTS, &n), -EINVAL);
}

/* More segments than the caller has room for: refused, never written past its array. */
static void test_too_many(void **state)
{
	const char *json = "{\"segments\":{"
			   "\"0\":{\"type\":\"crypt\",\"offset\":\"0\",\"size\":\"512\"},"
			   "\"1\":{\"type\":\"crypt\",\"offset\":\"512\",\"size\":\"512\"},"
			   "\"2\":{\"type\":\"crypt\",\"offset\":\"1024\",\"size\":\"dynamic\"}}}";
	struct fdw_luks2_segment s[3];
	size_t n;

	(void)state;
	assert_int_equal(read_segments(json, s, 2, &n), -E2BIG);
	assert_int_equal(read_segments(json, s, 3, &n), 0);
	assert_int_equal(n, 3);
}

static int read_keyslots(const char *json, struct fdw_luks2_keyslot *ks, size_t cap, size_t *n)
{
	json_object *root = json_tokener_parse(json);
	int rc;

	assert_non_null(root);
	rc = fdw_luks2_keyslots(root, ks, cap, n);
	json_object_put(root);
	return rc;
}

/* A conversion's keyslots as libcryptsetup writes them: the passphrase's, the recovery
 * key's and the reencryption one, its area where the datashift keeps nothing. */
static void test_keyslots(void **state)
{
	const char *json =
		"{\"keyslots\":{"
		"\"0\":{\"type\":\"luks2\",\"area\":{\"type\":\"raw\",\"offset\":\"32768\","
		"\"size\":\"258048\"}},"
		"\"1\":{\"type\":\"luks2\",\"area\":{\"type\":\"raw\",\"offset\":\"290816\","
		"\"size\":\"258048\"}},"
		"\"2\":{\"type\":\"reencrypt\",\"mode\":\"encrypt\",\"area\":{\"type\":"
		"\"datashift\",\"offset\":\"548864\",\"size\":\"8192\",\"shift_size\":\"16777216\"}}}}";
	json_object *root = json_tokener_parse(json);
	struct fdw_luks2_keyslot k[FDW_LUKS2_MAX_KEYSLOTS];
	size_t n;

	(void)state;
	assert_int_equal(fdw_luks2_keyslots(root, k, FDW_LUKS2_MAX_KEYSLOTS, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(k[0].key, "0");
	assert_string_equal(k[0].type, "luks2");
	assert_int_equal(k[0].area_offset, 32768);
	assert_int_equal(k[0].area_end, 32768 + 258048);
	assert_string_equal(k[2].type, "reencrypt");
	assert_string_equal(fdw_luks2_str(k[2].obj, "mode"), "encrypt");
	assert_string_equal(fdw_luks2_str(k[2].area, "type"), "datashift");
	assert_int_equal(k[2].area_end, 548864 + 8192);
	assert_int_equal(read_keyslots("{\"keyslots\":{}}", k, 1, &n), 0);
	assert_int_equal(n, 0);
	json_object_put(root);
}

/* Each way a keyslot is not as the format writes it, and one too many for the caller. */
static void test_keyslots_refused(void **state)
{
	static const char *const bad[] = {
		"{}",
		"{\"keyslots\":[]}",
		"{\"keyslots\":{\"0\":7}}",
		"{\"keyslots\":{\"0\":{\"area\":{\"offset\":\"0\",\"size\":\"512\"}}}}",
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\"}}}",
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"area\":\"raw\"}}}",
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"area\":{\"size\":\"512\"}}}}",
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"area\":{\"offset\":\"0\"}}}}",
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"area\":{\"offset\":\"1\","
		"\"size\":\"18446744073709551615\"}}}}",
		"{\"keyslots\":{\"0\":{\"type\":\"luks2\",\"area\":{\"offset\":\"0\",\"size\":\"512\"}},"
		"\"1\":{\"type\":\"luks2\",\"area\":{\"offset\":512,\"size\":\"512\"}}}}",
	};
	const char *two = "{\"keyslots\":{"
			  "\"0\":{\"type\":\"luks2\",\"area\":{\"offset\":\"0\",\"size\":\"512\"}},"
			  "\"1\":{\"type\":\"luks2\",\"area\":{\"offset\":\"512\",\"size\":\"512\"}}}}";
	struct fdw_luks2_keyslot k[FDW_LUKS2_MAX_KEYSLOTS];
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("refused: %s\n", bad[i]);
		assert_int_equal(read_keyslots(bad[i], k, FDW_LUKS2_MAX_KEYSLOTS, &n), -EINVAL);
	}
	assert_int_equal(fdw_luks2_keyslots(NULL, k, FDW_LUKS2_MAX_KEYSLOTS, &n), -EINVAL);
	assert_int_equal(read_keyslots(two, k, 1, &n), -E2BIG);
	assert_int_equal(read_keyslots(two, k, 2, &n), 0);
	assert_int_equal(n, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reencrypt_header),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_keyslots),
		cmocka_unit_test(test_keyslots_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
