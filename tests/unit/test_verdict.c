/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the verdict rules: which partitions can be encrypted in place, and why not. */
#include "unit.h"

#include <string.h>

#include "core/disk/disk.h"

static struct fdw_disk disk = { .table = "gpt" };

/* A healthy unmounted 1 GiB ext4 partition, 10% used, no free space after it. */
static struct fdw_partition ext4_part(void)
{
	struct fdw_partition p = {
		.number = 2,
		.size = 1024 * FDW_MIB,
		.fstype = "ext4",
		.fs_size = 1024 * FDW_MIB,
		.fs_used = 100 * FDW_MIB,
		.fs_free = 924 * FDW_MIB,
		.fs_block_size = 4096,
		.fs_min_size = 150 * FDW_MIB,
	};
	return p;
}

static enum fdw_reason decide(struct fdw_partition *p)
{
	fdw_verdict_decide(p, &disk);
	return p->verdict.reason;
}

static void test_shrink_preferred_without_free_space(void **state)
{
	struct fdw_partition p = ext4_part();

	(void)state;
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_true(p.verdict.eligible);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_SHRINK);
	assert_int_equal(p.verdict.strategies, FDW_STRATEGY_SHRINK | FDW_STRATEGY_DETACHED);
}

static void test_grow_preferred_with_free_space(void **state)
{
	struct fdw_partition p = ext4_part();

	(void)state;
	p.free_after = FDW_HEADER_ROOM;
	decide(&p);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_GROW);
	assert_true(p.verdict.strategies & FDW_STRATEGY_SHRINK);
	p.free_after = FDW_HEADER_ROOM - 1;
	decide(&p);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_SHRINK);
}

/* The shrink is promised from the real minimum size (resize2fs -P), not from used space. */
static void test_full_ext4(void **state)
{
	struct fdw_partition p = ext4_part();
	char msg[512];

	(void)state;
	/* Much free space by the counters, but resize2fs cannot go below 1000 MiB. */
	p.fs_min_size = 1000 * FDW_MIB;
	assert_int_equal(decide(&p), FDW_REASON_FULL);
	assert_false(p.verdict.eligible);
	assert_int_equal(p.verdict.strategies, FDW_STRATEGY_DETACHED);
	assert_int_equal(fdw_shrink_shortfall(&p), 8 * FDW_MIB);
	fdw_verdict_explain(&p, msg, sizeof(msg));
	assert_non_null(strstr(msg, "about 8 MiB freed"));
	/* With what is in use beside the estimate: "too full" at half full makes sense. */
	p.fs_used = 520 * FDW_MIB;
	fdw_verdict_explain(&p, msg, sizeof(msg));
	assert_non_null(strstr(msg, "cannot shrink below 1000 MiB (resize2fs's own estimate, "
				    "with 520 MiB in use), so it needs about 8 MiB freed"));
	/* Exactly the largest whole number of blocks that leaves the room: fits. */
	p.fs_min_size = (int64_t)(p.size - FDW_HEADER_ROOM);
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_SHRINK);
	p.fs_min_size += 4096;
	assert_int_equal(decide(&p), FDW_REASON_FULL);
	assert_int_equal(fdw_shrink_shortfall(&p), 4096);
	/* Free space after the partition still works, and is what is offered. */
	p.free_after = FDW_HEADER_ROOM;
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_int_equal(p.verdict.strategies, FDW_STRATEGY_GROW | FDW_STRATEGY_DETACHED);
	/* Not measured: no promise, and a reason that says so. */
	p.free_after = 0;
	p.fs_min_size = -1;
	assert_int_equal(decide(&p), FDW_REASON_MIN_UNKNOWN);
	assert_int_equal(fdw_shrink_shortfall(&p), -1);
}

