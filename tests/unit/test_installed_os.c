/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for reading an installed system's fstab and os-release (outside text). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/disk/installed_os.h"
#include "core/disk/os_support.h"

#define UUID "5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d"

static struct fdw_installed_os fstab(const char *text, const char *label)
{
	struct fdw_installed_os os;

	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_fstab(text, UUID, label, &os);
	return os;
}

static void test_debian_fstab(void **state)
{
	struct fdw_installed_os os = fstab(
		"# /etc/fstab: static file system information.\n"
		"#\n"
		"# <file system> <mount point>   <type>  <options>       <dump>  <pass>\n"
		"UUID=" UUID " /               ext4    errors=remount-ro 0       1\n"
		"# /boot was on /dev/sda1 during installation\n"
		"UUID=0b0e-1234  /boot           ext2    defaults        0       2\n"
		"UUID=aaaa /home ext4 defaults 0 2\n"
		"/dev/sda5       none            swap    sw              0       0\n"
		"/dev/sr0        /media/cdrom0   udf,iso9660 user,noauto     0       0\n", NULL);

	(void)state;
	assert_true(os.found);
	assert_true(os.fstab_names_it);
	assert_true(os.boot_separate);
	assert_true(os.home_separate);
	assert_false(os.usr_separate);
	assert_int_equal(os.n_swaps, 1);
	assert_string_equal(os.boot_spec, "UUID=0b0e-1234");
}

/* The pre-flight on what is inside: only a setup fdewiz can make boot passes. */
static void test_system_boot_check(void **state)
{
	struct fdw_installed_os os = fstab("UUID=" UUID " / ext4 defaults 0 1\n"
					   "UUID=0b0e-1234 /boot ext4 defaults 0 2\n", NULL);

	(void)state;
	os.initramfs = FDW_INITRAMFS_TOOLS;
	os.luks_in_initramfs = true;
	os.loader = FDW_LOADER_GRUB_BIOS;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_OK);
	os.loader = FDW_LOADER_GRUB_EFI;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_OK);
	os.loader = FDW_LOADER_UNKNOWN;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_UNKNOWN_LOADER);
	os.loader = FDW_LOADER_SYSTEMD_BOOT;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_SYSTEMD_BOOT);
	os.loader = FDW_LOADER_GRUB_BIOS;
	os.luks_in_initramfs = false;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_NO_LUKS_INITRAMFS);
	os.luks_in_initramfs = true;
	os.initramfs = FDW_INITRAMFS_UNKNOWN;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_UNKNOWN_INITRAMFS);
	os.initramfs = FDW_INITRAMFS_DRACUT;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_OK);
	os.usr_separate = true;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_USR_SEPARATE);
	os.usr_separate = false;
	os.boot_separate = false;
	os.boot_spec[0] = '\0';
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_BOOT_INSIDE);
	os.boot_separate = true;
	strcpy(os.boot_spec, "UUID=0b0e-1234");
	os.fstab_names_it = false;
	assert_int_equal(fdw_os_support_check(&os), FDW_SYSBOOT_NOT_ITS_ROOT);
	for (int r = FDW_SYSBOOT_NOT_ITS_ROOT; r <= FDW_SYSBOOT_USR_SEPARATE; r++)
		assert_true(fdw_os_support_refusal_text(r)[0] != '\0');
}

static void test_names_it(void **state)
{
	(void)state;
	/* UUIDs compare without case; by-uuid links and labels name it too. */
	assert_true(fstab("UUID=5B1C3F5E-8A3E-4A59-9C0E-6F1D2A3B4C5D / ext4 defaults 0 1\n",
			  NULL).fstab_names_it);
	assert_true(fstab("/dev/disk/by-uuid/" UUID "\t/\text4\tdefaults\t0\t1\n",
			  NULL).fstab_names_it);
	assert_true(fstab("LABEL=root / ext4 defaults 0 1\n", "root").fstab_names_it);
	assert_true(fstab("/dev/disk/by-label/my\\040root / ext4 defaults 0 1\n",
			  "my root").fstab_names_it);
	/* Another filesystem's root, or a device name: a system, not named by identity. */
	assert_true(fstab("UUID=aaaa / ext4 defaults 0 1\n", "root").found);
	assert_false(fstab("UUID=aaaa / ext4 defaults 0 1\n", "root").fstab_names_it);
	assert_false(fstab("/dev/sda2 / ext4 defaults 0 1\n", NULL).fstab_names_it);
	assert_false(fstab("LABEL= / ext4 defaults 0 1\n", "").fstab_names_it);
}

static void test_not_a_system(void **state)
{
	(void)state;
	assert_false(fstab("", NULL).found);
	assert_false(fstab("# UUID=" UUID " / ext4 defaults 0 1\n", NULL).found);
	assert_false(fstab("UUID=" UUID " /mnt/data ext4 defaults 0 2\n", NULL).found);
	/* A / with no type is no entry. */
	assert_false(fstab("UUID=" UUID " /\n", NULL).found);
	/* An escaped space makes it another path. */
	assert_false(fstab("UUID=" UUID " /\\040 ext4 defaults 0 1\n", NULL).found);
	assert_true(fstab("   UUID=" UUID "   /   ext4 # comment\n", NULL).found);
}

