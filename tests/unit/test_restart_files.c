/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the restart's stage record and the files it puts into a system. */
#include "unit.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fileio.h"
#include "core/boot/restart_files.h"
#include "core/convert/restart.h"

static char root[PATH_MAX];

static int make_root(void **state)
{
	static const char *const dirs[] = { "/etc", "/etc/initramfs-tools",
					    "/etc/initramfs-tools/hooks",
					    "/etc/initramfs-tools/scripts",
					    "/etc/initramfs-tools/scripts/local-top",
					    "/etc/initramfs-tools/conf.d", "/etc/systemd",
					    "/etc/systemd/system",
					    "/etc/systemd/system/multi-user.target.wants" };
	char d[PATH_MAX + 64];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/fdw-restart-XXXXXX");
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(d, sizeof(d), "%s%s", root, dirs[i]);
		assert_int_equal(mkdir(d, 0755), 0);
	}
	return 0;
}

static int remove_root(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static char *slurp(const char *rel)
{
	char path[PATH_MAX + 128], *text = NULL;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (fdw_read_file(path, 1 << 16, 0, &text, &n, NULL) != 0)
		return NULL;
	return text;
}

/* Field by field: the flag at the end is followed by the struct's padding. */
static void assert_stage_equal(const struct fdw_restart_stage *a,
			       const struct fdw_restart_stage *b)
{
	assert_memory_equal(a, b, offsetof(struct fdw_restart_stage, swap_replaced));
	assert_int_equal(a->swap_replaced, b->swap_replaced);
}

static void test_stage_round_trip(void **state)
{
	struct fdw_restart_stage st = { 0 }, back;
	char path[PATH_MAX + 16];

	(void)state;
	snprintf(st.device, sizeof(st.device), "/dev/disk/by-partuuid/1234-02");
	snprintf(st.address, sizeof(st.address), "/dev/vda2");
	snprintf(st.uuid, sizeof(st.uuid), "0b7e3a55-1f2d-4c8e-9a61-5d2f8e4c7b10");
	snprintf(st.fs_uuid, sizeof(st.fs_uuid), "f00dcafe-0000-4000-8000-123456789abc");
	snprintf(st.name, sizeof(st.name), "vda2_crypt");
	snprintf(path, sizeof(path), "%s/stage", root);
	assert_int_equal(fdw_restart_stage_write(path, &st), 0);
	assert_int_equal(fdw_restart_stage_read(path, &back), 0);
	assert_stage_equal(&st, &back);
	/* A /boot inside the root to be carved first. */
	st.boot_mib = 512;
	assert_int_equal(fdw_restart_stage_write(path, &st), 0);
	assert_int_equal(fdw_restart_stage_read(path, &back), 0);
	assert_int_equal(back.boot_mib, 512);
	assert_false(back.swap_replaced);
	/* The plain swap to be replaced by one on a random key: said, for the step. */
	st.swap_replaced = true;
	assert_int_equal(fdw_restart_stage_write(path, &st), 0);
	assert_int_equal(fdw_restart_stage_read(path, &back), 0);
	assert_true(back.swap_replaced);
	assert_stage_equal(&st, &back);
	/* A btrfs root in a subvolume: both lines written, and read back as they were. */
	snprintf(st.home, sizeof(st.home), "/var/lib/fdewiz/restart");
	snprintf(st.fstype, sizeof(st.fstype), "btrfs");
	snprintf(st.subvol, sizeof(st.subvol), "@rootfs");
	assert_int_equal(fdw_restart_stage_write(path, &st), 0);
	assert_int_equal(fdw_restart_stage_read(path, &back), 0);
	assert_stage_equal(&st, &back);
	assert_string_equal(back.fstype, "btrfs");
	assert_string_equal(back.subvol, "@rootfs");
	/* Every field at its longest still fits the record, and reads back. */
	memset(&st, 'x', sizeof(st));
	st.swap_replaced = true;
	st.device[sizeof(st.device) - 1] = st.address[sizeof(st.address) - 1] = '\0';
	st.uuid[sizeof(st.uuid) - 1] = st.fs_uuid[sizeof(st.fs_uuid) - 1] = '\0';
	st.name[sizeof(st.name) - 1] = st.subvol[sizeof(st.subvol) - 1] = '\0';
	memset(st.home, 0, sizeof(st.home));
	memset(st.home, 'h', sizeof(st.home) - 1);
	st.home[0] = '/';
	memset(st.fstype, 0, sizeof(st.fstype));
	snprintf(st.fstype, sizeof(st.fstype), "btrfs");
	memset(st.vg, 0, sizeof(st.vg));
	memset(st.root_lv, 0, sizeof(st.root_lv));
	st.boot_mib = 1u << 20;
	assert_int_equal(fdw_restart_stage_write(path, &st), 0);
	assert_int_equal(fdw_restart_stage_read(path, &back), 0);
	assert_stage_equal(&st, &back);
	/* The same with an LVM PV's longest names. */
	memset(st.subvol, 0, sizeof(st.subvol));
	memset(st.fstype, 0, sizeof(st.fstype));
	snprintf(st.fstype, sizeof(st.fstype), "LVM2_member");
	memset(st.vg, 'v', sizeof(st.vg) - 1);
	memset(st.root_lv, 'r', sizeof(st.root_lv) - 1);
	memcpy(st.root_lv, "/dev/mapper/", 12);
	assert_int_equal(fdw_restart_stage_write(path, &st), 0);
	assert_int_equal(fdw_restart_stage_read(path, &back), 0);
	assert_stage_equal(&st, &back);
	memset(st.vg, 0, sizeof(st.vg));
	memset(st.root_lv, 0, sizeof(st.root_lv));
	memset(st.fstype, 0, sizeof(st.fstype));
	snprintf(st.fstype, sizeof(st.fstype), "btrfs");
	memset(st.subvol, 'x', sizeof(st.subvol) - 1);
	/* What the reader would refuse is not written. */
	snprintf(st.subvol, sizeof(st.subvol), "../etc");
	assert_int_equal(fdw_restart_stage_write(path, &st), -EINVAL);
	snprintf(st.subvol, sizeof(st.subvol), "@rootfs");
	snprintf(st.fstype, sizeof(st.fstype), "ext4");
	assert_int_equal(fdw_restart_stage_write(path, &st), -EINVAL);
}

/* A stage of an earlier fdewiz has no boot_mib line: no /boot to move. */
static void test_stage_without_boot_line(void **state)
{
	struct fdw_restart_stage st;
	char path[PATH_MAX + 16];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/old", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("device=/dev/vda2\naddress=/dev/vda2\nuuid=u\nfs_uuid=f\nname=n\n", f);
	fclose(f);
	assert_int_equal(fdw_restart_stage_read(path, &st), 0);
	assert_int_equal(st.boot_mib, 0);
	/* Neither fstype nor subvol: an ext root, at its filesystem's top. */
	assert_string_equal(st.fstype, "");
	assert_string_equal(st.subvol, "");
	unlink(path);
}

/* The root's filesystem types the step knows, and a btrfs subvolume's usual names. */
static void test_stage_fs_lines(void **state)
{
	static const char *const good[] = {
		"fstype=ext2\n", "fstype=ext3\n", "fstype=ext4\n", "fstype=btrfs\n",
		"fstype=btrfs\nsubvol=@rootfs\n", "fstype=btrfs\nsubvol=@\n",
		"subvol=@rootfs\nfstype=btrfs\n", "fstype=btrfs\nsubvol=@/.snapshots/1/snapshot\n",
		"fstype=LVM2_member\nvg=fdw-installed-vg\nroot_lv=/dev/mapper/fdw--installed--vg-root\n",
		"fstype=btrfs\nsubvol=@snapshots/a..b\n", "fstype=btrfs\nsubvol=.hidden/a.b\n",
	};
	struct fdw_restart_stage st;
	char path[PATH_MAX + 16], line[64];

	(void)state;
	snprintf(path, sizeof(path), "%s/fs", root);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fprintf(f, "device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\n%s", good[i]);
		fclose(f);
		assert_int_equal(fdw_restart_stage_read(path, &st), 0);
		snprintf(line, sizeof(line), "fstype=%s\n", st.fstype);
		assert_non_null(strstr(good[i], line));
	}
	assert_string_equal(st.subvol, ".hidden/a.b");
	unlink(path);
}

