/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for adding the fstab line of a new /boot. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "core/boot/fstab_mount.h"

static char why[512];

static void test_after_root(void **state)
{
	const char *old = "# /etc/fstab\nUUID=r / ext4 errors=remount-ro 0 1\n"
			  "UUID=e /boot/efi vfat umask=0077 0 1\n";
	char *out = NULL, *again = NULL;

	(void)state;
	assert_int_equal(fdw_fstab_add_mount(old, "UUID=b", "/boot", "ext4", "defaults", 2,
					     &out, why, sizeof(why)), 0);
	assert_string_equal(out, "# /etc/fstab\nUUID=r / ext4 errors=remount-ro 0 1\n"
				 "UUID=b /boot ext4 defaults 0 2\n"
				 "UUID=e /boot/efi vfat umask=0077 0 1\n");
	/* Again: there already, nothing to write. */
	assert_int_equal(fdw_fstab_add_mount(out, "UUID=b", "/boot", "ext4", "defaults", 2,
					     &again, why, sizeof(why)), 1);
	assert_null(again);
	free(out);
}

static void test_no_root_line(void **state)
{
	char *out = NULL;

	(void)state;
	assert_int_equal(fdw_fstab_add_mount("tmpfs /tmp tmpfs defaults 0 0", "UUID=b", "/boot",
					     "ext4", "defaults", 2, &out, why, sizeof(why)), 0);
	assert_string_equal(out, "tmpfs /tmp tmpfs defaults 0 0\nUUID=b /boot ext4 defaults 0 2\n");
	free(out);
	assert_int_equal(fdw_fstab_add_mount(NULL, "UUID=b", "/boot", "ext4", "defaults", 2,
					     &out, why, sizeof(why)), 0);
	assert_string_equal(out, "UUID=b /boot ext4 defaults 0 2\n");
	free(out);
}

static void test_refusals(void **state)
{
	const char *old = "UUID=r / ext4 defaults 0 1\nUUID=x /boot ext2 defaults 0 2\n";
	char *out = NULL;

	(void)state;
	assert_int_equal(fdw_fstab_add_mount(old, "UUID=b", "/boot", "ext4", "defaults", 2,
					     &out, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "line 2 of fstab already mounts UUID=x at /boot"));
	assert_null(out);
	assert_int_equal(fdw_fstab_add_mount(old, "UUID=b c", "/boot2", "ext4", "defaults", 2,
					     &out, why, sizeof(why)), -EINVAL);
	assert_int_equal(fdw_fstab_add_mount(old, "UUID=b", "/boot2", "ext4", "", 2, &out, why,
					     sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_after_root),
		cmocka_unit_test(test_no_root_line),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
