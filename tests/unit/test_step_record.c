/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for step records: a round trip, what a damaged record is said to be, the
 * records of the /boot move and the LVM room as the previous version wrote them, a job's
 * record of its system's boot step, in its JSON and in the older "key=value" lines, and the
 * job's own record. */
#include "unit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/boot/boot_move.h"
#include "core/boot/system_boot_internal.h"
#include "core/boot/system_data_internal.h"
#include "core/disk/disk.h"
#include "core/disk/lvm_room.h"
#include "core/disk/target.h"
#include "core/state/job.h"
#include "core/state/step_record.h"

#define ID "5b1c3f5e-8a3e-4a59-9c0e-6f1d2a3b4c5d"

static char dir[] = "/tmp/fdw-step-record.XXXXXX";

enum demo_step { DEMO_BEGUN, DEMO_HALF, DEMO_DONE };
static const char *const demo_steps[] = { "begun", "half", "done" };

struct demo {
	char id[40];
	char where[64];
	uint64_t size;
	int number;
	bool flag;
	enum demo_step step;
};

static const struct fdw_record_field demo_fields[] = {
	FDW_REC_FIELD(struct demo, id, FDW_REC_STR),
	FDW_REC_FIELD(struct demo, where, FDW_REC_STR),
	FDW_REC_FIELD(struct demo, size, FDW_REC_U64),
	FDW_REC_FIELD(struct demo, number, FDW_REC_INT),
	FDW_REC_FIELD(struct demo, flag, FDW_REC_BOOL),
};

static const struct fdw_step_record demo_kind = {
	.kind = "demo", .id_key = "id", .steps = demo_steps, .n_steps = 3,
	.size = sizeof(struct demo), .step_offset = offsetof(struct demo, step),
	.fields = demo_fields, .n_fields = 5,
};

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return setenv("FDEWIZ_STATE_DIR", dir, 1);
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_round_trip(void **state)
{
	struct demo d = { ID, "/dev/vda", 1ULL << 40, 3, true, DEMO_HALF }, back;
	char why[512] = "", path[PATH_MAX], text[1024] = "";
	FILE *f;

	(void)state;
	assert_int_equal(fdw_step_record_save(&demo_kind, ID, &d), 0);
	assert_int_equal(fdw_step_record_load(&demo_kind, ID, &back, why, sizeof(why)), 0);
	assert_string_equal(back.where, "/dev/vda");
	assert_true(back.size == 1ULL << 40);
	assert_int_equal(back.number, 3);
	assert_true(back.flag);
	assert_int_equal(back.step, DEMO_HALF);
	snprintf(path, sizeof(path), "%s/demo-" ID ".json", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(text, "\"version\":1"));
	assert_non_null(strstr(text, "\"step\":\"half\""));
	/* No record, and ids that cannot name a file. */
	assert_int_equal(fdw_step_record_load(&demo_kind, "0000-0000-0000", &back, why,
					      sizeof(why)), -ENOENT);
	assert_int_equal(fdw_step_record_save(&demo_kind, "../../etc/x", &d), -EINVAL);
	assert_false(fdw_step_record_id_valid("short"));
	assert_false(fdw_step_record_id_valid("has/slash-0000"));
	/* Longer than its field holds: refused, not saved cut short. */
	assert_int_equal(fdw_step_record_save(&demo_kind, ID "-0123", &d), -EINVAL);
}

