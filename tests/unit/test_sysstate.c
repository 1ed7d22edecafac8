/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the mountinfo and swaps parsers, on captured text. */
#include "unit.h"

#include <string.h>

#include "core/base/sysstate.h"

static FILE *text(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	assert_non_null(f);
	return f;
}

static void test_mountinfo(void **state)
{
	const char *mi =
		"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
		"42 22 7:0 / /mnt/my\\040data rw,relatime - ext4 /dev/loop0 rw\n"
		"50 22 0:45 /@srv\\040a /srv rw shared:3 master:2 - btrfs /dev/sdb2 rw,space_cache\n"
		"garbage line\n";
	struct fdw_mount *m;
	size_t n;
	FILE *f = text(mi);

	(void)state;
	assert_int_equal(fdw_mountinfo_parse(f, &m, &n), 0);
	fclose(f);
	assert_int_equal(n, 3);
	assert_int_equal(m[0].major, 254);
	assert_int_equal(m[0].minor, 1);
	assert_string_equal(m[0].mountpoint, "/");
	assert_string_equal(m[1].mountpoint, "/mnt/my data");
	assert_string_equal(m[1].source, "/dev/loop0");
	/* Several optional fields before the separator. */
	assert_string_equal(m[2].fstype, "btrfs");
	assert_string_equal(m[2].source, "/dev/sdb2");
	/* The folder mounted: a btrfs subvolume's path, unescaped. */
	assert_string_equal(m[0].root, "/");
	assert_string_equal(m[2].root, "/@srv a");

	struct fdw_sysstate st = { .mounts = m, .n_mounts = n };
	char **mps = NULL;
	size_t n_mps = 0;

	/* btrfs: the device number is anonymous, so the source path has to match. */
	assert_int_equal(fdw_sysstate_mounts_of(&st, 0, "/dev/sdb2", &mps, &n_mps), 0);
	assert_int_equal(n_mps, 1);
	assert_string_equal(mps[0], "/srv");
	fdw_strv_free(mps, n_mps);
	fdw_sysstate_free(&st);
}

static void test_swaps(void **state)
{
	const char *sw = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
			 "/dev/sda3                               partition\t8388604\t\t0\t\t-2\n"
			 "/swap\\040file                           file\t\t1048572\t\t0\t\t-3\n";
	char **v;
	size_t n;
	FILE *f = text(sw);

	(void)state;
	assert_int_equal(fdw_swaps_parse(f, &v, &n), 0);
	fclose(f);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "/dev/sda3");
	assert_string_equal(v[1], "/swap file");
	fdw_strv_free(v, n);
}

static void test_unescape(void **state)
{
	char s[] = "a\\040b\\011c\\134d\\9";

	(void)state;
	fdw_unescape_octal(s);
	assert_string_equal(s, "a b\tc\\d\\9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_swaps),
		cmocka_unit_test(test_unescape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
