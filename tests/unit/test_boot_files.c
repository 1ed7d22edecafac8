/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for boot partitions recognised by what they hold: the names, the boot loader's
 * configuration, debugfs's output cut and parsed, the verdicts and whose /boot it is. */
#include "unit.h"

#include <string.h>

#include "core/disk/boot_files.h"
#include "core/disk/debugfs_reader.h"
#include "core/disk/disk.h"

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(fdw_boot_files_classify_names("vmlinuz-6.1.0-13-amd64\n"
							"initrd.img-6.1.0-13-amd64\n"
							"config-6.1.0-13-amd64\nSystem.map-6.1\n"),
			 FDW_BOOTF_KERNELS | FDW_BOOTF_INITRAMFS | FDW_BOOTF_KERNEL_FILES);
	/* Arch, Fedora (dracut), the initramfs first. */
	assert_int_equal(fdw_boot_files_classify_names("initramfs-linux.img\nvmlinuz-linux"),
			 FDW_BOOTF_KERNELS | FDW_BOOTF_INITRAMFS);
	/* Anybody's files: a config-* alone is not decisive, a name that only contains one
	 * is nothing. */
	assert_int_equal(fdw_boot_files_classify_names("config-backup.txt\nnotes\n"),
			 FDW_BOOTF_KERNEL_FILES);
	assert_false(fdw_boot_files_classify_names("config-backup.txt") & FDW_BOOTF_DECISIVE);
	assert_int_equal(fdw_boot_files_classify_names("my-vmlinuz-notes\nkernel-notes\n"), 0);
	assert_int_equal(fdw_boot_files_classify_names(""), 0);
}

static void test_config_debian_installer(void **state)
{
	struct fdw_boot_files bf;

	(void)state;
	memset(&bf, 0, sizeof(bf));
	fdw_boot_files_parse_config(
		"### BEGIN /etc/grub.d/10_linux ###\n"
		"menuentry 'Debian GNU/Linux' {\n"
		"\tlinux\t/vmlinuz-6.1.0-13-amd64 root=/dev/mapper/nvme0n1p3_crypt ro quiet\n"
		"\tinitrd\t/initrd.img-6.1.0-13-amd64\n}\n", &bf);
	assert_string_equal(bf.root_mapper, "nvme0n1p3_crypt");
	assert_int_equal(fdw_boot_files_mapper_number(&bf), 3);
	assert_int_equal(bf.n_luks_uuids, 0);
	/* Encrypted LVM: a mapping, but no partition named in it. */
	memset(&bf, 0, sizeof(bf));
	fdw_boot_files_parse_config("linux /vmlinuz root=/dev/mapper/debian--vg-root ro\n", &bf);
	assert_string_equal(bf.root_mapper, "debian--vg-root");
	assert_int_equal(fdw_boot_files_mapper_number(&bf), 0);
}

static void test_config_uuids(void **state)
{
	struct fdw_boot_files bf;

	(void)state;
	memset(&bf, 0, sizeof(bf));
	fdw_boot_files_parse_config(
		"# rd.luks.uuid=11111111-1111-1111-1111-111111111111 in a comment\n"
		"linux /vmlinuz-6.5 root=UUID=abcd rd.luks.uuid=luks-4277DAAC-c5d5-4a6d-8870-"
		"8ff6e50292fe rhgb\n"
		"cryptomount -u 0b0e12345678abcd8def0123456789ab\n"
		"linux /vmlinuz cryptdevice=UUID=aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee:root\n"
		"linux /vmlinuz xrd.luks.uuid=22222222-2222-2222-2222-222222222222\n"
		"linux /vmlinuz rd.luks.uuid=not-a-uuid\n", &bf);
	assert_int_equal(bf.n_luks_uuids, 3);
	assert_true(fdw_boot_files_names_uuid(&bf, "4277daac-c5d5-4a6d-8870-8ff6e50292fe"));
	assert_true(fdw_boot_files_names_uuid(&bf, "0B0E1234-5678-ABCD-8DEF-0123456789AB"));
	assert_true(fdw_boot_files_names_uuid(&bf, "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"));
	assert_false(fdw_boot_files_names_uuid(&bf, "11111111-1111-1111-1111-111111111111"));
	assert_false(fdw_boot_files_names_uuid(&bf, "22222222-2222-2222-2222-222222222222"));
	assert_false(fdw_boot_files_names_uuid(&bf, "4277daac"));
}

