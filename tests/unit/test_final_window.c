/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the end window's LUKS2 metadata: each field recognised, each rewritten. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/luks2/luks2_final.h"

/*
 * Headers captured from real conversions killed at the test point "last-hotzone"
 * (tests/root/test-encrypt-final-window.sh): on the device with a data shift, detached,
 * and with a recovery key; and the finished header libcryptsetup's own crypt_format()
 * made for the first one.
 */
#define HDR_SIZE 16384ULL	/* json_size 12288 + the 4096-byte binary part */

/* Parse @name, apply @edit to it, serialise it again. */
static char *edited(const char *name, void (*edit)(json_object *root))
{
	char *text = unit_data(name), *out;
	json_object *root = json_tokener_parse(text);

	assert_non_null(root);
	edit(root);
	out = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	free(text);
	return out;
}

static json_object *at(json_object *o, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;

	assert_true(json_object_object_get_ex(o, a, &x));
	if (!b)
		return x;
	assert_true(json_object_object_get_ex(x, b, &y));
	return y;
}

static void test_datashift_window(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("datashift-window.json");

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	assert_true(fw.datashift);
	assert_true(fw.moved);
	assert_true(fw.data_offset == 16777216);
	assert_true(fw.moved_offset == 148897792);
	assert_true(fw.moved_size == 16777216);
	assert_int_equal(fw.user_keyslots, 1);
	assert_string_equal(fw.cipher, "aes");
	assert_string_equal(fw.mode, "xts-plain64");
	assert_int_equal(fw.sector_size, 512);
	assert_non_null(fw.final);
	fdw_final_window_release(&fw);
	free(json);
}

static void test_detached_window(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("detached-window.json");

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	assert_false(fw.datashift);
	assert_false(fw.moved);
	assert_true(fw.data_offset == 0);
	assert_int_equal(fw.user_keyslots, 1);
	fdw_final_window_release(&fw);
	free(json);
}

static void test_recovery_window(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("recovery-window.json");

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	assert_int_equal(fw.user_keyslots, 2);
	fdw_final_window_release(&fw);
	free(json);
}

static void test_finished_header_is_not_the_window(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("datashift-final.json");

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 0);
	assert_null(fw.final);
	free(json);
	assert_int_equal(fdw_final_window_parse("{\"keyslots\":", &fw), -EINVAL);
	assert_int_equal(fdw_final_window_parse("", &fw), -EINVAL);
}

/* Each edit makes the header something other than the end window: never finish it. */
static void no_requirement(json_object *r)
{
	json_object_object_del(at(r, "config", NULL), "requirements");
}

static void other_requirement(json_object *r)
{
	json_object *m = json_object_new_array();

	json_object_array_add(m, json_object_new_string("something-else"));
	json_object_object_add(at(r, "config", "requirements"), "mandatory", m);
}

static void data_not_final(json_object *r)
{
	json_object_object_add(at(r, "segments", "0"), "offset",
			       json_object_new_string("16781312"));
}

static void data_in_reencryption(json_object *r)
{
	json_object *f = json_object_new_array();

	json_object_array_add(f, json_object_new_string("in-reencryption"));
	json_object_object_add(at(r, "segments", "0"), "flags", f);
}

static void two_data_segments(json_object *r)
{
	json_object *copy = NULL;

	json_object_deep_copy(at(r, "segments", "0"), &copy, NULL);
	json_object_object_add(at(r, "segments", NULL), "4", copy);
}

static void plain_data_segment(json_object *r)
{
	json_object_object_add(at(r, "segments", "0"), "type", json_object_new_string("linear"));
}

static void no_final_segment(json_object *r)
{
	json_object_object_del(at(r, "segments", NULL), "2");
}

static void moved_not_linear(json_object *r)
{
	json_object_object_add(at(r, "segments", "3"), "type", json_object_new_string("crypt"));
}

static void moved_missing(json_object *r)
{
	json_object_object_del(at(r, "segments", NULL), "3");
}

static void bad_sector_size(json_object *r)
{
	json_object_object_add(at(r, "segments", "0"), "sector_size", json_object_new_int(3000));
	json_object_object_add(at(r, "segments", "2"), "sector_size", json_object_new_int(3000));
}

static void cipher_without_mode(json_object *r)
{
	json_object_object_add(at(r, "segments", "0"), "encryption",
			       json_object_new_string("aes"));
	json_object_object_add(at(r, "segments", "2"), "encryption",
			       json_object_new_string("aes"));
}

static void decrypting(json_object *r)
{
	json_object_object_add(at(r, "keyslots", "1"), "mode", json_object_new_string("decrypt"));
}

static void walking_forward(json_object *r)
{
	json_object_object_add(at(r, "keyslots", "1"), "direction",
			       json_object_new_string("forward"));
}

static void two_reencrypt_keyslots(json_object *r)
{
	json_object *copy = NULL;

	json_object_deep_copy(at(r, "keyslots", "1"), &copy, NULL);
	json_object_object_add(at(r, "keyslots", NULL), "5", copy);
}