/* Each way a record cannot be trusted is named. */
static void test_damaged(void **state)
{
	struct demo back;
	char why[512];

	(void)state;
	put("demo-" ID ".json", "{ \"id\": \"" ID "\", \"step\": \"sideways\" }");
	assert_int_equal(fdw_step_record_load(&demo_kind, ID, &back, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "unknown step 'sideways'"));
	put("demo-" ID ".json", "{ \"id\": \"another-id-0000\", \"step\": \"half\" }");
	assert_int_equal(fdw_step_record_load(&demo_kind, ID, &back, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "it names id 'another-id-0000'"));
	put("demo-" ID ".json", "{ \"version\": 7, \"id\": \"" ID "\", \"step\": \"half\" }");
	assert_int_equal(fdw_step_record_load(&demo_kind, ID, &back, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "version 7, written by a newer fdewiz"));
	put("demo-" ID ".json", "{ \"id\": ");
	assert_int_equal(fdw_step_record_load(&demo_kind, ID, &back, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "not a JSON record"));
}

/* The records as the version before step records wrote them (no "version"). */
#define OLD_MOVE(step) "{\n  \"fs_uuid\":\"" ID "\",\n  \"disk\":\"/dev/vda\",\n"\
	"  \"number\":1,\n  \"logical\":false,\n  \"boot_start\":1048576,\n"\
	"  \"boot_size\":536870912,\n  \"root_size\":4294967296,\n"\
	"  \"root_fs_max\":3221225472,\n"\
	"  \"boot_uuid\":\"0b0e1234-5678-4abc-8def-0123456789ab\",\n"\
	"  \"boot_number\":0,\n  \"esp_spec\":\"\",\n  \"step\":\"" step "\"\n}\n"
#define OLD_ROOM(step) "{\n  \"pv_uuid\":\"" ID "\",\n  \"node\":\"/dev/vda3\",\n"\
	"  \"vg\":\"debian-vg\",\n  \"swap_lv\":\"swap_1\",\n"\
	"  \"swap_dev\":\"/dev/mapper/debian--vg-swap_1\",\n"\
	"  \"swap_uuid\":\"0b0e1234-5678-4abc-8def-0123456789ab\",\n"\
	"  \"swap_label\":\"\",\n  \"swap_pe\":200,\n"\
	"  \"pv_size\":8589934592,\n  \"step\":\"" step "\"\n}\n"

/* A /boot move and an LVM room cut short by the version before step records: found
 * unfinished, so that resume goes on with them; done, or damaged, they are not. */
static void test_old_records(void **state)
{
	struct fdw_partition part = { .uuid = (char *)ID };
	struct fdw_target t = { .part = &part };

	(void)state;
	put("boot-move-" ID ".json", OLD_MOVE("shrunk"));
	assert_true(fdw_boot_move_unfinished(&t));
	put("boot-move-" ID ".json", OLD_MOVE("done"));
	assert_false(fdw_boot_move_unfinished(&t));
	put("boot-move-" ID ".json", OLD_MOVE("shrunk\", \"root_fs_max\":9999999999, \"x\":\""));
	assert_false(fdw_boot_move_unfinished(&t));
	put("lvm-room-" ID ".json", OLD_ROOM("swap-made"));
	assert_true(fdw_lvm_room_unfinished(&t));
	put("lvm-room-" ID ".json", OLD_ROOM("done"));
	assert_false(fdw_lvm_room_unfinished(&t));
	/* Its own check: a swap volume named by no /dev/mapper node is not trusted. */
	put("lvm-room-" ID ".json", OLD_ROOM("swap-made\", \"swap_dev\":\"/dev/sda2"));
	assert_false(fdw_lvm_room_unfinished(&t));
}

/* The job's file ID.@suffix in the state folder, written with @text. */
static void put_job_file(const char *suffix, const char *text)
{
	char jobs[PATH_MAX];

	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	mkdir(jobs, 0700);
	snprintf(jobs, sizeof(jobs), "jobs/%s.%s", ID, suffix);
	put(jobs, text);
}

/* Every field of the boot step's record comes back: from its JSON, and from the lines the
 * version before wrote (a conversion it left interrupted resumes); another kind's record,
 * or a name crypttab cannot take, is not loaded. */
