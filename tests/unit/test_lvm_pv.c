/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for LVM's reports of a physical volume and the header's room at its end. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "core/disk/disk.h"
#include "core/disk/lvm_pv.h"

/* As pvs and lvs (lvm2 2.03.16) print them for Debian's guided LVM: root, then swap_1 at
 * the PV's end, no free extents; a 300 MiB partition, 4 MiB extents. */
static const char pv_json[] =
	"  {\n      \"report\": [\n          {\n              \"pv\": [\n"
	"                  {\"pv_name\":\"/dev/vda3\", \"vg_name\":\"fdw-installed-vg\", "
	"\"pv_size\":\"310378496\", \"dev_size\":\"314572800\", \"pe_start\":\"1048576\", "
	"\"pv_pe_count\":\"74\", \"pv_pe_alloc_count\":\"74\", \"vg_extent_size\":\"4194304\", "
	"\"pv_count\":\"1\"}\n              ]\n          }\n      ]\n  }\n";
static const char lv_json[] =
	"{\"report\": [{\"lv\": [{\"lv_name\":\"root\", \"lv_dm_path\":"
	"\"/dev/mapper/fdw--installed--vg-root\", \"lv_active\":\"\", \"seg_count\":\"1\"},"
	"{\"lv_name\":\"swap_1\", \"lv_dm_path\":\"/dev/mapper/fdw--installed--vg-swap_1\", "
	"\"lv_active\":\"\", \"seg_count\":\"1\"}]}]}";
static const char seg_json[] =
	"{\"report\": [{\"pvseg\": [{\"pvseg_start\":\"0\", \"pvseg_size\":\"44\", "
	"\"lv_name\":\"root\", \"segtype\":\"linear\"}, {\"pvseg_start\":\"44\", "
	"\"pvseg_size\":\"30\", \"lv_name\":\"swap_1\", \"segtype\":\"linear\"}]}]}";

static void read_pv(struct fdw_lvm_pv *pv, const char *segs)
{
	fdw_lvm_pv_begin(pv);
	assert_int_equal(fdw_lvm_parse_pv(pv_json, pv), 0);
	assert_int_equal(fdw_lvm_parse_lvs(lv_json, pv), 0);
	assert_int_equal(fdw_lvm_parse_segments(segs, pv), 0);
}

static void test_parse(void **state)
{
	struct fdw_lvm_pv pv;

	(void)state;
	read_pv(&pv, seg_json);
	assert_string_equal(pv.vg, "fdw-installed-vg");
	assert_int_equal(pv.pv_count, 1);
	/* Where its extents end, not pvs's pv_size (their bytes alone). */
	assert_int_equal(pv.pv_size, MIB + 74 * 4 * MIB);
	assert_int_equal(pv.n_lvs, 2);
	assert_int_equal(pv.last_lv, 1);
	assert_int_equal(pv.tail_free_pe, 0);
	assert_true(pv.lvs[0].one_piece);
	assert_int_equal(pv.lvs[1].first_pe, 44);
	assert_int_equal(fdw_lvm_lv_offset(&pv, &pv.lvs[1]), MIB + 44 * 4 * MIB);
	assert_true(fdw_lvm_lv_named(&pv, &pv.lvs[0], "/dev/mapper/fdw--installed--vg-root"));
	assert_true(fdw_lvm_lv_named(&pv, &pv.lvs[0], "/dev/fdw-installed-vg/root"));
	assert_false(fdw_lvm_lv_named(&pv, &pv.lvs[0], "/dev/fdw-installed-vg/swap_1"));
	assert_false(fdw_lvm_lv_named(&pv, &pv.lvs[0], "/dev/fdw-installed/root"));
}

static void test_room_from_swap(void **state)
{
	struct fdw_lvm_room r;
	struct fdw_lvm_pv pv;

	(void)state;
	read_pv(&pv, seg_json);
	/* Without a swap volume found, nothing gives the room: short by 8 extents. */
	fdw_lvm_room_plan(&pv, FDW_HEADER_ROOM, &r);
	assert_int_equal(r.kind, FDW_LVM_ROOM_NONE);
	assert_int_equal(r.short_by, 32 * MIB);
	pv.swap_lv = 1;
	fdw_lvm_room_plan(&pv, FDW_HEADER_ROOM, &r);
	assert_int_equal(r.kind, FDW_LVM_ROOM_SWAP);
	assert_int_equal(r.pv_size, 300 * MIB - FDW_HEADER_ROOM);
	assert_int_equal(r.free_pe, 8);
	assert_int_equal(r.swap_pe, 22);
	/* A swap volume that would end below the smallest kept is not taken. */
	pv.lvs[1].n_pe = 9;
	fdw_lvm_room_plan(&pv, FDW_HEADER_ROOM, &r);
	assert_int_equal(r.kind, FDW_LVM_ROOM_NONE);
}

static void test_room_free_tail(void **state)
{
	static const char segs[] =
		"{\"report\": [{\"pvseg\": [{\"pvseg_start\":\"0\", \"pvseg_size\":\"44\", "
		"\"lv_name\":\"root\", \"segtype\":\"linear\"}, {\"pvseg_start\":\"44\", "
		"\"pvseg_size\":\"20\", \"lv_name\":\"swap_1\", \"segtype\":\"linear\"}, "
		"{\"pvseg_start\":\"64\", \"pvseg_size\":\"10\", \"lv_name\":\"\", "
		"\"segtype\":\"free\"}]}]}";
	struct fdw_lvm_room r;
	struct fdw_lvm_pv pv;

	(void)state;
	read_pv(&pv, segs);
	assert_int_equal(pv.tail_free_pe, 10);
	assert_int_equal(pv.last_lv, 1);
	fdw_lvm_room_plan(&pv, FDW_HEADER_ROOM, &r);
	assert_int_equal(r.kind, FDW_LVM_ROOM_PVRESIZE);
	assert_int_equal(r.free_pe, 8);
}

static void test_bad_reports(void **state)
{
	struct fdw_lvm_pv pv;

	(void)state;
	fdw_lvm_pv_begin(&pv);
	assert_int_equal(fdw_lvm_parse_pv("", &pv), -EBADMSG);
	assert_int_equal(fdw_lvm_parse_pv("{\"report\":[{\"pv\":[]}]}", &pv), -EBADMSG);
	/* Extents that end beyond the device are not believed. */
	assert_int_equal(fdw_lvm_parse_pv("{\"report\":[{\"pv\":[{\"vg_name\":\"v\", "
					  "\"pv_size\":\"1\", \"dev_size\":\"1048576\", "
					  "\"pe_start\":\"1048576\", \"pv_pe_count\":\"1\", "
					  "\"pv_pe_alloc_count\":\"0\", \"vg_extent_size\":\"4194304\", "
					  "\"pv_count\":\"1\"}]}]}", &pv), -EBADMSG);
	read_pv(&pv, seg_json);
	/* Segments with a gap, or that do not reach the PV's extent count. */
	assert_int_equal(fdw_lvm_parse_segments("{\"report\":[{\"pvseg\":[{\"pvseg_start\":"
						"\"1\",\"pvseg_size\":\"73\"}]}]}", &pv),
			 -EBADMSG);
	assert_int_equal(fdw_lvm_parse_segments("{\"report\":[{\"pvseg\":[{\"pvseg_start\":"
						"\"0\",\"pvseg_size\":\"70\"}]}]}", &pv),
			 -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_room_from_swap),
		cmocka_unit_test(test_room_free_tail),
		cmocka_unit_test(test_bad_reports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