static void test_mapper_numbers(void **state)
{
	struct fdw_boot_files bf;
	static const struct {
		const char *name;
		int number;
	} cases[] = {
		{ "sda5_crypt", 5 }, { "vda3_crypt", 3 }, { "mmcblk0p2_crypt", 2 },
		{ "cryptroot", 0 }, { "_crypt", 0 }, { "5_crypt", 0 }, { "sda_crypt", 0 },
		{ "sda3_crypt_x", 0 }, { "sda12345_crypt", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&bf, 0, sizeof(bf));
		snprintf(bf.root_mapper, sizeof(bf.root_mapper), "%s", cases[i].name);
		assert_int_equal(fdw_boot_files_mapper_number(&bf), cases[i].number);
	}
}

static void test_debugfs_ls(void **state)
{
	char *names = fdw_debugfs_parse_ls("/2/040755/0/0/.//\n/2/040755/0/0/..//\n"
					   "/11/040700/0/0/lost+found//\n"
					   "/13/100644/0/0/vmlinuz-6.1/3/\n"
					   "/nope: File not found by ext2_lookup\n"
					   "garbage\n/1/2/3/4/x\n");

	(void)state;
	assert_string_equal(names, "lost+found\nvmlinuz-6.1\n");
	free(names);
}

/* A name may hold a newline and forge debugfs's echo of a command: it may move names to a
 * later listing, never out of all of them. */
static void test_debugfs_split_forged(void **state)
{
	const char *cmds[] = { "stat /grub/grub.cfg", "ls -p /", "ls -p /boot" };
	char *out[3];

	(void)state;
	assert_int_equal(fdw_debugfs_split("debugfs: stat /grub/grub.cfg\n"
					   "Inode: 12   Type: regular\n"
					   "debugfs: ls -p /\n"
					   "/20/100644/0/0/x\n"
					   "debugfs: stat /grub/grub.cfg\n"
					   "Inode: 99/1/\n"
					   "/13/100644/0/0/vmlinuz-6.1/3/\n"
					   "debugfs: ls -p /boot\n"
					   "/14/100644/0/0/initrd.img-6.1/3/\n", cmds, 3, out), 0);
	assert_non_null(strstr(out[0], "Inode: 12"));
	assert_non_null(strstr(out[1], "vmlinuz-6.1"));
	assert_null(strstr(out[0], "Inode: 99"));
	assert_non_null(strstr(out[2], "initrd.img-6.1"));
	for (int i = 0; i < 3; i++)
		free(out[i]);
	/* An echo that never came: that command printed nothing. */
	assert_int_equal(fdw_debugfs_split("debugfs: stat /grub/grub.cfg\nInode: 1\n", cmds, 3,
					   out), 0);
	assert_string_equal(out[1], "");
	assert_string_equal(out[2], "");
	for (int i = 0; i < 3; i++)
		free(out[i]);
}

/* A reader over a made-up tree, for the order of what is asked. */
struct fake_tree {
	const char *const *paths;	/* what exists */
	const char *top, *boot, *efi;	/* the listings */
	const char *config;
};

static int fake_list(void *ctx, const char *dir, char **names)
{
	const struct fake_tree *t = ctx;
	const char *l = !strcmp(dir, "/") ? t->top : !strcmp(dir, "/boot") ? t->boot : t->efi;

	*names = l ? strdup(l) : NULL;
	return l ? 0 : -2;
}

static int fake_exist(void *ctx, const char *const *paths, int n, bool *found)
{
	const struct fake_tree *t = ctx;

	for (int i = 0; i < n; i++)
		for (int k = 0; t->paths && t->paths[k]; k++)
			found[i] |= !strcmp(paths[i], t->paths[k]);
	return 0;
}

static int fake_cat(void *ctx, const char *const *paths, int n, char **text)
{
	const struct fake_tree *t = ctx;

	(void)paths;
	(void)n;
	*text = t->config ? strdup(t->config) : NULL;
	return t->config ? 0 : -2;
}

static struct fdw_boot_files look(const struct fake_tree *t)
{
	const struct fdw_boot_reader rd = { fake_list, fake_exist, fake_cat, (void *)t };
	struct fdw_boot_files bf;

	assert_int_equal(fdw_boot_files_look(&rd, &bf), 0);
	return bf;
}