/* Room already free after the filesystem: used as it is, nothing resized. */
static void test_free_tail(void **state)
{
	struct fdw_partition p = ext4_part();
	char msg[512];

	(void)state;
	p.fs_size = (int64_t)(p.size - FDW_HEADER_ROOM);
	p.fs_min_size = -1;	/* not even measured: not needed */
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_FREE_TAIL);
	assert_int_equal(p.verdict.strategies, FDW_STRATEGY_FREE_TAIL | FDW_STRATEGY_DETACHED);
	fdw_verdict_explain(&p, msg, sizeof(msg));
	assert_non_null(strstr(msg, "without resizing anything"));
	/* Preferred even over growing the partition. */
	p.free_after = FDW_HEADER_ROOM;
	decide(&p);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_FREE_TAIL);
	/* One byte short of the room: not a free tail. */
	p.free_after = 0;
	p.fs_size += 1;
	assert_int_equal(decide(&p), FDW_REASON_MIN_UNKNOWN);
	/* XFS too: its end is read from its superblock. */
	p.fstype = "xfs";
	p.fs_size = 700 * FDW_MIB;
	decide(&p);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_FREE_TAIL);
}

static void test_xfs_needs_free_space(void **state)
{
	struct fdw_partition p = ext4_part();

	(void)state;
	p.fstype = "xfs";
	assert_int_equal(decide(&p), FDW_REASON_NO_ROOM);
	p.free_after = 64 * FDW_MIB;
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_GROW);
}

/* A btrfs on one device shrinks (the scan estimated its minimum); one that spans several
 * devices (no minimum) does not. */
static void test_btrfs(void **state)
{
	struct fdw_partition p = ext4_part();
	char buf[1024];

	(void)state;
	p.fstype = "btrfs";
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_SHRINK);
	p.fs_min_size = (int64_t)(p.size - FDW_HEADER_ROOM) + 4096;
	assert_int_equal(decide(&p), FDW_REASON_FULL);
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "btrfs filesystem is too full"));
	assert_null(strstr(buf, "resize2fs"));
	/* Too small for the kernel's 256 MiB floor once the header is taken: said so. */
	p.size = p.fs_size = 270 * FDW_MIB;
	p.fs_min_size = FDW_BTRFS_MIN_RESIZE;
	assert_int_equal(decide(&p), FDW_REASON_FULL);
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "cannot be made smaller than 256 MiB"));
	p.size = p.fs_size = 1024 * FDW_MIB;
	p.fs_min_size = -1;
	assert_int_equal(decide(&p), FDW_REASON_UNSUPPORTED_FS);
	p.free_after = 64 * FDW_MIB;
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_GROW);
}

static void test_in_use(void **state)
{
	char *root[] = { "/" }, *home[] = { "/home" }, *dm[] = { "dm-0" };
	struct fdw_partition p;

	(void)state;
	p = ext4_part();
	p.mountpoints = root;
	p.n_mountpoints = 1;
	assert_int_equal(decide(&p), FDW_REASON_MOUNTED_ROOT);
	p.mountpoints = home;
	assert_int_equal(decide(&p), FDW_REASON_MOUNTED);
	assert_false(p.verdict.eligible);

	p = ext4_part();
	p.holders = dm;
	p.n_holders = 1;
	assert_int_equal(decide(&p), FDW_REASON_HOLDERS);

	p = ext4_part();
	p.fstype = "swap";
	p.swap_active = true;
	assert_int_equal(decide(&p), FDW_REASON_ACTIVE_SWAP);
	p.swap_active = false;
	assert_int_equal(decide(&p), FDW_REASON_SWAP);
}

static void test_kinds(void **state)
{
	struct fdw_partition p;

	(void)state;
	p = ext4_part();
	p.fstype = "crypto_LUKS";
	p.luks_version = 2;
	assert_int_equal(decide(&p), FDW_REASON_ALREADY_LUKS);
	p.luks_reencrypt_unfinished = true;
	assert_int_equal(decide(&p), FDW_REASON_LUKS_UNFINISHED);

	p = ext4_part();
	p.fstype = "linux_raid_member";
	assert_int_equal(decide(&p), FDW_REASON_RAID_MEMBER);
	p.fstype = "LVM2_member";
	assert_int_equal(decide(&p), FDW_REASON_LVM_MEMBER);
	p.fstype = "BitLocker";
	assert_int_equal(decide(&p), FDW_REASON_OTHER_CRYPTO);
	p.fstype = NULL;
	assert_int_equal(decide(&p), FDW_REASON_NO_FILESYSTEM);

	p = ext4_part();
	p.flag_esp = true;
	p.fstype = "vfat";
	assert_int_equal(decide(&p), FDW_REASON_ESP);

	p = ext4_part();
	p.size = FDW_MIN_PARTITION - 1;
	assert_int_equal(decide(&p), FDW_REASON_TOO_SMALL);

	p = ext4_part();
	p.read_only = true;
	assert_int_equal(decide(&p), FDW_REASON_READ_ONLY);
}

