/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the one reader of fstab and crypttab lines. */
#include "unit.h"

#include <string.h>

#include "core/base/tabfile.h"

/* The lines of @text, at most @max. */
static size_t read_all(const char *text, struct fdw_tab_line *lines, size_t max)
{
	struct fdw_tab_reader r;
	size_t count = 0;

	fdw_tab_begin(&r, text);
	while (count < max && fdw_tab_next(&r, &lines[count]))
		count++;
	return count;
}

static void test_fields_comments_blanks(void **state)
{
	struct fdw_tab_line l[8];
	size_t n = read_all("# a comment\n"
			    "\n"
			    "  UUID=abc\t/  ext4 errors=remount-ro 0 1\n"
			    "   # indented comment\n"
			    "/swap.img none swap sw 0 0 # trailing\n"
			    "last line without newline", l, 8);

	(void)state;
	assert_int_equal(n, 6);
	assert_int_equal(l[0].n, 0);
	assert_int_equal(l[1].n, 0);
	assert_int_equal(l[2].n, 6);
	assert_true(fdw_tab_field_is(&l[2], 0, "UUID=abc"));
	assert_true(fdw_tab_field_is(&l[2], 1, "/"));
	assert_true(fdw_tab_field_is(&l[2], 5, "1"));
	assert_int_equal(l[2].number, 3);
	assert_true(l[2].newline);
	assert_int_equal(l[3].n, 0);
	/* The trailing comment ends the fields. */
	assert_int_equal(l[4].n, 6);
	assert_true(fdw_tab_field_is(&l[4], 2, "swap"));
	assert_int_equal(l[5].n, 4);
	assert_false(l[5].newline);
	assert_int_equal(l[5].len, strlen("last line without newline"));
}

/* A '#' inside a field is part of it; only one that starts a field begins a comment. */
static void test_hash_inside_field(void **state)
{
	struct fdw_tab_line l;
	struct fdw_tab_reader r;
	char buf[32];

	(void)state;
	fdw_tab_begin(&r, "LABEL=a#b /data ext4 defaults 0 2\n");
	assert_true(fdw_tab_next(&r, &l));
	assert_int_equal(l.n, 6);
	assert_true(fdw_tab_field(&l, 0, buf, sizeof(buf)));
	assert_string_equal(buf, "LABEL=a#b");
}

static void test_escapes_and_limits(void **state)
{
	struct fdw_tab_line l;
	struct fdw_tab_reader r;
	char buf[16], small[4];

	(void)state;
	fdw_tab_begin(&r, "/dev/sdb1 /mnt/My\\040Disk vfat a 0 0 extra fields ignored\n");
	assert_true(fdw_tab_next(&r, &l));
	assert_int_equal(l.n, FDW_TAB_MAX_FIELDS);
	assert_true(fdw_tab_field(&l, 1, buf, sizeof(buf)));
	assert_string_equal(buf, "/mnt/My Disk");
	/* Too long for the buffer: refused, and the buffer left empty, not cut. */
	assert_false(fdw_tab_field(&l, 0, small, sizeof(small)));
	assert_string_equal(small, "");
	/* No such field. */
	assert_false(fdw_tab_field(&l, 6, buf, sizeof(buf)));
	assert_false(fdw_tab_field(&l, -1, buf, sizeof(buf)));
	assert_false(fdw_tab_field_is(&l, 7, "x"));
	assert_false(fdw_tab_next(&r, &l));
}

static void test_options(void **state)
{
	struct fdw_tab_line l;
	struct fdw_tab_reader r;

	(void)state;
	fdw_tab_begin(&r, "data UUID=x none luks,discard,header=/h,keyscript=decrypt_x\n");
	assert_true(fdw_tab_next(&r, &l));
	assert_true(fdw_tab_has_option(&l, 3, "luks"));
	assert_true(fdw_tab_has_option(&l, 3, "discard"));
	assert_true(fdw_tab_has_option(&l, 3, "header"));
	assert_true(fdw_tab_has_option(&l, 3, "keyscript"));
	assert_false(fdw_tab_has_option(&l, 3, "lu"));
	assert_false(fdw_tab_has_option(&l, 3, "swap"));
	assert_false(fdw_tab_has_option(&l, 4, "luks"));
}

static void test_option_value(void **state)
{
	struct fdw_tab_line l;
	struct fdw_tab_reader r;
	char v[16];

	(void)state;
	fdw_tab_begin(&r, "UUID=x / btrfs defaults,subvol=/@old,compress=zstd,subvol=@root\\040fs 0 0\n"
			  "UUID=y /srv ext4 defaults,subvolume=a,subvol 0 2\n");
	assert_true(fdw_tab_next(&r, &l));
	/* The last one wins, its escape decoded. */
	assert_true(fdw_tab_option_value(&l, 3, "subvol", v, sizeof(v)));
	assert_string_equal(v, "@root fs");
	assert_true(fdw_tab_option_value(&l, 3, "compress", v, sizeof(v)));
	assert_string_equal(v, "zstd");
	assert_false(fdw_tab_option_value(&l, 3, "defaults", v, sizeof(v)));
	assert_string_equal(v, "");
	/* Too long for the buffer: none, not cut. */
	assert_false(fdw_tab_option_value(&l, 3, "subvol", v, 5));
	assert_string_equal(v, "");
	assert_false(fdw_tab_option_value(&l, 7, "subvol", v, sizeof(v)));
	assert_true(fdw_tab_next(&r, &l));
	/* A longer name that begins the same, and the option with no value: none. */
	assert_false(fdw_tab_option_value(&l, 3, "subvol", v, sizeof(v)));
}

static void test_empty_and_null(void **state)
{
	struct fdw_tab_line l;
	struct fdw_tab_reader r;

	(void)state;
	fdw_tab_begin(&r, NULL);
	assert_false(fdw_tab_next(&r, &l));
	fdw_tab_begin(&r, "");
	assert_false(fdw_tab_next(&r, &l));
	fdw_tab_begin(&r, "\n");
	assert_true(fdw_tab_next(&r, &l));
	assert_int_equal(l.n, 0);
	assert_false(fdw_tab_next(&r, &l));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_comments_blanks),
		cmocka_unit_test(test_hash_inside_field),
		cmocka_unit_test(test_escapes_and_limits),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_option_value),
		cmocka_unit_test(test_empty_and_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
