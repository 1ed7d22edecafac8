/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for splitting the end off a partition (libparted on a sparse image file). */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <parted/parted.h>
#include <string.h>
#include <unistd.h>

#include "core/disk/partsplit.h"

static char path[] = "/tmp/fdewiz-partsplit-XXXXXX";

/* A 96 MiB image: @table "gpt" with partition 1 at [1, 95) MiB, or "msdos" with an
 * extended partition at [1, 95) MiB and logical 5 filling it. */
static void make_image(const char *table)
{
	int fd = mkstemp(path);
	PedDevice *dev;
	PedDisk *disk;
	PedPartition *ext = NULL, *p;
	PedConstraint *any;
	PedSector mib = MIB / 512;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 96 * MIB), 0);
	close(fd);
	dev = ped_device_get(path);
	assert_non_null(dev);
	disk = ped_disk_new_fresh(dev, ped_disk_type_get(table));
	assert_non_null(disk);
	any = ped_constraint_any(dev);
	if (!strcmp(table, "msdos")) {
		ext = ped_partition_new(disk, PED_PARTITION_EXTENDED, NULL, mib, 95 * mib - 1);
		assert_true(ped_disk_add_partition(disk, ext, any));
	}
	p = ped_partition_new(disk, ext ? PED_PARTITION_LOGICAL : PED_PARTITION_NORMAL,
			      ped_file_system_type_get("ext4"), ext ? 2 * mib : mib, 95 * mib - 1);
	assert_true(ped_disk_add_partition(disk, p, any));
	assert_true(ped_disk_commit(disk));
	ped_constraint_destroy(any);
	ped_disk_destroy(disk);
	ped_device_destroy(dev);
}

/* Partition @n's first and last byte + 1, or 0s when there is none. */
static void geometry(int n, uint64_t *start, uint64_t *end)
{
	PedDevice *dev = ped_device_get(path);
	PedDisk *disk = dev ? ped_disk_new(dev) : NULL;
	PedPartition *p = disk ? ped_disk_get_partition(disk, n) : NULL;

	*start = p ? (uint64_t)p->geom.start * 512 : 0;
	*end = p ? (uint64_t)(p->geom.end + 1) * 512 : 0;
	if (disk)
		ped_disk_destroy(disk);
	if (dev)
		ped_device_destroy(dev);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	strcpy(path, "/tmp/fdewiz-partsplit-XXXXXX");
	return 0;
}

static void test_gpt(void **state)
{
	uint64_t s, e;
	int n = 0;

	(void)state;
	make_image("gpt");
	/* The root keeps 60 MiB; the new partition takes [61, 95) MiB. */
	assert_int_equal(fdw_partition_split_end(path, 1, 60 * MIB, 61 * MIB, false, &n), 0);
	assert_int_equal(n, 2);
	geometry(1, &s, &e);
	assert_int_equal(s, MIB);
	assert_int_equal(e, 61 * MIB);
	geometry(2, &s, &e);
	assert_int_equal(s, 61 * MIB);
	assert_int_equal(e, 95 * MIB);
	/* Done again (a crash after the commit): found, nothing changes. */
	n = 0;
	assert_int_equal(fdw_partition_split_end(path, 1, 60 * MIB, 61 * MIB, false, &n), 0);
	assert_int_equal(n, 2);
	geometry(3, &s, &e);
	assert_int_equal(e, 0);
	/* A start inside what the root keeps is refused. */
	assert_int_equal(fdw_partition_split_end(path, 1, 50 * MIB, 40 * MIB, false, &n), -EINVAL);
}

static void test_logical(void **state)
{
	uint64_t s, e;
	int n = 0;

	(void)state;
	make_image("msdos");
	/* Logical 5 at [2, 95) MiB keeps 40 MiB; one MiB for the new one's boot record. */
	assert_int_equal(fdw_partition_split_end(path, 5, 40 * MIB, 43 * MIB, true, &n), 0);
	assert_int_equal(n, 6);
	geometry(5, &s, &e);
	assert_int_equal(e, 42 * MIB);
	geometry(6, &s, &e);
	assert_int_equal(s, 43 * MIB);
	assert_int_equal(e, 95 * MIB);
}

static void test_missing(void **state)
{
	int n = 0;

	(void)state;
	make_image("gpt");
	assert_int_equal(fdw_partition_split_end(path, 7, 60 * MIB, 61 * MIB, false, &n), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_gpt, teardown),
		cmocka_unit_test_teardown(test_logical, teardown),
		cmocka_unit_test_teardown(test_missing, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
