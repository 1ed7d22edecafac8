/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests: which job record belongs to a volume, records kept with their identity, and
 * which endings are news.
 */
#include "unit.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/state/job.h"
#include "core/base/uuid.h"

static struct fdw_job make_job(const char *id, const char *detached)
{
	struct fdw_job j;

	memset(&j, 0, sizeof(j));
	snprintf(j.id, sizeof(j.id), "%s", id);
	snprintf(j.address, sizeof(j.address), "/dev/loop0");
	snprintf(j.detached_header, sizeof(j.detached_header), "%s", detached);
	return j;
}

static void test_header_uuid_decides(void **state)
{
	struct fdw_job j = make_job("abcdef01-2222-3333-4444-555555555555", "");
	struct fdw_volume_id now = { 0 };

	(void)state;
	snprintf(now.luks_uuid, sizeof(now.luks_uuid), "abcdef01-2222-3333-4444-555555555555");
	assert_true(fdw_job_is_for(&j, &now));
	/* Another tool may write it in capitals. */
	snprintf(now.luks_uuid, sizeof(now.luks_uuid), "ABCDEF01-2222-3333-4444-555555555555");
	assert_true(fdw_job_is_for(&j, &now));
	/* Another volume under the same address, with the same partition: not this job. */
	snprintf(now.luks_uuid, sizeof(now.luks_uuid), "99999999-2222-3333-4444-555555555555");
	j.ident.number = 0;
	snprintf(now.disk, sizeof(now.disk), "/dev/loop0");
	snprintf(j.ident.disk, sizeof(j.ident.disk), "/dev/loop0");
	assert_false(fdw_job_is_for(&j, &now));
	/* No header on the device: a job whose header was on it cannot be this one. */
	now.luks_uuid[0] = '\0';
	assert_false(fdw_job_is_for(&j, &now));
}

static void test_detached_by_place(void **state)
{
	struct fdw_job j = make_job("aaaaaaaa-2222-3333-4444-555555555555", "/root/h.hdr");
	struct fdw_volume_id now = { 0 };

	(void)state;
	/* A record without identity proves nothing. */
	snprintf(now.disk, sizeof(now.disk), "/dev/loop0");
	assert_false(fdw_job_is_for(&j, &now));
	/* The image file and offset decide, whichever loop device is in between. */
	snprintf(j.ident.disk, sizeof(j.ident.disk), "/dev/loop3");
	j.ident.image_dev = now.image_dev = 2049;
	j.ident.image_ino = now.image_ino = 1234;
	j.ident.image_offset = now.image_offset = 1048576;
	assert_true(fdw_job_is_for(&j, &now));
	now.image_offset = 2097152;
	assert_false(fdw_job_is_for(&j, &now));
	now.image_offset = 1048576;
	now.image_ino = 1235;
	assert_false(fdw_job_is_for(&j, &now));
	/* Block devices: the PARTUUID, else disk, number and start. */
	memset(&j.ident, 0, sizeof(j.ident));
	memset(&now, 0, sizeof(now));
	snprintf(j.ident.partuuid, sizeof(j.ident.partuuid), "0a1b2c3d-01");
	snprintf(now.partuuid, sizeof(now.partuuid), "0A1B2C3D-01");
	snprintf(j.ident.disk, sizeof(j.ident.disk), "/dev/sdb");
	snprintf(now.disk, sizeof(now.disk), "/dev/sdc");
	assert_true(fdw_job_is_for(&j, &now));
	snprintf(now.partuuid, sizeof(now.partuuid), "0a1b2c3d-02");
	assert_false(fdw_job_is_for(&j, &now));
	now.partuuid[0] = j.ident.partuuid[0] = '\0';
	assert_false(fdw_job_is_for(&j, &now));
	snprintf(now.disk, sizeof(now.disk), "/dev/sdb");
	j.ident.number = now.number = 2;
	j.ident.start = now.start = 1048576;
	assert_true(fdw_job_is_for(&j, &now));
	now.start = 4096;
	assert_false(fdw_job_is_for(&j, &now));
}