static void test_look(void **state)
{
	static const char *const grub[] = { "/grub/grub.cfg", NULL };
	static const char *const under[] = { "/boot/grub/grub.cfg", NULL };
	static const char *const windows[] = { "/EFI/Microsoft/Boot", "/bootmgr", NULL };
	static const char *const winsys[] = { "/Windows/System32/winload.efi", NULL };
	static const char *const mac[] = { "/System/Library/CoreServices/boot.efi", NULL };
	static const char *const win_under[] = { "/boot/bootmgr", NULL };
	struct fdw_boot_files bf;

	(void)state;
	bf = look(&(struct fake_tree){ .paths = grub, .top = "vmlinuz-6.1\ninitrd.img-6.1\n",
				       .config = "linux /vmlinuz root=/dev/mapper/sda3_crypt\n" });
	assert_int_equal(bf.kinds, FDW_BOOTF_KERNELS | FDW_BOOTF_INITRAMFS | FDW_BOOTF_GRUB);
	assert_false(bf.under_boot);
	assert_string_equal(bf.root_mapper, "sda3_crypt");
	/* Under boot/ of a partition that is no root. */
	bf = look(&(struct fake_tree){ .paths = under, .top = "boot\nphotos\n",
				       .boot = "vmlinuz-6.1\n" });
	assert_int_equal(bf.kinds, FDW_BOOTF_KERNELS | FDW_BOOTF_GRUB);
	assert_true(bf.under_boot);
	/* A folder named boot with nothing of a boot in it is nothing. */
	bf = look(&(struct fake_tree){ .top = "boot\nphotos\n", .boot = "scans\n" });
	assert_int_equal(bf.kinds, 0);
	/* An EFI folder with something in it; an empty one is nothing. */
	bf = look(&(struct fake_tree){ .top = "EFI\n", .efi = "BOOT\n" });
	assert_int_equal(bf.kinds, FDW_BOOTF_EFI);
	bf = look(&(struct fake_tree){ .top = "EFI\n", .efi = "" });
	assert_int_equal(bf.kinds, 0);
	bf = look(&(struct fake_tree){ .paths = windows, .top = "EFI\nbootmgr\n", .efi = "Microsoft\n" });
	assert_true(bf.kinds & FDW_BOOTF_WINDOWS);
	bf = look(&(struct fake_tree){ .paths = winsys, .top = "Windows\n" });
	assert_int_equal(bf.kinds, FDW_BOOTF_WINDOWS_SYSTEM);
	bf = look(&(struct fake_tree){ .paths = mac, .top = "System\n" });
	assert_int_equal(bf.kinds, FDW_BOOTF_MACOS);
	/* Another system's boot manager only counts where that system puts it. */
	bf = look(&(struct fake_tree){ .paths = win_under, .top = "boot\n", .boot = "bootmgr\n" });
	assert_int_equal(bf.kinds, 0);
}

static struct fdw_partition ext4_part(int number, const char *address)
{
	struct fdw_partition p = {
		.number = number, .address = (char *)address, .size = 256 * FDW_MIB,
		.fstype = "ext4", .fs_size = 256 * FDW_MIB, .fs_used = 30 * FDW_MIB,
		.fs_block_size = 4096, .fs_min_size = 40 * FDW_MIB,
	};
	return p;
}

static void test_verdicts(void **state)
{
	struct fdw_disk d = { .table = "gpt" };
	struct fdw_partition p = ext4_part(2, "disk.img:2");
	char buf[2048];

	(void)state;
	fdw_verdict_decide(&p, &d);
	assert_true(p.verdict.eligible);
	p.boot_files.kinds = FDW_BOOTF_KERNEL_FILES;		/* a config-* alone */
	fdw_verdict_decide(&p, &d);
	assert_true(p.verdict.eligible);
	p.boot_files.kinds = FDW_BOOTF_KERNELS | FDW_BOOTF_GRUB;
	fdw_verdict_decide(&p, &d);
	assert_int_equal(p.verdict.reason, FDW_REASON_BOOT_FILES);
	assert_false(p.verdict.eligible);
	assert_int_equal(p.verdict.strategies, 0);
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "Holds kernels and GRUB's files: a boot loader reads"));
	assert_non_null(strstr(buf, "erase and encrypt it"));
	assert_string_equal(fdw_reason_name(p.verdict.reason), "boot-files");
	/* Refused whoever mounts it now. */
	p.mountpoints = (char *[]){ "/mnt" };
	p.n_mountpoints = 1;
	fdw_verdict_decide(&p, &d);
	assert_int_equal(p.verdict.reason, FDW_REASON_BOOT_FILES);
	p.n_mountpoints = 0;
	p.boot_files.under_boot = true;
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "in its boot folder, and no system of its own"));
	p.boot_files.kinds = FDW_BOOTF_WINDOWS | FDW_BOOTF_EFI;
	fdw_verdict_decide(&p, &d);
	assert_int_equal(p.verdict.reason, FDW_REASON_OTHER_OS_BOOT);
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "Windows' boot manager: Windows starts from it"));
	p.boot_files.kinds = 0;
	p.boot_files.look_error = -19;		/* ENODEV: no driver */
	p.fstype = "vfat";
	fdw_verdict_decide(&p, &d);
	assert_int_equal(p.verdict.reason, FDW_REASON_NOT_LOOKED);
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "could not look inside its vfat filesystem"));
}

