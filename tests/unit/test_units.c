/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for human-readable sizes. */
#include "unit.h"

#include "core/base/units.h"

static void check(uint64_t bytes, const char *expect)
{
	char buf[32];

	assert_string_equal(fdw_format_size(bytes, buf, sizeof(buf)), expect);
}

static void test_sizes(void **state)
{
	(void)state;
	check(0, "0 B");
	check(512, "512 B");
	check(1536, "1.5 KiB");
	check(32ULL << 20, "32 MiB");
	check(3ULL << 29, "1.5 GiB");
	check(250ULL << 30, "250 GiB");
	check((1ULL << 40) + (1ULL << 39), "1.5 TiB");
}

static void test_durations(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(fdw_format_duration(-1, "?", buf, sizeof(buf)), "?");
	assert_string_equal(fdw_format_duration(0, "?", buf, sizeof(buf)), "0:00");
	assert_string_equal(fdw_format_duration(42.4, "?", buf, sizeof(buf)), "0:42");
	assert_string_equal(fdw_format_duration(59.6, "?", buf, sizeof(buf)), "1:00");
	assert_string_equal(fdw_format_duration(725, "?", buf, sizeof(buf)), "12:05");
	assert_string_equal(fdw_format_duration(3723, "--:--", buf, sizeof(buf)), "1:02:03");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_sizes),
					    cmocka_unit_test(test_durations) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