static char dir[] = "/tmp/fdewiz-unit-job.XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_records_roundtrip(void **state)
{
	struct fdw_job j = make_job("bbbbbbbb-2222-3333-4444-555555555555", "");
	struct fdw_volume_id now = { 0 };
	struct fdw_job got;
	char path[PATH_MAX];

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	snprintf(j.ident.label, sizeof(j.ident.label), "photos");
	snprintf(j.ident.fs_uuid, sizeof(j.ident.fs_uuid), "f00d");
	snprintf(j.ident.image, sizeof(j.ident.image), "/srv/disk.img");
	j.ident.image_ino = 77;
	j.ident.image_offset = 1048576;
	j.ident.size = 300 * 1048576ULL;
	j.created = 100;
	assert_int_equal(fdw_job_save(&j), 0);
	/* A record written before identities were kept still loads. */
	snprintf(path, sizeof(path), "%s/jobs/cccccccc-2222-3333-4444-555555555555.json", dir);
	write_file(path, "{\"id\":\"cccccccc-2222-3333-4444-555555555555\","
		   "\"address\":\"/dev/loop0\",\"created\":200}");
	assert_int_equal(fdw_job_find_id("cccccccc-2222-3333-4444-555555555555", &got), 0);
	assert_string_equal(got.address, "/dev/loop0");
	assert_string_equal(got.ident.disk, "");
	assert_int_equal(fdw_job_find_id("bbbbbbbb-2222-3333-4444-555555555555", &got), 0);
	assert_string_equal(got.ident.label, "photos");
	assert_string_equal(got.ident.fs_uuid, "f00d");
	assert_string_equal(got.ident.image, "/srv/disk.img");
	assert_int_equal(got.ident.image_ino, 77);
	assert_int_equal(got.ident.image_offset, 1048576);
	assert_int_equal(got.ident.size, 300 * 1048576ULL);
	assert_int_equal(fdw_job_find_id("../jobs/x", &got), -ENOENT);
	/* Both records name /dev/loop0; the header there decides which one is its own. */
	snprintf(now.luks_uuid, sizeof(now.luks_uuid), "bbbbbbbb-2222-3333-4444-555555555555");
	assert_int_equal(fdw_job_for_volume(&now, &got), 0);
	assert_string_equal(got.id, "bbbbbbbb-2222-3333-4444-555555555555");
	snprintf(now.luks_uuid, sizeof(now.luks_uuid), "dddddddd-2222-3333-4444-555555555555");
	assert_int_equal(fdw_job_for_volume(&now, &got), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* Which ending was seen: the marker answers for the ending it was made after only. */
static void test_ended_unseen(void **state)
{
	struct fdw_job j = make_job("eeeeeeee-2222-3333-4444-555555555555", "");
	struct fdw_job bad = make_job("../../../tmp/x", "");
	struct fdw_progress p;
	char path[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fdewiz-unit-job.XXXXXX");
	assert_non_null(mkdtemp(dir));
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	assert_int_equal(fdw_job_save(&j), 0);
	memset(&p, 0, sizeof(p));
	p.state = FDW_JOB_RUNNING;
	p.updated = time(NULL);
	assert_false(fdw_job_ended_unseen(&j, &p));	/* not ended: it is unfinished */
	p.state = FDW_JOB_COMPLETE;
	assert_true(fdw_job_ended_unseen(&j, &p));
	p.state = FDW_JOB_FAILED;
	assert_true(fdw_job_ended_unseen(&j, &p));
	assert_int_equal(fdw_job_mark_seen(&j), 0);
	assert_false(fdw_job_ended_unseen(&j, &p));
	/* Resumed and ended again after it was seen: news again. */
	p.state = FDW_JOB_COMPLETE;
	p.updated = time(NULL) + 60;
	assert_true(fdw_job_ended_unseen(&j, &p));
	/* Ended long ago: no news, marker or not. */
	p.updated = time(NULL) - (FDW_JOB_NEWS_DAYS + 1) * 86400;
	assert_false(fdw_job_ended_unseen(&j, &p));
	/* An id from a header another tool wrote is never a path. */
	assert_int_equal(fdw_job_mark_seen(&bad), -EINVAL);
	assert_int_equal(access("/tmp/x.seen", F_OK), -1);
	assert_true(fdw_uuid_valid("eeeeeeee-2222-3333-4444-555555555555"));
	assert_false(fdw_uuid_valid("eeeeeeee-2222-3333-4444-55555555555/"));
	assert_false(fdw_uuid_valid(""));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* Forgetting a job removes each of its files, and its mount points when they are empty. */
static void test_forget_every_file(void **state)
{
	struct fdw_job j = make_job("ffffffff-2222-3333-4444-555555555555", "");
	struct fdw_job bad = make_job("../outside", "");
	char path[PATH_MAX], kept[PATH_MAX + 16];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/fdewiz-unit-job.XXXXXX");
	assert_non_null(mkdtemp(dir));
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	assert_int_equal(fdw_job_save(&j), 0);
	for (int f = FDW_JOB_STATUS; f <= FDW_JOB_SYSTEM; f++) {
		fdw_job_file_path(&j, (enum fdw_job_file)f, path, sizeof(path));
		write_file(path, "x");
	}
	fdw_job_file_path(&j, FDW_JOB_ROOT, path, sizeof(path));
	assert_int_equal(mkdir(path, 0700), 0);
	/* A mount point with something in it (a filesystem still mounted) stays as it is. */
	fdw_job_file_path(&j, FDW_JOB_OWNER_ROOT, path, sizeof(path));
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(kept, sizeof(kept), "%s/etc", path);
	write_file(kept, "y");
	/* What an id read from a file could name outside jobs/: left alone. */
	snprintf(path, sizeof(path), "%s/outside.json", dir);
	write_file(path, "z");
	fdw_job_forget(&bad);
	assert_int_equal(access(path, F_OK), 0);

	fdw_job_forget(&j);
	for (int f = FDW_JOB_RECORD; f <= FDW_JOB_ROOT; f++) {
		fdw_job_file_path(&j, (enum fdw_job_file)f, path, sizeof(path));
		if (f == FDW_JOB_OWNER_ROOT)
			assert_int_equal(access(kept, F_OK), 0);
		else
			assert_int_equal(access(path, F_OK), -1);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_uuid_decides),
		cmocka_unit_test(test_detached_by_place),
		cmocka_unit_test(test_records_roundtrip),
		cmocka_unit_test(test_ended_unseen),
		cmocka_unit_test(test_forget_every_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