/* The plan's restart step says the move of /boot and its size when one is planned. */
static void test_plan_says_boot_move(void **state)
{
	char steps[FDW_RESTART_PLAN_STEPS][FDW_RESTART_PLAN_LEN];
	struct fdw_restart_stage st = { .name = "vda1_crypt" };

	(void)state;
	fdw_restart_plan(&st, steps);
	assert_non_null(strstr(steps[1], "shrunk by 32 MiB"));
	assert_null(strstr(steps[1], "/boot"));
	st.boot_mib = 640;
	fdw_restart_plan(&st, steps);
	assert_non_null(strstr(steps[1], "/boot made a partition of its own (640 MiB"));
	assert_non_null(strstr(steps[1], "GRUB reinstalled"));
	assert_non_null(strstr(steps[2], "vda1_crypt"));
	/* A PV's: its group closed, the room from its end, no filesystem shrunk. */
	st.boot_mib = 0;
	snprintf(st.vg, sizeof(st.vg), "fdw-installed-vg");
	fdw_restart_plan(&st, steps);
	assert_non_null(strstr(steps[1], "volume group fdw-installed-vg deactivated"));
	assert_non_null(strstr(steps[1], "pvresize"));
	assert_null(strstr(steps[1], "shrunk"));
	/* Its Russian took 885 bytes where 512 were kept: three bytes a letter must fit. */
	for (int i = 0; i < FDW_RESTART_PLAN_STEPS; i++)
		assert_true(strlen(steps[i]) * 3 < FDW_RESTART_PLAN_LEN);
}

