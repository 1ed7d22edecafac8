/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the recovery key's escrow: the document is JSON whatever the names hold,
 * a command that fails is reported without the key it echoed, a folder keeps one file per
 * volume and never replaces one. */
#include "unit.h"

#include <errno.h>
#include <json-c/json.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/luks2/escrow.h"

#define UUID "0b9e4f0e-6c2b-4a59-9a3e-2f3c1d4e5f60"
#define KEY "ABCDEF-234567-GHJKLM-NPQRST-UVWXYZ-89ABCD-EFGHJK-LMNPQR"

static struct fdw_secret *make_key(void)
{
	struct fdw_secret *k;

	assert_int_equal(fdw_secret_new(&k, 64), 0);
	memcpy(k->data, KEY, strlen(KEY) + 1);
	k->len = strlen(KEY);
	return k;
}

static const char *field(json_object *o, const char *name)
{
	json_object *v;

	assert_true(json_object_object_get_ex(o, name, &v));
	return json_object_get_string(v);
}

/* A device name with quotes, a backslash, a newline and an escape character. */
static void test_document_is_json(void **state)
{
	const char *hostile = "/tmp/a\"b\\c\n\x1b[2J.img:1";
	struct fdw_escrow_volume v = { hostile, "", UUID };
	struct fdw_secret *key = make_key(), *doc;
	json_object *o;

	(void)state;
	assert_int_equal(fdw_escrow_document(&v, key, &doc), 0);
	assert_non_null(strchr(doc->data, '\n'));
	assert_int_equal(doc->data[doc->len - 1], '\n');
	assert_null(strchr(doc->data, '\x1b'));
	o = json_tokener_parse(doc->data);
	assert_non_null(o);
	assert_string_equal(field(o, "device"), hostile);
	assert_string_equal(field(o, "luks_uuid"), UUID);
	assert_string_equal(field(o, "recovery_key"), KEY);
	assert_string_equal(field(o, "filesystem_uuid"), "");
	assert_int_equal(strlen(field(o, "time")), 20);
	json_object_put(o);
	fdw_secret_free(doc);
	fdw_secret_free(key);
}

/* A command that prints what it was given and fails: its words, the key masked, even
 * where the output was cut inside it. */
static void test_failing_command_masks_key(void **state)
{
	struct fdw_escrow es = { .command = "cat; exit 4" };
	struct fdw_escrow_volume v = { "/dev/sdz9", "", UUID };
	struct fdw_secret *key = make_key();
	char why[1024];

	(void)state;
	assert_int_equal(fdw_escrow_key(&es, &v, key, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "exit status 4"));
	assert_non_null(strstr(why, "/dev/sdz9"));
	assert_null(strstr(why, "ABCDEF-234567"));
	assert_non_null(strstr(why, "Nothing was changed"));
	/* Its output cut 20 characters into the key (a long prefix before it). */
	es.command = "printf '%0300d ABCDEF-234567-GHJKLM-NP' 0; exit 1";
	assert_int_equal(fdw_escrow_key(&es, &v, key, why, sizeof(why)), -EIO);
	assert_non_null(strstr(why, "0000000000 ********************"));
	assert_null(strstr(why, "ABCDEF-2345"));
	fdw_secret_free(key);
}

static void test_folder_keeps_one_file_per_volume(void **state)
{
	char dir[] = "/tmp/fdw-escrow-XXXXXX", path[128], rm[64];
	struct fdw_escrow es = { .dir = dir };
	struct fdw_escrow_volume v = { "/dev/sdz9", "", UUID };
	struct fdw_secret *key = make_key();
	struct stat st;
	char why[1024];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(fdw_escrow_key(&es, &v, key, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/%s.json", dir, UUID);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* The same volume's name again: never replaced. */
	assert_int_equal(fdw_escrow_key(&es, &v, key, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "already exists"));
	/* No UUID to name it by: refused. */
	v.luks_uuid = "../../etc/passwd";
	assert_int_equal(fdw_escrow_key(&es, &v, key, why, sizeof(why)), -EINVAL);
	/* Nothing asked: nothing done. */
	es.dir = NULL;
	assert_int_equal(fdw_escrow_key(&es, &v, key, why, sizeof(why)), 0);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	fdw_secret_free(key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_is_json),
		cmocka_unit_test(test_failing_command_masks_key),
		cmocka_unit_test(test_folder_keeps_one_file_per_volume),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
