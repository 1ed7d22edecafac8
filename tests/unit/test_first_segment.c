/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The moved first segment's safety net, on an image file with a real header made by
 * libcryptsetup: a header cut short by a power cut is put back from the copy; a copy that
 * never finished, or a header that is whole, leaves the start alone. About 10 s.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/secret.h"
#include "core/luks2/convert.h"
#include "core/luks2/first_segment.h"

#define TEST_MIB (1024 * 1024)
#define SIZE (96 * TEST_MIB)
#define UUID "0b7e3a55-1f2d-4c8e-9a61-5d2f8e4c7b10"

static char dir[64], img[96], prep[96], backup[96];

static void sha_range(off_t off, size_t len, unsigned char *md)
{
	unsigned char *buf = malloc(len);
	unsigned int n;
	int fd = open(img, O_RDONLY);

	assert_non_null(buf);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, off), (ssize_t)len);
	assert_int_equal(EVP_Digest(buf, len, md, &n, EVP_sha256(), NULL), 1);
	close(fd);
	free(buf);
}

static void write_range(off_t off, size_t len, int byte)
{
	unsigned char *buf = malloc(len);
	int fd = open(img, O_WRONLY);

	assert_non_null(buf);
	memset(buf, byte, len);
	assert_int_equal(pwrite(fd, buf, len, off), (ssize_t)len);
	close(fd);
	free(buf);
}

/* A random image, its first 16 MiB hashed, and the header put on as a conversion does. */
static void converted_image(unsigned char *first)
{
	struct fdw_convert_params cp = {
		.device = img, .uuid = UUID, .cipher = "aes", .cipher_mode = "xts-plain64",
		.key_bits = 512, .sector_size = 4096, .fast_pbkdf = true, .work_dir = dir,
		.header_backup = backup, .prepared_header = prep,
	};
	struct fdw_secret *pass;
	unsigned char *buf = malloc(SIZE);
	int fd = open(img, O_CREAT | O_TRUNC | O_WRONLY, 0600), rnd = open("/dev/urandom", O_RDONLY);

	assert_non_null(buf);
	assert_int_equal(read(rnd, buf, SIZE), SIZE);
	assert_int_equal(write(fd, buf, SIZE), SIZE);
	close(fd);
	close(rnd);
	free(buf);
	sha_range(0, 16 * TEST_MIB, first);
	unlink(prep);
	unlink(backup);
	assert_int_equal(fdw_secret_new(&pass, 64), 0);
	strcpy(pass->data, "first segment test");
	pass->len = strlen(pass->data);
	assert_int_equal(fdw_convert_prepare_header(&cp, pass, prep), 0);
	assert_int_equal(fdw_convert_init(&cp, pass), 0);
	fdw_secret_free(pass);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/fdw-first-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(img, sizeof(img), "%s/img", dir);
	snprintf(prep, sizeof(prep), "%s/prep.hdr", dir);
	snprintf(backup, sizeof(backup), "%s/backup.hdr", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_whole_header_left_alone(void **state)
{
	unsigned char first[32], now[32];
	bool repaired = true;

	(void)state;
	converted_image(first);
	/* The copy is at the end, the header at the start. */
	sha_range(SIZE - 16 * TEST_MIB, 16 * TEST_MIB, now);
	assert_memory_equal(first, now, 32);
	assert_int_equal(fdw_first_segment_repair(img, UUID, &repaired), 0);
	assert_false(repaired);
	sha_range(0, 16 * TEST_MIB, now);
	assert_memory_not_equal(first, now, 32);
}

static void test_torn_header_put_back(void **state)
{
	unsigned char first[32], now[32];
	bool repaired = false;

	(void)state;
	converted_image(first);
	/* A power cut in the header's write: both header copies half there. */
	write_range(0, 8 * TEST_MIB, 0);
	assert_int_equal(fdw_first_segment_repair(img, UUID, &repaired), 0);
	assert_true(repaired);
	sha_range(0, 16 * TEST_MIB, now);
	assert_memory_equal(first, now, 32);
	/* Once only: the marker is gone. */
	assert_int_equal(fdw_first_segment_repair(img, UUID, &repaired), 0);
	assert_false(repaired);
}

static void test_unfinished_copy_left_alone(void **state)
{
	unsigned char first[32], now[32];
	bool repaired = true;

	(void)state;
	converted_image(first);
	/* As if the power went before the marker: the start as it was, no marker. */
	write_range(SIZE - 32 * TEST_MIB, 4096, 0);
	write_range(0, 16 * TEST_MIB, 0x5a);
	sha_range(0, 16 * TEST_MIB, first);
	assert_int_equal(fdw_first_segment_repair(img, UUID, &repaired), 0);
	assert_false(repaired);
	sha_range(0, 16 * TEST_MIB, now);
	assert_memory_equal(first, now, 32);
}

static void test_damaged_copy_refused(void **state)
{
	unsigned char first[32], before[32], now[32];
	bool repaired = true;

	(void)state;
	converted_image(first);
	write_range(0, 8 * TEST_MIB, 0);
	write_range(SIZE - 4 * TEST_MIB, 4096, 0x33);
	sha_range(0, 16 * TEST_MIB, before);
	assert_int_equal(fdw_first_segment_repair(img, UUID, &repaired), -EIO);
	assert_false(repaired);
	sha_range(0, 16 * TEST_MIB, now);
	assert_memory_equal(before, now, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_header_left_alone),
		cmocka_unit_test(test_torn_header_put_back),
		cmocka_unit_test(test_unfinished_copy_left_alone),
		cmocka_unit_test(test_damaged_copy_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