static void test_stage_refused(void **state)
{
	static const char *const bad[] = {
		"device=/dev/vda2\naddress=/dev/vda2\nuuid=u\nfs_uuid=f\n",	/* no name */
		"device=/dev/vda2\naddress=a\x1b[2J\nuuid=u\nfs_uuid=f\nname=n\n",
		"device=\naddress=a\nuuid=u\nfs_uuid=f\nname=n\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nboot_mib=12x\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nboot_mib=-1\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nboot_mib=99999999999999999\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nboot_mib=\n",
		/* A root's filesystem the step does not know, or said oddly. */
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=xfs\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nswap=yes\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nswap=\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=BTRFS\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs \n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfsbtrfsbtrfsbtrfs\n",
		/* A subvolume on no btrfs, or one that would lead out of the mount point. */
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nsubvol=@rootfs\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=ext4\nsubvol=@rootfs\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=/@rootfs\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=..\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@/../etc\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@/..\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=.\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=./@\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@/./a\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@/.\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@,ro\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@\\040\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@\ta\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=@\x7f\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=btrfs\nsubvol=\n",
		/* A PV's group and root volume: both, on a PV only, in LVM's characters. */
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=vg\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\n"
		"root_lv=/dev/mapper/vg-root\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=ext4\nvg=vg\n"
		"root_lv=/dev/mapper/vg-root\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nvg=vg\nroot_lv=/dev/mapper/vg-root\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=vg\n"
		"root_lv=/dev/vg/root\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=vg\n"
		"root_lv=/dev/mapper/../sda\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=vg\n"
		"root_lv=/dev/mapper/..\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=v'g\n"
		"root_lv=/dev/mapper/vg-root\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=-vg\n"
		"root_lv=/dev/mapper/vg-root\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=vg\n"
		"root_lv=/dev/mapper/\n",
		"device=d\naddress=a\nuuid=u\nfs_uuid=f\nname=n\nfstype=LVM2_member\nvg=vg\n"
		"root_lv=/dev/mapper/vg root\n",
		"",
	};
	struct fdw_restart_stage st;
	char path[PATH_MAX + 16];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad", root);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(fdw_restart_stage_read(path, &st), -EINVAL);
	}
	unlink(path);
	assert_int_equal(fdw_restart_stage_read(path, &st), -ENOENT);
}