static void no_reencrypt_keyslot(json_object *r)
{
	json_object_object_del(at(r, "keyslots", NULL), "1");
}

static void unknown_keyslot(json_object *r)
{
	json_object_object_add(at(r, "keyslots", "0"), "type", json_object_new_string("luks3"));
}

static void offset_not_decimal(json_object *r)
{
	json_object_object_add(at(r, "segments", "0"), "offset", json_object_new_string("0x10"));
	json_object_object_add(at(r, "segments", "2"), "offset", json_object_new_string("0x10"));
}

static void test_each_field_refuses(void **state)
{
	static void (*const edits[])(json_object *) = {
		no_requirement, other_requirement, data_not_final, data_in_reencryption,
		two_data_segments, plain_data_segment, no_final_segment, moved_not_linear,
		moved_missing, bad_sector_size, cipher_without_mode, decrypting,
		walking_forward, two_reencrypt_keyslots, no_reencrypt_keyslot, unknown_keyslot,
		offset_not_decimal,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		struct fdw_final_window fw;
		char *json = edited("datashift-window.json", edits[i]);

		if (fdw_final_window_parse(json, &fw) != 0)
			fail_msg("edit %zu was taken for the end window", i);
		assert_null(fw.final);
		free(json);
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The keys of object @o, sorted, joined by commas. */
static void keys_of(json_object *o, char *buf, size_t len)
{
	char *names[64];
	size_t n = 0;

	json_object_object_foreach(o, k, v) {
		(void)v;
		if (n < 64)
			names[n++] = k;
	}
	qsort(names, n, sizeof(names[0]), cmp_names);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", names[i]);
}

static const char *str_at(json_object *o, const char *a, const char *b)
{
	return json_object_get_string(at(o, a, b));
}

/* The rewrite of the window header holds what libcryptsetup's own finished header holds. */
static void test_rewrite_matches_library(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("datashift-window.json");
	char *lib_text = unit_data("datashift-final.json");
	json_object *ours, *lib = json_tokener_parse(lib_text);
	char a[256], b[256];

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	ours = fdw_final_window_json(json, HDR_SIZE, &fw);
	assert_non_null(ours);
	assert_true(json_object_equal(at(ours, "segments", NULL), at(lib, "segments", NULL)));
	assert_true(json_object_equal(at(ours, "config", NULL), at(lib, "config", NULL)));
	keys_of(at(ours, "keyslots", NULL), a, sizeof(a));
	keys_of(at(lib, "keyslots", NULL), b, sizeof(b));
	assert_string_equal(a, b);
	keys_of(at(ours, "digests", NULL), a, sizeof(a));
	keys_of(at(lib, "digests", NULL), b, sizeof(b));
	assert_string_equal(a, b);
	assert_true(json_object_equal(at(at(ours, "digests", "0"), "keyslots", NULL),
				      at(at(lib, "digests", "0"), "keyslots", NULL)));
	assert_true(json_object_equal(at(at(ours, "digests", "0"), "segments", NULL),
				      at(at(lib, "digests", "0"), "segments", NULL)));
	json_object_put(ours);
	json_object_put(lib);
	fdw_final_window_release(&fw);
	free(json);
	free(lib_text);
}

/* With a recovery key: both user keyslots stay as they were, bound to segment "0". */
static void test_rewrite_keeps_keyslots(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("recovery-window.json");
	json_object *ours, *orig = json_tokener_parse(json), *dig;
	char keys[256];

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	ours = fdw_final_window_json(json, HDR_SIZE, &fw);
	assert_non_null(ours);
	keys_of(at(ours, "keyslots", NULL), keys, sizeof(keys));
	assert_string_equal(keys, "0,1");
	assert_true(json_object_equal(at(ours, "keyslots", "0"), at(orig, "keyslots", "0")));
	assert_true(json_object_equal(at(ours, "keyslots", "1"), at(orig, "keyslots", "1")));
	keys_of(at(ours, "digests", NULL), keys, sizeof(keys));
	assert_string_equal(keys, "0");
	dig = at(ours, "digests", "0");
	assert_string_equal(json_object_to_json_string_ext(at(dig, "keyslots", NULL),
							   JSON_C_TO_STRING_PLAIN), "[\"0\",\"1\"]");
	assert_string_equal(json_object_to_json_string_ext(at(dig, "segments", NULL),
							   JSON_C_TO_STRING_PLAIN), "[\"0\"]");
	/* The digest value itself (the volume key's) is unchanged. */
	assert_string_equal(str_at(dig, "digest", NULL),
			    str_at(at(orig, "digests", "0"), "digest", NULL));
	keys_of(at(ours, "segments", NULL), keys, sizeof(keys));
	assert_string_equal(keys, "0");
	assert_false(json_object_object_get_ex(at(ours, "config", NULL), "requirements", NULL));
	assert_string_equal(str_at(ours, "config", "keyslots_size"), "16744448");
	json_object_put(ours);
	json_object_put(orig);
	fdw_final_window_release(&fw);
	free(json);
}

static void null_digest_keyslot(json_object *r)
{
	json_object_array_add(at(at(r, "digests", "0"), "keyslots", NULL), NULL);
}

static void null_requirement(json_object *r)
{
	json_object_array_add(at(at(r, "config", "requirements"), "mandatory", NULL), NULL);
}

/* A null among ids (a hostile file; the fuzzer's kind of input): no crash. A digest with
 * one refuses the rewrite; a null requirement is not the one dropped and stays. */
static void test_rewrite_null_ids(void **state)
{
	struct fdw_final_window fw;
	char *json = edited("datashift-window.json", null_digest_keyslot);
	json_object *ours, *mand;

	(void)state;
	if (fdw_final_window_parse(json, &fw) == 1) {
		assert_null(fdw_final_window_json(json, HDR_SIZE, &fw));
		fdw_final_window_release(&fw);
	}
	free(json);
	json = edited("datashift-window.json", null_requirement);
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	ours = fdw_final_window_json(json, HDR_SIZE, &fw);
	assert_non_null(ours);
	mand = at(at(ours, "config", "requirements"), "mandatory", NULL);
	assert_int_equal(json_object_array_length(mand), 1);
	assert_null(json_object_array_get_idx(mand, 0));
	json_object_put(ours);
	fdw_final_window_release(&fw);
	free(json);
}

/* A detached header keeps its keyslot area size: there is no data offset to end it at. */
static void test_rewrite_detached(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("detached-window.json");
	json_object *ours;
	uint64_t off, len;

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	ours = fdw_final_window_json(json, HDR_SIZE, &fw);
	assert_non_null(ours);
	assert_string_equal(str_at(ours, "config", "keyslots_size"), "16744448");
	assert_true(fdw_final_window_reencrypt_area(json, HDR_SIZE, &fw, &off, &len));
	assert_true(off >= 2 * HDR_SIZE && off + len <= 2 * HDR_SIZE + 16744448);
	json_object_put(ours);
	fdw_final_window_release(&fw);
	free(json);
}

static void test_reencrypt_area(void **state)
{
	struct fdw_final_window fw;
	char *json = unit_data("recovery-window.json");
	uint64_t off = 0, len = 0;

	(void)state;
	assert_int_equal(fdw_final_window_parse(json, &fw), 1);
	assert_true(fdw_final_window_reencrypt_area(json, HDR_SIZE, &fw, &off, &len));
	assert_true(off == 548864 && len == 4096);
	/* Headers so large that the area would overlap them: refused. */
	assert_false(fdw_final_window_reencrypt_area(json, 1024 * 1024, &fw, &off, &len));
	/* An area reaching past the data start: refused. */
	fw.data_offset = 550000;
	assert_false(fdw_final_window_reencrypt_area(json, HDR_SIZE, &fw, &off, &len));
	fdw_final_window_release(&fw);
	free(json);
}

/* The binary header write: new JSON, new seqid, a checksum that sha256 agrees with. */
static void test_write_hdr(void **state)
{
	char path[] = "/tmp/fdw-final-hdr-XXXXXX";
	unsigned char *buf = calloc(1, HDR_SIZE);
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0 && buf);
	unlink(path);
	buf[0] = 'L';
	buf[FDW_LUKS2_HDR_SIZE_AT + 6] = (unsigned char)(HDR_SIZE >> 8);
	memcpy(buf + 72, "sha256", 7);
	assert_int_equal(pwrite(fd, buf, HDR_SIZE, 0), (ssize_t)HDR_SIZE);
	assert_int_equal(fdw_luks2_write_hdr(fd, 0, HDR_SIZE, "{\"x\":1}", 42), 0);
	assert_int_equal(pread(fd, buf, HDR_SIZE, 0), (ssize_t)HDR_SIZE);
	assert_int_equal(buf[FDW_LUKS2_HDR_SEQID_AT + 7], 42);
	assert_memory_equal(buf + 4096, "{\"x\":1}", 8);
	/* A header of another size, or JSON that does not fit: nothing written. */
	assert_int_equal(fdw_luks2_write_hdr(fd, 0, 2 * HDR_SIZE, "{}", 43), -EINVAL);
	memset(buf, 'j', HDR_SIZE);
	buf[HDR_SIZE - 1] = '\0';
	assert_int_equal(fdw_luks2_write_hdr(fd, 0, HDR_SIZE, (char *)buf, 44), -EINVAL);
	close(fd);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_datashift_window),
		cmocka_unit_test(test_detached_window),
		cmocka_unit_test(test_recovery_window),
		cmocka_unit_test(test_finished_header_is_not_the_window),
		cmocka_unit_test(test_each_field_refuses),
		cmocka_unit_test(test_rewrite_matches_library),
		cmocka_unit_test(test_rewrite_keeps_keyslots),
		cmocka_unit_test(test_rewrite_detached),
		cmocka_unit_test(test_rewrite_null_ids),
		cmocka_unit_test(test_reencrypt_area),
		cmocka_unit_test(test_write_hdr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