static void test_hostile_fstab(void **state)
{
	char big[8192];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(fstab(big, NULL).found);
	assert_false(fstab("\\\\\\ \\0 \\777 swap\n", NULL).found);
	assert_int_equal(fstab("a b swap\na b swap\n\n\n", NULL).n_swaps, 2);
	/* Ubuntu's /swap.img is a file inside the root; partitions and mappings are not. */
	{
		struct fdw_installed_os os = fstab("/swap.img none swap sw 0 0\n"
						   "/dev/sda3 none swap sw 0 0\n"
						   "UUID=1234 none swap sw 0 0\n"
						   "/var/swapfile none swap sw 0 0\n", NULL);

		assert_int_equal(os.n_swaps, 4);
		assert_int_equal(os.n_swap_files, 2);
		assert_string_equal(os.swap_file, "/swap.img");
	}
	assert_false(fstab(NULL, NULL).found);
}

/* Hibernation into a swap file: RESUME_OFFSET= for initramfs-tools, or resume_offset= on
 * GRUB's kernel line; not a comment, not another variable's text. */
static void test_resume_offset(void **state)
{
	struct fdw_installed_os os;

	(void)state;
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_resume("RESUME=UUID=1234\nRESUME_OFFSET=34816\n", &os);
	assert_true(os.hibernates && os.resume_offset);
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_resume("RESUME=none\nRESUME_OFFSET=\n", &os);
	assert_false(os.hibernates || os.resume_offset);
	fdw_installed_os_parse_default_grub("# GRUB_CMDLINE_LINUX=\"resume_offset=1\"\n"
					    "GRUB_DISTRIBUTOR=\"resume_offset=\"\n", &os);
	assert_false(os.resume_offset);
	fdw_installed_os_parse_default_grub("GRUB_TIMEOUT=5\n  GRUB_CMDLINE_LINUX_DEFAULT=\"quiet "
					    "resume=UUID=1 resume_offset=34816\"\n", &os);
	assert_true(os.resume_offset);
}

static void test_os_release(void **state)
{
	struct fdw_installed_os os;
	char long_name[400];

	(void)state;
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_os_release("NAME=\"Debian GNU/Linux\"\n"
					  "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n", &os);
	assert_string_equal(os.name, "Debian GNU/Linux 12 (bookworm)");
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_os_release("PRETTY_NAME='Fedora Linux 40'", &os);
	assert_string_equal(os.name, "Fedora Linux 40");
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_os_release("PRETTY_NAME=Arch\nPRETTY_NAME=second\n", &os);
	assert_string_equal(os.name, "Arch");
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_os_release("PRETTY_NAME=\"\n", &os);
	assert_string_equal(os.name, "\"");
	memset(&os, 0, sizeof(os));
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	memcpy(long_name, "PRETTY_NAME=", 12);
	fdw_installed_os_parse_os_release(long_name, &os);
	assert_int_equal(strlen(os.name), sizeof(os.name) - 1);
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_os_release("ID=debian\n", &os);
	assert_string_equal(os.name, "");
}

static void test_describe(void **state)
{
	struct fdw_installed_os os = { .found = true, .name = "Debian GNU/Linux 12 (bookworm)" };
	char buf[256];

	(void)state;
	fdw_installed_os_describe(&os, buf, sizeof(buf));
	assert_string_equal(buf, "Debian GNU/Linux 12 (bookworm) (/, /boot inside)");
	os.boot_separate = true;
	os.name[0] = '\0';
	fdw_installed_os_describe(&os, buf, sizeof(buf));
	assert_string_equal(buf, "an installed Linux system (/; /boot on another partition)");
	snprintf(os.root_subvol, sizeof(os.root_subvol), "@rootfs");
	fdw_installed_os_describe(&os, buf, sizeof(buf));
	assert_string_equal(buf, "an installed Linux system (/ in the subvolume @rootfs; /boot on "
				 "another partition)");
}

/* A btrfs root's subvolume, as its fstab mounts it: a leading '/' or none, among options. */
static void test_fstab_subvol(void **state)
{
	struct fdw_installed_os os;

	(void)state;
	os = fstab("UUID=" UUID " / btrfs defaults,subvol=@rootfs 0 0\n", NULL);
	assert_true(os.fstab_names_it);
	assert_string_equal(os.fstab_subvol, "@rootfs");
	os = fstab("UUID=" UUID " / btrfs subvol=/root,compress=zstd:1 0 0\n", NULL);
	assert_string_equal(os.fstab_subvol, "root");
	os = fstab("UUID=" UUID " / btrfs defaults 0 0\n", NULL);
	assert_string_equal(os.fstab_subvol, "");
	/* Too long for the record: none, never a cut name that might be another one. */
	os = fstab("UUID=" UUID " / btrfs subvol=@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0 0\n",
		   NULL);
	assert_string_equal(os.fstab_subvol, "");
	/* Only the / line's. */
	os = fstab("UUID=" UUID " / ext4 defaults 0 1\nUUID=x /home btrfs subvol=@home 0 0\n",
		   NULL);
	assert_string_equal(os.fstab_subvol, "");
}