static void test_messages(void **state)
{
	char buf[512];
	char *home[] = { "/home" };
	struct fdw_partition p = ext4_part();

	(void)state;
	for (int r = 0; r < FDW_REASON__COUNT; r++) {
		assert_true(strlen(fdw_reason_message(r)) > 10);
		assert_true(strlen(fdw_reason_name(r)) > 1);
	}
	p.mountpoints = home;
	p.n_mountpoints = 1;
	decide(&p);
	fdw_verdict_explain(&p, buf, sizeof(buf));
	assert_non_null(strstr(buf, "/home"));
}

/* An installed system's other partitions, by what its fstab names them with. */
/* Debian's guided LVM: a 1 GiB PV, root then swap_1 (32 extents) at its end, no free ones;
 * the system on the root volume, /boot apart, GRUB for EFI, LUKS in its initramfs. */
static struct fdw_partition lvm_part(void)
{
	struct fdw_partition p = { .number = 3, .size = 1024 * FDW_MIB, .fstype = "LVM2_member",
				   .fs_size = -1, .fs_block_size = -1, .fs_min_size = -1 };
	struct fdw_lvm_pv *pv = &p.lvm;

	fdw_lvm_pv_begin(pv);
	pv->read = true;
	snprintf(pv->vg, sizeof(pv->vg), "debian-vg");
	pv->pv_count = 1;
	pv->dev_size = p.size;
	pv->pe_start = FDW_MIB;
	pv->extent = 4 * FDW_MIB;
	pv->pe_count = pv->pe_alloc = 255;
	pv->pv_size = pv->pe_start + pv->pe_count * pv->extent;
	pv->n_lvs = 2;
	pv->lvs[0] = (struct fdw_lvm_lv){ .name = "root", .n_pe = 223, .one_piece = true };
	pv->lvs[1] = (struct fdw_lvm_lv){ .name = "swap_1", .first_pe = 223, .n_pe = 32,
					  .one_piece = true, .fstype = "swap" };
	pv->last_lv = pv->swap_lv = 1;
	pv->root_lv = 0;
	p.fs_size = (int64_t)pv->pv_size;
	p.os = (struct fdw_installed_os){ .found = true, .fstab_names_it = true,
					  .boot_separate = true, .boot_spec = "UUID=b",
					  .initramfs = FDW_INITRAMFS_TOOLS,
					  .luks_in_initramfs = true,
					  .loader = FDW_LOADER_GRUB_EFI };
	return p;
}

static void test_lvm(void **state)
{
	struct fdw_partition p = lvm_part();
	char msg[1024];

	(void)state;
	/* The swap volume at the end gives the header's room: 8 extents. */
	assert_int_equal(decide(&p), FDW_REASON_OK);
	assert_true(p.verdict.eligible && p.verdict.lvm_system);
	assert_int_equal(p.verdict.strategy, FDW_STRATEGY_FREE_TAIL);
	assert_int_equal(p.verdict.lvm_room.kind, FDW_LVM_ROOM_SWAP);
	assert_int_equal(p.verdict.lvm_room.swap_pe, 24);
	fdw_verdict_explain(&p, msg, sizeof(msg));
	assert_non_null(strstr(msg, "from 128 MiB to 96 MiB"));
	/* Its own active volumes hold it: the conversion deactivates them. */
	p.n_holders = 1;
	p.held_by_own_lvs = true;
	assert_int_equal(decide(&p), FDW_REASON_OK);
	p.held_by_own_lvs = false;
	assert_int_equal(decide(&p), FDW_REASON_HOLDERS);
	p.n_holders = 0;
	/* The root volume last: nothing gives room; the message says how much and who. */
	p.lvm.last_lv = 0;
	assert_int_equal(decide(&p), FDW_REASON_LVM_NO_ROOM);
	assert_false(p.verdict.eligible);
	fdw_verdict_explain(&p, msg, sizeof(msg));
	assert_non_null(strstr(msg, "32 MiB of it are in use (by root"));
	/* A volume group on two PVs, or no system on it: a PV like any other. */
	p = lvm_part();
	p.lvm.pv_count = 2;
	assert_int_equal(decide(&p), FDW_REASON_LVM_MEMBER);
	p = lvm_part();
	p.lvm.root_lv = -1;
	assert_int_equal(decide(&p), FDW_REASON_LVM_MEMBER);
	/* Its /boot inside the root volume: its boot cannot be set up. */
	p = lvm_part();
	p.os.boot_separate = false;
	p.os.boot_spec[0] = '\0';
	assert_int_equal(decide(&p), FDW_REASON_INSTALLED_SYSTEM);
}

