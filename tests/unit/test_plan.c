/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the conversion plan: sizes per strategy, sector size against the block size. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "core/convert/plan.h"

static struct fdw_disk disk = { .table = "gpt" };

static struct fdw_partition ext4_part(void)
{
	struct fdw_partition p = { .number = 1, .size = 1024 * FDW_MIB, .fstype = "ext4",
				   .fs_size = 1024 * FDW_MIB, .fs_used = 100 * FDW_MIB,
				   .fs_free = 924 * FDW_MIB, .fs_block_size = 4096,
				   .fs_sector_size = 4096, .fs_min_size = 150 * FDW_MIB };

	fdw_verdict_decide(&p, &disk);
	return p;
}

static void test_shrink_sizes(void **state)
{
	struct fdw_partition p = ext4_part();
	struct fdw_plan_request rq = { 0 };
	struct fdw_plan pl;
	const char *why;

	(void)state;
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), 0);
	assert_int_equal(pl.strategy, FDW_STRATEGY_SHRINK);
	assert_true(pl.fs_size_max == 1024 * FDW_MIB - 32 * FDW_MIB);
	assert_true(pl.volume_size == 1024 * FDW_MIB - 16 * FDW_MIB);
	assert_true(pl.header_bytes == 16 * FDW_MIB);
	assert_int_equal(pl.sector_size, 4096);
	assert_string_equal(pl.cipher, "aes");
	assert_string_equal(pl.cipher_mode, "xts-plain64");
	assert_int_equal(pl.key_bits, 512);
}

static void test_grow_keeps_filesystem(void **state)
{
	struct fdw_partition p = ext4_part();
	struct fdw_plan_request rq = { 0 };
	struct fdw_plan pl;
	const char *why;

	(void)state;
	p.free_after = 100 * FDW_MIB;
	fdw_verdict_decide(&p, &disk);
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), 0);
	assert_int_equal(pl.strategy, FDW_STRATEGY_GROW);
	assert_true(pl.grow_bytes == 32 * FDW_MIB);
	/* The filesystem keeps its full size and fits the new volume. */
	assert_true(pl.fs_size_max == p.size);
	assert_true(pl.volume_size == p.size + 16 * FDW_MIB);
}

/* The plan asks the verdict's own shrink computation again; a stale verdict cannot pass. */
static void test_shrink_needs_room_below_minimum(void **state)
{
	struct fdw_partition p = ext4_part();
	struct fdw_plan_request rq = { .strategy = FDW_STRATEGY_SHRINK };
	struct fdw_plan pl;
	const char *why;

	(void)state;
	p.fs_min_size = 1000 * FDW_MIB;	/* measured again, now too large */
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -ENOTSUP);
	fdw_verdict_decide(&p, &disk);
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EPERM);
}

/* A filesystem already smaller than its partition: no resize, nothing grows back. */
static void test_free_tail_plan(void **state)
{
	struct fdw_partition p = ext4_part();
	struct fdw_plan_request rq = { 0 };
	struct fdw_plan pl;
	const char *why;

	(void)state;
	p.fs_size = 250 * FDW_MIB;
	fdw_verdict_decide(&p, &disk);
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), 0);
	assert_int_equal(pl.strategy, FDW_STRATEGY_FREE_TAIL);
	assert_true(pl.grow_bytes == 0);
	assert_true(pl.partition_size == p.size);
	assert_true(pl.fs_size_max == p.size - 32 * FDW_MIB);
	rq.strategy = FDW_STRATEGY_SHRINK;
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -ENOTSUP);
}

static void test_sector_size_never_above_block(void **state)
{
	struct fdw_partition p = ext4_part();
	struct fdw_plan_request rq = { .sector_size = 4096 };
	struct fdw_plan pl;
	const char *why;

	(void)state;
	p.fs_block_size = p.fs_sector_size = 1024;	/* ext4 with 1 KiB blocks */
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EINVAL);
	/* XFS: 4 KiB blocks but 512-byte sectors; the sector size is the limit. */
	p.fs_block_size = 4096;
	p.fs_sector_size = 512;
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EINVAL);
	p.fs_sector_size = -1;
	p.fs_block_size = 1024;
	assert_non_null(why);
	rq.sector_size = 0;	/* automatic: the largest that fits */
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), 0);
	assert_int_equal(pl.sector_size, 512);
	rq.sector_size = 3000;
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EINVAL);
}

static void test_refusals(void **state)
{
	struct fdw_partition p = ext4_part();
	struct fdw_plan_request rq = { 0 };
	struct fdw_plan pl;
	const char *why;

	(void)state;
	p.fstype = "xfs";
	fdw_verdict_decide(&p, &disk);
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EPERM);
	assert_non_null(why);
	rq.strategy = FDW_STRATEGY_SHRINK;
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EPERM);
	rq.strategy = FDW_STRATEGY_DETACHED;
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EINVAL);	/* no file named */
	rq.detached_header = "/safe/place/hdr";
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), 0);
	assert_true(pl.volume_size == p.size);
	rq.cipher_spec = "aes";
	assert_int_equal(fdw_plan_make(&p, &rq, &pl, &why), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shrink_sizes),
		cmocka_unit_test(test_grow_keeps_filesystem),
		cmocka_unit_test(test_shrink_needs_room_below_minimum),
		cmocka_unit_test(test_free_tail_plan),
		cmocka_unit_test(test_sector_size_never_above_block),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
