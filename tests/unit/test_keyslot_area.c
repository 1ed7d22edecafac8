/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The prepared header's unused keyslot area zeroed: on a header libcryptsetup itself made in
 * a file (two keyslots, as a preparation makes them), every byte outside the keyslots' areas
 * becomes zero, the metadata and the keyslots' own bytes stay as they were, and both
 * passphrases still open it. A file that is no LUKS2 header is left as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <libcryptsetup.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "luks2/keyslot_area.h"
#include "luks2/luks2_json.h"
#include "luks2/luks2_peek.h"

/* The header takes the first 16 MiB; one more for data, so that the header activates. */
#define HEADER_SIZE (16u * 1024 * 1024)
#define FILE_SIZE (HEADER_SIZE + 1024 * 1024)
#define DATA_OFFSET_SECTORS (HEADER_SIZE / 512)

static const char pass1[] = "first passphrase", pass2[] = "recovery key stand-in";

/* A LUKS2 header of 16 MiB at the start of a new file under /tmp, with keyslots for pass1 and pass2. */
static void make_header(char *path)
{
	struct crypt_pbkdf_type fast = { .type = CRYPT_KDF_PBKDF2, .hash = "sha256",
					 .iterations = 1000,
					 .flags = CRYPT_PBKDF_NO_BENCHMARK };
	struct crypt_params_luks2 luks2 = { .sector_size = 512 };
	struct crypt_device *cd = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, FILE_SIZE), 0);
	close(fd);
	assert_int_equal(crypt_init(&cd, path), 0);
	assert_int_equal(crypt_set_pbkdf_type(cd, &fast), 0);
	assert_int_equal(crypt_set_data_offset(cd, DATA_OFFSET_SECTORS), 0);
	assert_int_equal(crypt_format(cd, CRYPT_LUKS2, "aes", "xts-plain64", NULL, NULL, 64,
				      &luks2), 0);
	assert_int_equal(crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass1,
							 strlen(pass1)), 0);
	assert_int_equal(crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass2,
							 strlen(pass2)), 1);
	crypt_free(cd);
}

static unsigned char *read_all(const char *path)
{
	unsigned char *buf = malloc(FILE_SIZE);
	int fd = open(path, O_RDONLY);

	assert_true(buf && fd >= 0);
	assert_int_equal(pread(fd, buf, FILE_SIZE, 0), (ssize_t)FILE_SIZE);
	close(fd);
	return buf;
}

/* @mask[i] set for each byte i of the header that lies in a keyslot's area. */
static void mark_keyslots(json_object *root, unsigned char *mask)
{
	json_object *slots, *area;
	uint64_t off, size;

	assert_true(json_object_object_get_ex(root, "keyslots", &slots));
	json_object_object_foreach(slots, key, ks) {
		(void)key;
		assert_true(json_object_object_get_ex(ks, "area", &area));
		assert_true(fdw_luks2_u64(area, "offset", &off) && fdw_luks2_u64(area, "size", &size));
		assert_true(off + size <= HEADER_SIZE);
		memset(mask + off, 1, size);
	}
}

static void opens_with(const char *path, const char *pass)
{
	struct crypt_device *cd = NULL;

	assert_int_equal(crypt_init(&cd, path), 0);
	assert_int_equal(crypt_load(cd, CRYPT_LUKS2, NULL), 0);
	assert_true(crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass, strlen(pass),
						 0) >= 0);
	crypt_free(cd);
}

static void test_zeroes_only_unused(void **state)
{
	char path[] = "/tmp/fdw-keyslot-area-XXXXXX";
	struct fdw_luks2_peek p;
	unsigned char *before, *after, *mask;
	uint64_t zeroed, i, random_before = 0, kept = 0;

	(void)state;
	make_header(path);
	before = read_all(path);
	assert_int_equal(fdw_luks2_zero_unused_keyslot_area(path, &zeroed), 0);
	after = read_all(path);
	assert_int_equal(fdw_luks2_peek(path, 0, 0, &p), 0);
	mask = calloc(1, HEADER_SIZE);
	assert_non_null(mask);
	mark_keyslots(p.json, mask);
	for (i = 0; i < HEADER_SIZE; i++) {
		if (i < 2 * p.hdr_size || mask[i]) {
			kept += before[i] == after[i];
			continue;
		}
		random_before += before[i] != 0;
		assert_int_equal(after[i], 0);
	}
	/* Everything else kept, byte for byte; and what was zeroed was random before. */
	assert_int_equal(memcmp(before, after, 2 * p.hdr_size), 0);
	assert_memory_equal(before + HEADER_SIZE, after + HEADER_SIZE, FILE_SIZE - HEADER_SIZE);
	assert_true(kept > 2 * p.hdr_size + 2 * 256000);
	assert_true(random_before > zeroed / 2);
	assert_true(zeroed > HEADER_SIZE - 2 * p.hdr_size - 4 * 260000);
	fdw_luks2_peek_release(&p);
	opens_with(path, pass1);
	opens_with(path, pass2);
	/* A second pass finds nothing more to change. */
	assert_int_equal(fdw_luks2_zero_unused_keyslot_area(path, &zeroed), 0);
	free(before);
	before = read_all(path);
	assert_memory_equal(before, after, FILE_SIZE);
	unlink(path);
	free(mask);
	free(before);
	free(after);
}

static void test_not_luks2_untouched(void **state)
{
	char path[] = "/tmp/fdw-keyslot-area-XXXXXX";
	unsigned char *before, *after;
	uint64_t zeroed = 7;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	before = malloc(FILE_SIZE);
	assert_non_null(before);
	memset(before, 0xa5, FILE_SIZE);
	assert_int_equal(pwrite(fd, before, FILE_SIZE, 0), (ssize_t)FILE_SIZE);
	close(fd);
	assert_int_equal(fdw_luks2_zero_unused_keyslot_area(path, &zeroed), -EINVAL);
	assert_int_equal(zeroed, 0);
	after = read_all(path);
	assert_memory_equal(before, after, FILE_SIZE);
	unlink(path);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroes_only_unused),
		cmocka_unit_test(test_not_luks2_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
