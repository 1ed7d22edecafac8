/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the passphrase strength estimate. */
#include "unit.h"

#include <string.h>
#include <errno.h>

#include "core/base/strength.h"

static enum fdw_strength level_of(const char *pw)
{
	struct fdw_strength_result r;

	fdw_strength_estimate(pw, strlen(pw), &r);
	assert_non_null(r.advice);
	assert_true(r.advice[0] != '\0');
	return r.level;
}

static double bits_of(const char *pw)
{
	struct fdw_strength_result r;

	fdw_strength_estimate(pw, strlen(pw), &r);
	return r.bits;
}

static void test_empty(void **state)
{
	(void)state;
	assert_int_equal(level_of(""), FDW_STRENGTH_EMPTY);
	assert_string_equal(fdw_strength_label(FDW_STRENGTH_EMPTY), "");
}

static void test_common(void **state)
{
	(void)state;
	/* Long enough and mixed, but among the first an attacker tries. */
	assert_int_equal(level_of("password"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("Password123!"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("QWERTYUIOP"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("letmein"), FDW_STRENGTH_WEAK);
	assert_true(bits_of("Password123!") <= 10);
}

static void test_short(void **state)
{
	(void)state;
	assert_int_equal(level_of("x7#Qa"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("Zk4$"), FDW_STRENGTH_WEAK);
}

static void test_runs(void **state)
{
	(void)state;
	/* Repeats and sequences are worth far less than their length. */
	assert_int_equal(level_of("aaaaaaaaaaaaaaaaaaaa"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("abcdefghijklmnop"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("987654321098"), FDW_STRENGTH_WEAK);
	assert_true(bits_of("abcdefghijkl") < bits_of("qmzxwvbrtkle") / 2);
}

static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(level_of("Tr0ub4dor&3"), FDW_STRENGTH_FAIR);
	assert_int_equal(level_of("correct horse battery staple"), FDW_STRENGTH_STRONG);
	assert_int_equal(level_of("vK9#mQ2!xZ7$pL4@"), FDW_STRENGTH_STRONG);
	/* More character classes, more bits at the same length. */
	assert_true(bits_of("qmzxwvbrtkle") < bits_of("qMzX3v$rTk1e"));
}

static void test_utf8(void **state)
{
	(void)state;
	/* Characters count, not bytes: six Cyrillic letters are still short. */
	assert_int_equal(level_of("пароль"), FDW_STRENGTH_WEAK);
	assert_int_equal(level_of("ёжик в тумане и медведь"),
			 FDW_STRENGTH_STRONG);
}

/* A new volume's passphrase: weak needs its own acceptance, empty never passes. */
static void test_check_new(void **state)
{
	char why[512] = "";

	(void)state;
	assert_int_equal(fdw_strength_check_new("password1", 9, false, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "weak"));
	assert_int_equal(fdw_strength_check_new("password1", 9, true, why, sizeof(why)), 0);
	assert_int_equal(fdw_strength_check_new("", 0, true, why, sizeof(why)), -EINVAL);
	assert_int_equal(fdw_strength_check_new("violet tractor ocean spoon", 26, false, why,
						 sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_common),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_check_new),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