/* Whose /boot: the LUKS partition its configuration names, by UUID or by the installer's
 * mapping name; the only one on its disk when root= is some other mapping. */
static void test_whose(void **state)
{
	struct fdw_partition parts[4];
	struct fdw_disk d = { .table = "gpt", .parts = parts, .n_parts = 4 };
	char buf[2048];

	(void)state;
	parts[0] = ext4_part(1, "disk.img:1");
	parts[1] = ext4_part(2, "disk.img:2");
	parts[2] = ext4_part(3, "disk.img:3");
	parts[3] = ext4_part(4, "disk.img:4");
	for (int i = 2; i < 4; i++) {
		parts[i].fstype = "crypto_LUKS";
		parts[i].luks_version = 2;
	}
	parts[2].uuid = "4277daac-c5d5-4a6d-8870-8ff6e50292fe";
	parts[3].uuid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
	parts[1].boot_files.kinds = FDW_BOOTF_KERNELS | FDW_BOOTF_GRUB;
	fdw_boot_files_parse_config("linux /vmlinuz root=/dev/mapper/vda4_crypt\n",
				    &parts[1].boot_files);
	fdw_disks_attribute(&d, 1);
	fdw_verdict_decide(&parts[1], &d);
	assert_string_equal(parts[1].boot_files.root_address, "disk.img:4");
	fdw_verdict_explain(&parts[1], buf, sizeof(buf));
	assert_non_null(strstr(buf, "The /boot of the encrypted system on disk.img:4 (LUKS2)"));
	/* By UUID, whatever the mapping's name. */
	memset(&parts[1].boot_files, 0, sizeof(parts[1].boot_files));
	parts[1].boot_files.kinds = FDW_BOOTF_KERNELS;
	fdw_boot_files_parse_config("linux /vmlinuz rd.luks.uuid=luks-4277daac-c5d5-4a6d-8870-"
				    "8ff6e50292fe root=/dev/mapper/vg-root\n", &parts[1].boot_files);
	fdw_disks_attribute(&d, 1);
	assert_string_equal(parts[1].boot_files.root_address, "disk.img:3");
	/* Some mapping, two LUKS partitions: nobody can tell which. */
	memset(&parts[1].boot_files, 0, sizeof(parts[1].boot_files));
	parts[1].boot_files.kinds = FDW_BOOTF_KERNELS;
	fdw_boot_files_parse_config("linux /vmlinuz root=/dev/mapper/vg-root\n",
				    &parts[1].boot_files);
	fdw_disks_attribute(&d, 1);
	assert_string_equal(parts[1].boot_files.root_address, "");
	/* ... one: that one. */
	parts[3].luks_version = 0;
	parts[3].fstype = "ext4";
	fdw_disks_attribute(&d, 1);
	assert_string_equal(parts[1].boot_files.root_address, "disk.img:3");
}

static void test_describe(void **state)
{
	char buf[256];

	(void)state;
	fdw_boot_files_describe(FDW_BOOTF_KERNELS, buf, sizeof(buf));
	assert_string_equal(buf, "kernels");
	fdw_boot_files_describe(FDW_BOOTF_KERNELS | FDW_BOOTF_INITRAMFS | FDW_BOOTF_GRUB, buf,
				sizeof(buf));
	assert_string_equal(buf, "kernels, initramfs images and GRUB's files");
	fdw_boot_files_describe(FDW_BOOTF_KERNELS | FDW_BOOTF_GRUB, buf, 10);
	assert_int_equal(strlen(buf), 9);
	for (unsigned bit = 1; bit <= FDW_BOOTF_MACOS; bit <<= 1)
		assert_non_null(fdw_boot_file_kind_name(bit));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_config_debian_installer),
		cmocka_unit_test(test_config_uuids),
		cmocka_unit_test(test_mapper_numbers),
		cmocka_unit_test(test_debugfs_ls),
		cmocka_unit_test(test_debugfs_split_forged),
		cmocka_unit_test(test_look),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_whose),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
