/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the plan of a new /boot carved from the end of the root partition. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "core/disk/boot_carve.h"

/* Debian's "all files in one partition" on GPT: ESP, root (with /boot), swap. */
static struct fdw_partition parts[5];
static struct fdw_disk disk = { .table = "gpt", .parts = parts, .n_parts = 3 };

static int setup(void **state)
{
	(void)state;
	memset(parts, 0, sizeof(parts));
	parts[0] = (struct fdw_partition){ .number = 1, .start = MIB, .size = 512 * MIB };
	parts[1] = (struct fdw_partition){ .number = 2, .start = 513 * MIB, .size = 8192 * MIB,
					   .fs_block_size = 4096, .fs_min_size = 3000 * MIB };
	parts[2] = (struct fdw_partition){ .number = 3, .start = 8705 * MIB, .size = 1024 * MIB };
	disk.table = "gpt";
	disk.n_parts = 3;
	return 0;
}

static void test_size(void **state)
{
	(void)state;
	assert_int_equal(fdw_boot_carve_size(0), 512 * MIB);
	assert_int_equal(fdw_boot_carve_size(100 * MIB), 512 * MIB);
	assert_int_equal(fdw_boot_carve_size(300 * MIB), 900 * MIB);
	/* Whole MiB, rounded up. */
	assert_int_equal(fdw_boot_carve_size(200 * MIB + 1), 601 * MIB);
}

static void test_gpt(void **state)
{
	struct fdw_boot_carve c;

	(void)state;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), 0);
	assert_int_equal(c.refusal, FDW_CARVE_OK);
	assert_int_equal(c.slot, FDW_CARVE_SLOT_GPT);
	/* /boot ends where the root ended; the root ends where /boot starts. */
	assert_int_equal(c.boot_start + c.boot_size, parts[1].start + parts[1].size);
	assert_int_equal(c.boot_size, 512 * MIB);
	assert_int_equal(parts[1].start + c.root_size, c.boot_start);
	assert_int_equal(c.boot_start % MIB, 0);
	assert_int_equal(c.root_fs_max, c.root_size - FDW_HEADER_ROOM);
}

static void test_too_full(void **state)
{
	struct fdw_boot_carve c;

	(void)state;
	parts[1].fs_min_size = 7900 * MIB;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), -ENOSPC);
	assert_int_equal(c.refusal, FDW_CARVE_TOO_FULL);
	/* 8192 - 512 (/boot) - 32 (header) = 7648 MiB may stay: 252 MiB too many. */
	assert_int_equal(c.short_by, 252 * MIB);
	parts[1].fs_min_size = -1;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), -EAGAIN);
	assert_int_equal(c.refusal, FDW_CARVE_MIN_UNKNOWN);
	parts[1].size = 300 * MIB;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), -ENOSPC);
	assert_int_equal(c.refusal, FDW_CARVE_TOO_SMALL);
	assert_int_equal(c.short_by, (512 + 32 + 1 - 300) * MIB);
}

static void test_msdos(void **state)
{
	struct fdw_boot_carve c;

	(void)state;
	disk.table = "msdos";
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 0, &c), 0);
	assert_int_equal(c.slot, FDW_CARVE_SLOT_PRIMARY);
	/* A fourth primary is there: no slot. */
	parts[3] = (struct fdw_partition){ .number = 4, .start = 9729 * MIB, .size = MIB };
	disk.n_parts = 4;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 0, &c), -ENOENT);
	assert_int_equal(c.refusal, FDW_CARVE_NO_SLOT);
	/* A logical root: a logical /boot after it, one MiB kept for its boot record. */
	parts[1].number = 5;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 0, &c), 0);
	assert_int_equal(c.slot, FDW_CARVE_SLOT_LOGICAL);
	assert_int_equal(parts[1].start + c.root_size + MIB, c.boot_start);
}

static void test_no_table(void **state)
{
	struct fdw_boot_carve c;

	(void)state;
	parts[1].number = 0;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 0, &c), -ENOENT);
	assert_int_equal(c.refusal, FDW_CARVE_NO_TABLE);
	parts[1].number = 2;
	disk.table = "loop";
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 0, &c), -ENOENT);
	assert_int_equal(c.refusal, FDW_CARVE_NO_TABLE);
}

/* A root that does not start on a MiB boundary (an old DOS layout): /boot still does. */
static void test_unaligned_root(void **state)
{
	struct fdw_boot_carve c;

	(void)state;
	parts[1].start = 63 * 512;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 0, &c), 0);
	assert_int_equal(c.boot_start % MIB, 0);
	assert_true(c.boot_size >= 512 * MIB);
	assert_int_equal(parts[1].start + c.root_size, c.boot_start);
}

/* Ubuntu's layout on BIOS: GPT, a BIOS boot partition, the root (with /boot) after it.
 * GRUB for BIOS is reinstalled into that partition; without one there is nowhere. */
static void test_bios_on_gpt(void **state)
{
	struct fdw_boot_carve c;

	(void)state;
	parts[1].os.loader = FDW_LOADER_GRUB_BIOS;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), -ENOENT);
	assert_int_equal(c.refusal, FDW_CARVE_NO_BIOS_BOOT);
	parts[0].flag_bios_boot = true;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), 0);
	assert_int_equal(c.refusal, FDW_CARVE_OK);
	/* On an MBR GRUB for BIOS sits behind the MBR itself. */
	parts[0].flag_bios_boot = false;
	disk.table = "msdos";
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), 0);
	/* GRUB for EFI needs no such partition. */
	disk.table = "gpt";
	parts[1].os.loader = FDW_LOADER_GRUB_EFI;
	assert_int_equal(fdw_boot_carve_plan(&disk, &parts[1], 120 * MIB, &c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_size, setup),
		cmocka_unit_test_setup(test_gpt, setup),
		cmocka_unit_test_setup(test_too_full, setup),
		cmocka_unit_test_setup(test_msdos, setup),
		cmocka_unit_test_setup(test_no_table, setup),
		cmocka_unit_test_setup(test_unaligned_root, setup),
		cmocka_unit_test_setup(test_bios_on_gpt, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
