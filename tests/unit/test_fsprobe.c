/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the superblock and LUKS2 header parsers, on hand-built buffers. */
#include "unit.h"

#include <stdbool.h>
#include <string.h>
#include <errno.h>

#include "core/disk/fsprobe.h"

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_be32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put_be64(unsigned char *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static void test_ext4(void **state)
{
	unsigned char sb[1024] = { 0 };
	struct fdw_fs_usage u;

	(void)state;
	put_le32(sb + 4, 262144);	/* blocks */
	put_le32(sb + 12, 200000);	/* free blocks */
	put_le32(sb + 24, 2);		/* 4096-byte blocks */
	sb[56] = 0x53;
	sb[57] = 0xEF;
	assert_int_equal(fdw_ext_usage(sb, sizeof(sb), &u), 0);
	assert_int_equal(u.block_size, 4096);
	assert_int_equal(u.size, 262144LL * 4096);
	assert_int_equal(u.free, 200000LL * 4096);
	assert_int_equal(u.used, 62144LL * 4096);

	/* 64-bit: high words count. */
	put_le32(sb + 96, 0x80);
	put_le32(sb + 0x150, 1);
	assert_int_equal(fdw_ext_usage(sb, sizeof(sb), &u), 0);
	assert_int_equal(u.size, ((1LL << 32) + 262144) * 4096);

	/* Wrong magic, and more free than total, are refused. */
	sb[56] = 0;
	assert_int_equal(fdw_ext_usage(sb, sizeof(sb), &u), -EINVAL);
	sb[56] = 0x53;
	put_le32(sb + 0x150, 0);
	put_le32(sb + 12, 300000);
	assert_int_equal(fdw_ext_usage(sb, sizeof(sb), &u), -EINVAL);
}

/* Checked since last mounted, clean: what resize2fs asks (and so may skip a second e2fsck). */
static void test_ext_checked_clean(void **state)
{
	unsigned char sb[1024] = { 0 };

	(void)state;
	sb[56] = 0x53;
	sb[57] = 0xEF;
	put_le32(sb + 44, 1000);	/* mounted */
	put_le32(sb + 64, 2000);	/* checked after */
	sb[58] = 1;			/* valid */
	assert_true(fdw_ext_checked_clean(sb, sizeof(sb)));
	put_le32(sb + 64, 999);		/* checked before it was last mounted */
	assert_false(fdw_ext_checked_clean(sb, sizeof(sb)));
	put_le32(sb + 64, 1000);
	assert_true(fdw_ext_checked_clean(sb, sizeof(sb)));
	sb[58] = 3;			/* an error recorded */
	assert_false(fdw_ext_checked_clean(sb, sizeof(sb)));
	sb[58] = 0;			/* not cleanly unmounted */
	assert_false(fdw_ext_checked_clean(sb, sizeof(sb)));
	sb[58] = 1;
	put_le32(sb + 96, 4);		/* a journal to replay */
	assert_false(fdw_ext_checked_clean(sb, sizeof(sb)));
	put_le32(sb + 96, 0);
	assert_false(fdw_ext_checked_clean(sb, 0x100));	/* cut short */
	sb[56] = 0;
	assert_false(fdw_ext_checked_clean(sb, sizeof(sb)));
}

static void test_xfs(void **state)
{
	unsigned char sb[512] = { 0 };
	struct fdw_fs_usage u;

	(void)state;
	memcpy(sb, "XFSB", 4);
	put_be32(sb + 4, 4096);
	put_be64(sb + 8, 100000);
	put_be64(sb + 144, 25000);
	sb[102] = 0x02;	/* sb_sectsize 512 */
	assert_int_equal(fdw_xfs_usage(sb, sizeof(sb), &u), 0);
	assert_int_equal(u.block_size, 4096);
	assert_int_equal(u.sector_size, 512);
	assert_int_equal(u.used, 75000LL * 4096);
	memcpy(sb, "XFSA", 4);
	assert_int_equal(fdw_xfs_usage(sb, sizeof(sb), &u), -EINVAL);
}

static void put_le64(unsigned char *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static void test_btrfs(void **state)
{
	unsigned char sb[4096] = { 0 };
	struct fdw_fs_usage u = { -1, -1, -1, -1, -1, -1, -1 };

	(void)state;
	memcpy(sb + 64, "_BHRfS_M", 8);
	put_le64(sb + 112, 512ULL << 20);	/* total bytes */
	put_le64(sb + 120, 100ULL << 20);	/* bytes used */
	put_le64(sb + 136, 1);			/* devices */
	put_le32(sb + 144, 4096);		/* sector size */
	put_le64(sb + 209, 512ULL << 20);	/* this device: size */
	put_le64(sb + 217, 180ULL << 20);	/* its allocated chunks */
	assert_int_equal(fdw_btrfs_usage(sb, sizeof(sb), &u), 0);
	assert_int_equal(u.size, 512LL << 20);
	assert_int_equal(u.used, 100LL << 20);
	assert_int_equal(u.devices, 1);
	assert_int_equal(u.allocated, 180LL << 20);
	/* Chunks beyond the device: not believed. */
	u.allocated = -1;
	put_le64(sb + 217, 600ULL << 20);
	assert_int_equal(fdw_btrfs_usage(sb, sizeof(sb), &u), 0);
	assert_int_equal(u.allocated, -1);
	memcpy(sb + 64, "_BHRfS_X", 8);
	assert_int_equal(fdw_btrfs_usage(sb, sizeof(sb), &u), -EINVAL);
}

static void test_vfat(void **state)
{
	unsigned char sb[512] = { 0 };
	struct fdw_fs_usage u;

	(void)state;
	sb[11] = 0x00;
	sb[12] = 0x02;	/* 512 bytes per sector */
	sb[13] = 8;	/* 8 sectors per cluster */
	sb[510] = 0x55;
	sb[511] = 0xAA;
	assert_int_equal(fdw_vfat_usage(sb, sizeof(sb), &u), 0);
	assert_int_equal(u.block_size, 4096);
	assert_int_equal(u.used, -1);
}

/* A LUKS2 binary header followed by @json in the JSON area. */
static unsigned char *luks2(const char *json, size_t *len)
{
	size_t hdr = 16384;
	unsigned char *b = calloc(1, hdr);

	assert_non_null(b);
	memcpy(b, "LUKS\xba\xbe", 6);
	b[7] = 2;
	put_be64(b + 8, hdr);
	memcpy(b + 4096, json, strlen(json));
	*len = hdr;
	return b;
}

static void test_luks2(void **state)
{
	size_t len;
	int version;
	bool unfinished;
	unsigned char *b;

	(void)state;
	b = luks2("{\"config\":{\"json_size\":\"12288\"}}", &len);
	assert_int_equal(fdw_luks_header_parse(b, len, &version, &unfinished), 0);
	assert_int_equal(version, 2);
	assert_false(unfinished);
	free(b);

	b = luks2("{\"config\":{\"requirements\":{\"mandatory\":[\"online-reencrypt-v2\"]}}}",
		  &len);
	assert_int_equal(fdw_luks_header_parse(b, len, &version, &unfinished), 0);
	assert_true(unfinished);
	free(b);

	b = luks2("{not json", &len);
	assert_int_equal(fdw_luks_header_parse(b, len, &version, &unfinished), -EINVAL);
	b[0] = 'X';
	assert_int_equal(fdw_luks_header_parse(b, len, &version, &unfinished), -EINVAL);
	free(b);
}

static void test_luks1(void **state)
{
	unsigned char b[4096] = { 0 };
	int version;
	bool unfinished;

	(void)state;
	memcpy(b, "LUKS\xba\xbe", 6);
	b[7] = 1;
	assert_int_equal(fdw_luks_header_parse(b, sizeof(b), &version, &unfinished), 0);
	assert_int_equal(version, 1);
	assert_false(unfinished);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext4),
		cmocka_unit_test(test_ext_checked_clean),
		cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_vfat),
		cmocka_unit_test(test_btrfs),
		cmocka_unit_test(test_luks2),
		cmocka_unit_test(test_luks1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