static void test_install_and_remove(void **state)
{
	char why[256] = "", *hook, *unit, *script, link[PATH_MAX + 128], target[256];
	struct stat st;
	ssize_t n;

	(void)state;
	assert_false(fdw_restart_files_present(root));
	assert_int_equal(fdw_restart_files_install(root, "/usr/sbin/fdewiz", "/var/lib/fdewiz/restart",
						   why, sizeof(why)), 0);
	assert_true(fdw_restart_files_present(root));
	hook = slurp("/etc/initramfs-tools/hooks/fdewiz-restart");
	assert_non_null(hook);
	assert_non_null(strstr(hook, "copy_exec '/usr/sbin/fdewiz' /sbin/fdewiz\n"));
	assert_non_null(strstr(hook, "cp '/var/lib/fdewiz/restart/stage' "
				     "'/var/lib/fdewiz/restart/header'"));
	/* A planned move of /boot: its record, and mke2fs, cp and chroot for the move. */
	assert_non_null(strstr(hook, "for f in '/var/lib/fdewiz/restart'/boot-move-*.json; do"));
	assert_non_null(strstr(hook, "copy_exec /sbin/mke2fs /usr/sbin/mke2fs\n"));
	assert_non_null(strstr(hook, "copy_exec /bin/cp /usr/sbin/cp\n"));
	assert_non_null(strstr(hook, "copy_exec /usr/sbin/chroot /usr/sbin/chroot\n"));
	/* A btrfs root: its tool and module, when the stage says so at mkinitramfs's time. */
	assert_non_null(strstr(hook, "if grep -qx 'fstype=btrfs' "
				     "'/var/lib/fdewiz/restart/stage'; then\n"));
	assert_non_null(strstr(hook, "for p in /bin/btrfs /usr/bin/btrfs /sbin/btrfs; do\n"));
	assert_non_null(strstr(hook, "copy_exec \"$p\" /sbin/btrfs\n"));
	assert_non_null(strstr(hook, "manual_add_modules btrfs\n"));
	snprintf(link, sizeof(link), "sh -n '%s/etc/initramfs-tools/hooks/fdewiz-restart'", root);
	assert_int_equal(system(link), 0);
	script = slurp("/etc/initramfs-tools/scripts/local-top/fdewiz-restart");
	assert_non_null(script);
	assert_non_null(strstr(script, "/sbin/fdewiz restart-step"));
	assert_non_null(strstr(script, "echo \"ROOT=$out\" >>/conf/param.conf"));
	/* A resume device that the boot setup's new swap replaced is not waited for. */
	assert_non_null(strstr(script, "grep -qx 'swap=replaced'"));
	assert_non_null(strstr(script, "echo 'resume=' >>/conf/param.conf"));
	snprintf(link, sizeof(link), "sh -n '%s/etc/initramfs-tools/scripts/local-top/"
		 "fdewiz-restart'", root);
	assert_int_equal(system(link), 0);
	unit = slurp("/etc/systemd/system/fdewiz-restart.service");
	assert_non_null(unit);
	assert_non_null(strstr(unit, "ExecStart=/usr/sbin/fdewiz restart-continue\n"));
	assert_non_null(strstr(unit, "ConditionPathExists=/var/lib/fdewiz/restart/stage\n"));
	snprintf(link, sizeof(link), "%s/etc/systemd/system/multi-user.target.wants/"
		 "fdewiz-restart.service", root);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "/etc/systemd/system/fdewiz-restart.service");
	free(hook);
	free(script);
	free(unit);

	/* The boot step takes the initramfs's part away; the service stays to record it. */
	assert_int_equal(fdw_restart_files_remove_initramfs(root), 0);
	assert_false(fdw_restart_files_present(root));
	assert_int_equal(lstat(link, &st), 0);
	assert_int_equal(fdw_restart_files_remove(root), 0);
	assert_int_equal(lstat(link, &st), -1);
	/* Removing again is fine: a resumed step does it twice. */
	assert_int_equal(fdw_restart_files_remove(root), 0);
}

static void test_quote_refused(void **state)
{
	char why[256] = "";

	(void)state;
	assert_int_equal(fdw_restart_files_install(root, "/opt/it's/fdewiz", "/var/lib/fdewiz/restart",
						   why, sizeof(why)), -EINVAL);
	assert_true(why[0] != '\0');
	assert_false(fdw_restart_files_present(root));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_round_trip),
		cmocka_unit_test(test_stage_refused),
		cmocka_unit_test(test_stage_without_boot_line),
		cmocka_unit_test(test_stage_fs_lines),
		cmocka_unit_test(test_plan_says_boot_move),
		cmocka_unit_test(test_install_and_remove),
		cmocka_unit_test(test_quote_refused),
	};

	return cmocka_run_group_tests(tests, make_root, remove_root);
}