/* Every partition the system names, and what for: what the attribution works from. */
static void test_entries(void **state)
{
	struct fdw_installed_os os = fstab(
		"UUID=" UUID " / ext4 defaults 0 1\n"
		"UUID=0b0e-1234 /boot ext4 defaults 0 2\n"
		"PARTUUID=abcd-02 /boot/efi vfat umask=0077 0 1\n"
		"LABEL=usr /usr ext4 defaults 0 2\n"
		"/dev/disk/by-uuid/aaaa /home ext4 defaults 0 2\n"
		"PARTLABEL=srv\\040data /srv/data ext4 defaults 0 2\n"
		"/dev/sda5 none swap sw 0 0\n"
		"tmpfs /tmp tmpfs defaults 0 0\n"
		"/srv/a /srv/b none bind 0 0\n"
		"UUID= /var ext4 defaults 0 2\n", NULL);

	(void)state;
	assert_int_equal(os.n_entries, 6);
	assert_string_equal(os.entries[0].spec, "UUID=0b0e-1234");
	assert_string_equal(os.entries[0].dir, "/boot");
	assert_int_equal(os.entries[0].use, FDW_USE_BOOT);
	assert_int_equal(os.entries[1].use, FDW_USE_BOOT);	/* /boot/efi */
	assert_int_equal(os.entries[2].use, FDW_USE_BOOT);	/* /usr */
	assert_int_equal(os.entries[3].use, FDW_USE_DATA);
	assert_string_equal(os.entries[3].dir, "/home");
	assert_string_equal(os.entries[4].spec, "PARTLABEL=srv data");	/* octal decoded */
	assert_int_equal(os.entries[4].use, FDW_USE_DATA);
	assert_string_equal(os.entries[5].spec, "/dev/sda5");
	assert_int_equal(os.entries[5].use, FDW_USE_SWAP);
	assert_string_equal(os.entries[5].dir, "");
	assert_string_equal(fdw_os_use_name(FDW_USE_BOOT), "boot");
	assert_null(fdw_os_use_name(FDW_USE_NONE));
}

static void test_crypttab_and_resume(void **state)
{
	struct fdw_installed_os os;
	char many[4096] = "";

	(void)state;
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_crypttab("# <target> <source> <key> <options>\n"
					"sda4_crypt UUID=1111 none luks,discard\n"
					"cswap PARTUUID=2222 /dev/urandom swap,cipher=aes-xts-plain64\n"
					"lonely\n"
					"bad notaspec none luks\n", &os);
	assert_int_equal(os.n_entries, 2);
	assert_string_equal(os.entries[0].spec, "UUID=1111");
	assert_int_equal(os.entries[0].use, FDW_USE_CRYPT);
	assert_string_equal(os.entries[1].spec, "PARTUUID=2222");
	fdw_installed_os_parse_resume("RESUME=none\n", &os);
	assert_false(os.hibernates);
	assert_int_equal(os.n_entries, 2);
	fdw_installed_os_parse_resume("# comment\nRESUME=\"UUID=3333\"\n", &os);
	assert_true(os.hibernates);
	assert_int_equal(os.n_entries, 3);
	assert_string_equal(os.entries[2].spec, "UUID=3333");
	assert_int_equal(os.entries[2].use, FDW_USE_RESUME);
	/* auto hibernates to a swap found at boot: no partition named, still hibernating. */
	memset(&os, 0, sizeof(os));
	fdw_installed_os_parse_resume("RESUME=auto", &os);
	assert_true(os.hibernates);
	assert_int_equal(os.n_entries, 0);
	/* No more than the table holds, however many lines. */
	for (int i = 0; i < 40; i++)
		strcat(many, "x UUID=abcd none luks\n");
	fdw_installed_os_parse_crypttab(many, &os);
	assert_int_equal(os.n_entries, FDW_OS_MAX_ENTRIES);
	fdw_installed_os_parse_crypttab(NULL, &os);
	fdw_installed_os_parse_resume(NULL, &os);
	assert_int_equal(os.n_entries, FDW_OS_MAX_ENTRIES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_fstab),
		cmocka_unit_test(test_system_boot_check),
		cmocka_unit_test(test_names_it),
		cmocka_unit_test(test_not_a_system),
		cmocka_unit_test(test_hostile_fstab),
		cmocka_unit_test(test_os_release),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_fstab_subvol),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_crypttab_and_resume),
		cmocka_unit_test(test_resume_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