static void test_system_boot_record(void **state)
{
	struct fdw_job job = { .id = ID };
	/* Static: its padding zero, so that the record compares whole. */
	static const struct fdw_sysboot_record r = {
		.name = "vda1_crypt", .boot_spec = "UUID=0b0e1234", .fs_uuid = "9f0e",
		.initramfs = FDW_INITRAMFS_TOOLS, .loader = FDW_LOADER_GRUB_EFI, .swap = true,
		.vg = "debian-vg", .root_dev = "/dev/mapper/debian--vg-root",
		.root_fstype = "btrfs", .root_subvol = "@rootfs", .done = true, .tpm_pcrs = "7",
		.tpm_slot = 2, .tpm_unready = true,
		.changed = "/etc/crypttab (/etc/crypttab.fdewiz-bak)\n/etc/fstab (new file)\n",
	};
	struct fdw_sysboot_record back;

	(void)state;
	put_job_file("system", "");
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_int_equal(fdw_system_boot_load(&job, &back), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	put_job_file("system", "name=vda1_crypt\nboot=UUID=0b0e1234\nfs_uuid=9f0e\ninitramfs=1\n"
		     "loader=2\nswap=1\nvg=debian-vg\nroot_dev=/dev/mapper/debian--vg-root\n"
		     "root_fstype=btrfs\nroot_subvol=@rootfs\ndone=1\ntpm=7\ntpm_slot=2\n"
		     "tpm_unready=1\n/etc/crypttab (/etc/crypttab.fdewiz-bak)\n"
		     "/etc/fstab (new file)\n");
	assert_int_equal(fdw_system_boot_load(&job, &back), 0);
	assert_string_equal(back.name, "vda1_crypt");
	assert_string_equal(back.boot_spec, "UUID=0b0e1234");
	assert_int_equal(back.initramfs, 1);
	assert_int_equal(back.loader, 2);
	assert_true(back.swap && back.done && back.tpm_unready);
	assert_string_equal(back.root_dev, "/dev/mapper/debian--vg-root");
	assert_string_equal(back.root_subvol, "@rootfs");
	assert_int_equal(back.tpm_slot, 2);
	assert_string_equal(back.tpm_pcrs, "7");
	assert_string_equal(back.changed, r.changed);
	/* Older still, before TPM unlock: no binding. */
	put_job_file("system", "name=vda1_crypt\ndone=0\n");
	assert_int_equal(fdw_system_boot_load(&job, &back), 0);
	assert_int_equal(back.tpm_slot, -1);
	put_job_file("system", "{ \"version\": 1, \"kind\": \"boot-move\", \"name\": \"vda1_crypt\" }");
	assert_int_equal(fdw_system_boot_load(&job, &back), -EINVAL);
	put_job_file("system", "{ \"version\": 1, \"kind\": \"system-boot\", \"name\": \"a b\" }");
	assert_int_equal(fdw_system_boot_load(&job, &back), -EINVAL);
	put_job_file("system", "name=a/b\ndone=0\n");
	assert_int_equal(fdw_system_boot_load(&job, &back), -EINVAL);
}

/* The record of a data volume's entries in its system: the same, both ways. */
static void test_system_data_record(void **state)
{
	struct fdw_job job = { .id = ID };
	static const struct fdw_sysdata_record r = {
		.name = "home_crypt", .dir = "/home", .spec = "UUID=1d2c", .root_disk = "/dev/vda",
		.root_number = 2, .root_start = 1048576, .root_size = 1ULL << 33,
		.root_uuid = "0b0e1234-5678-4abc-8def-0123456789ab", .root_address = "/dev/vda2",
		.done = true, .changed = "/etc/crypttab (/etc/crypttab.fdewiz-bak)\n",
	};
	struct fdw_sysdata_record back;

	(void)state;
	put_job_file("owner", "");
	assert_int_equal(fdw_system_data_save(&job, &r), 0);
	assert_int_equal(fdw_system_data_load(&job, &back), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	put_job_file("owner", "name=home_crypt\ndir=/home\nspec=UUID=1d2c\n"
	    "root_disk=/dev/vda\nroot_number=2\nroot_start=1048576\nroot_size=8589934592\n"
	    "root_uuid=0b0e1234-5678-4abc-8def-0123456789ab\nroot_address=/dev/vda2\n"
	    "done=1\n/etc/crypttab (/etc/crypttab.fdewiz-bak)\n");
	assert_int_equal(fdw_system_data_load(&job, &back), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	put_job_file("owner", "name=home_crypt\nroot_uuid=not-a-uuid\n");
	assert_int_equal(fdw_system_data_load(&job, &back), -EINVAL);
	put_job_file("owner", "{ \"kind\": \"system-data\", \"name\": \"home_crypt\" }");
	assert_int_equal(fdw_system_data_load(&job, &back), -EINVAL);
}

/* The job's own record: every field back, the identity inside it; one the previous version
 * wrote (no version or kind, its stale flag a JSON boolean) and one older than identities
 * load; one without the volume's address, or of another kind, does not. */
static void test_job_record(void **state)
{
	static struct fdw_job job = {
		.id = ID, .address = "/var/tmp/disk.img:2", .header_backup = "/root/h.img",
		.header_backup_stale = true, .active_name = "data_crypt", .fs_to_grow = "ext4",
		.fstype = "ext4", .cipher = "aes-xts-plain64, 512-bit key", .pace = "gentle",
		.bench_scale = "tiny", .created = 1764633600,
		.ident = { .partuuid = "1a2b", .fs_uuid = "9f0e", .label = "Data", .fstype = "ext4",
			   .disk = "/dev/loop3", .number = 2, .start = 1048576, .size = 1ULL << 33,
			   .image = "/var/tmp/disk.img", .image_dev = 2049, .image_ino = 77,
			   .image_offset = 1048576 },
	};
	struct fdw_job back;

	(void)state;
	put_job_file("json", "");
	assert_int_equal(fdw_job_save(&job), 0);
	assert_int_equal(fdw_job_find_id(ID, &back), 0);
	assert_memory_equal(&job, &back, sizeof(job));
	put_job_file("json", "{ \"id\": \"" ID "\", \"address\": \"/dev/vdb1\", "
		     "\"header_backup_stale\": false, \"detached_header\": \"/root/hdr\", "
		     "\"created\": 1764633600, \"identity\": { \"partuuid\": \"1a2b\", "
		     "\"number\": 1, \"start\": 1048576, \"image_ino\": 0 } }");
	assert_int_equal(fdw_job_find_id(ID, &back), 0);
	assert_string_equal(back.address, "/dev/vdb1");
	assert_string_equal(back.detached_header, "/root/hdr");
	assert_false(back.header_backup_stale);
	assert_int_equal(back.created, 1764633600);
	assert_string_equal(back.ident.partuuid, "1a2b");
	assert_int_equal(back.ident.number, 1);
	assert_int_equal(back.ident.start, 1048576);
	put_job_file("json", "{ \"id\": \"" ID "\", \"address\": \"/dev/vdb1\" }");
	assert_int_equal(fdw_job_find_id(ID, &back), 0);
	assert_string_equal(back.ident.partuuid, "");
	assert_int_equal(back.ident.number, 0);
	put_job_file("json", "{ \"id\": \"" ID "\" }");
	assert_int_equal(fdw_job_find_id(ID, &back), -EINVAL);
	put_job_file("json", "{ \"kind\": \"boot-move\", \"id\": \"" ID "\", "
		     "\"address\": \"/dev/vdb1\" }");
	assert_int_equal(fdw_job_find_id(ID, &back), -EINVAL);
	put_job_file("json", "not json");
	assert_int_equal(fdw_job_find_id(ID, &back), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_old_records),
		cmocka_unit_test(test_system_boot_record),
		cmocka_unit_test(test_system_data_record),
		cmocka_unit_test(test_job_record),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