static void test_attribution(void **state)
{
	struct fdw_partition parts[5];
	struct fdw_disk d = { .path = "/nonexistent/disk.img", .table = "gpt", .parts = parts,
			      .n_parts = 5 };
	char buf[1024];

	(void)state;
	for (int i = 0; i < 5; i++) {
		parts[i] = ext4_part();
		parts[i].number = i + 1;
	}
	parts[0].address = "disk.img:1";
	parts[0].uuid = "B00B";
	parts[1].address = "disk.img:2";
	parts[1].label = "home";
	parts[2].address = "disk.img:3";
	parts[2].os.found = parts[2].os.fstab_names_it = true;
	snprintf(parts[2].os.name, sizeof(parts[2].os.name), "Debian GNU/Linux 12");
	parts[2].uuid = "r00t";
	parts[3].address = "disk.img:4";
	parts[3].name = "srv";
	parts[4].address = "disk.img:5";
	fdw_installed_os_parse_fstab("UUID=r00t / ext4 defaults 0 1\n"
				     "UUID=b00b /boot ext4 defaults 0 2\n"
				     "LABEL=home /home ext4 defaults 0 2\n"
				     "PARTLABEL=srv /srv ext4 defaults 0 2\n"
				     "/dev/sda5 /usr ext4 defaults 0 2\n"
				     "LABEL=nowhere /var ext4 defaults 0 2\n", "r00t", NULL, &parts[2].os);
	for (int i = 0; i < 5; i++)
		decide(&parts[i]);
	fdw_disks_attribute(&d, 1);
	assert_true(parts[0].owner.found);
	assert_int_equal(parts[0].owner.use, FDW_USE_BOOT);
	assert_string_equal(parts[0].owner.root_address, "disk.img:3");
	assert_int_equal(parts[0].verdict.reason, FDW_REASON_SYSTEM_BOOT_PART);
	assert_false(parts[0].verdict.eligible);
	fdw_verdict_explain(&parts[0], buf, sizeof(buf));
	assert_non_null(strstr(buf, "/boot of Debian GNU/Linux 12 on disk.img:3"));
	assert_non_null(strstr(buf, "encrypt that system's root (disk.img:3) instead"));
	assert_int_equal(parts[1].owner.use, FDW_USE_DATA);
	assert_string_equal(parts[1].owner.dir, "/home");
	assert_true(parts[1].verdict.eligible);
	fdw_verdict_explain(&parts[1], buf, sizeof(buf));
	assert_non_null(strstr(buf, "/home of Debian GNU/Linux 12 on disk.img:3"));
	assert_false(parts[2].owner.found);		/* its own root is no other's */
	assert_string_equal(parts[3].owner.dir, "/srv");
	/* /dev/sda5: the fifth partition of the disk that holds the root. */
	assert_int_equal(parts[4].owner.use, FDW_USE_BOOT);
	assert_int_equal(parts[4].verdict.reason, FDW_REASON_SYSTEM_BOOT_PART);
	/* A /boot that is mounted here is still that system's /boot: refused as such. */
	parts[0].mountpoints = (char *[]){ "/mnt" };
	parts[0].n_mountpoints = 1;
	decide(&parts[0]);
	assert_int_equal(parts[0].verdict.reason, FDW_REASON_SYSTEM_BOOT_PART);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shrink_preferred_without_free_space),
		cmocka_unit_test(test_grow_preferred_with_free_space),
		cmocka_unit_test(test_full_ext4),
		cmocka_unit_test(test_free_tail),
		cmocka_unit_test(test_xfs_needs_free_space),
		cmocka_unit_test(test_btrfs),
		cmocka_unit_test(test_in_use),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_lvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
