/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the terminal escaping of outside text. */
#include "unit.h"

#include <string.h>

#include "core/base/textsafe.h"

static void check(const char *in, const char *expect)
{
	char buf[256];

	assert_int_equal(fdw_text_escape(in, buf, sizeof(buf)), strlen(expect));
	assert_string_equal(buf, expect);
}

static void test_plain_kept(void **state)
{
	(void)state;
	check("root", "root");
	check("", "");
	check(NULL, "");
	check("Linux filesystem", "Linux filesystem");
	check("\xd0\x94\xd0\xb0\xd0\xbd\xd0\xbd\xd1\x8b\xd0\xb5", "Данные");
	check("\xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf", "データ");
	check("\xf0\x9f\x94\x91 key", "\xf0\x9f\x94\x91 key");
}

static void test_controls_escaped(void **state)
{
	(void)state;
	check("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
	check("\x1b]0;owned\a", "\\x1b]0;owned\\x07");
	check("a\rb\nc\td", "a\\x0db\\x0ac\\x09d");
	check("del\x7f", "del\\x7f");
	check("back\\slash", "back\\x5cslash");
	/* C1 CSI (U+009B) encoded in UTF-8, and a bidi override (U+202E). */
	check("\xc2\x9b" "2J", "\\xc2\\x9b2J");
	check("abc\xe2\x80\xaetxt", "abc\\xe2\\x80\\xaetxt");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	check("\xff\xfe", "\\xff\\xfe");
	check("caf\xe9", "caf\\xe9");
	check("\xc0\xaf", "\\xc0\\xaf");
	check("\xed\xa0\x80", "\\xed\\xa0\\x80");
	check("\xe3\x83", "\\xe3\\x83");
	check("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	check("\x9b", "\\x9b");
}

static void test_truncation(void **state)
{
	char buf[8];

	(void)state;
	/* Room for 7 bytes: "ab" and one escape fit, the second escape does not start. */
	assert_int_equal(fdw_text_escape("ab\x1b\x1b", buf, sizeof(buf)), 10);
	assert_string_equal(buf, "ab\\x1b");
	/* A two-byte character is never split. */
	assert_int_equal(fdw_text_escape("abcdef\xd0\x94", buf, sizeof(buf)), 8);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(fdw_text_escape("x", buf, 0), 1);
	assert_string_equal(fdw_text_safe("x\x07", buf, 1), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_kept),
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
