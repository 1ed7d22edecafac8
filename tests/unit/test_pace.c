/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for how a conversion shares the disk: the waits, the names, the disk's stat. */
#include "unit.h"

#include <string.h>

#include "core/base/pace.h"

static void test_names(void **state)
{
	(void)state;
	for (int i = 0; i < FDW_PACE__COUNT; i++)
		assert_int_equal(fdw_pace_parse(fdw_pace_name((enum fdw_pace)i)), i);
	assert_int_equal(fdw_pace_parse("turbo"), -1);
	assert_int_equal(fdw_pace_parse(""), -1);
	assert_int_equal(fdw_pace_parse(NULL), -1);
	assert_null(fdw_pace_name(FDW_PACE__COUNT));
}

static void test_waits(void **state)
{
	const double busy = 2 * FDW_PACE_BUSY_BPS, quiet = FDW_PACE_BUSY_BPS / 2;

	(void)state;
	/* full never waits; auto only while others use the disk, a quarter of the time. */
	assert_true(fdw_pace_wait(FDW_PACE_FULL, busy, 0.2) == 0);
	assert_true(fdw_pace_wait(FDW_PACE_AUTO, quiet, 0.2) == 0);
	assert_float_equal(fdw_pace_wait(FDW_PACE_AUTO, busy, 0.2), 0.6, 1e-9);
	/* gentle: half the time on a quiet disk, a tenth on a busy one. */
	assert_float_equal(fdw_pace_wait(FDW_PACE_GENTLE, quiet, 0.2), 0.2, 1e-9);
	assert_float_equal(fdw_pace_wait(FDW_PACE_GENTLE, busy, 0.1), 0.9, 1e-9);
	/* Never longer than the cap, whatever a slow hotzone took. */
	assert_float_equal(fdw_pace_wait(FDW_PACE_GENTLE, busy, 30), FDW_PACE_MAX_WAIT_S, 1e-9);
	assert_float_equal(fdw_pace_wait(FDW_PACE_AUTO, busy, 30), FDW_PACE_MAX_WAIT_S, 1e-9);
	assert_true(fdw_pace_wait(FDW_PACE_AUTO, busy, 0) == 0);
}

static void test_stat(void **state)
{
	uint64_t bytes = 0;

	(void)state;
	/* /sys/block/sda/stat: 1000 sectors read (field 3), 2000 written (field 7). */
	assert_true(fdw_pace_parse_stat("   12 0 1000 30 40 0 2000 50 0 60 90 0 0 0 0 0 0\n",
					&bytes));
	assert_true(bytes == 3000ULL * 512);
	assert_false(fdw_pace_parse_stat("12 0 1000", &bytes));
	assert_false(fdw_pace_parse_stat("", &bytes));
}

/* A device with no disk under it (a regular file here): the pacer never waits. */
static void test_no_disk(void **state)
{
	struct fdw_pacer p;
	volatile sig_atomic_t stop = 0;

	(void)state;
	fdw_pacer_init(&p, "/nonexistent/device");
	assert_string_equal(p.stat_path, "");
	assert_true(fdw_pacer_step(&p, FDW_PACE_GENTLE, 1 << 20, &stop) == 0);
	assert_false(p.yielding);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_no_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
