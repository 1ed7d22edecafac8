/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the crypttab and fstab line logic, and for recovery key canonicalisation. */
#include "unit.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/boot/crypttab.h"
#include "core/luks2/recovery.h"

#define UUID "0b7e3a55-1f2d-4c8e-9a61-5d2f8e4c7b10"
#define OTHER "f00dcafe-0000-4000-8000-123456789abc"

static void test_add_to_empty(void **state)
{
	char *out = NULL, why[512];

	(void)state;
	assert_int_equal(fdw_crypttab_edit(NULL, "data", UUID, false, &out, why, sizeof(why)), 0);
	assert_string_equal(out, "data UUID=" UUID " none luks\n");
	free(out);
	assert_int_equal(fdw_crypttab_edit("", "data", UUID, true, &out, why, sizeof(why)), 0);
	assert_string_equal(out, "data UUID=" UUID " none luks,discard\n");
	free(out);
}

static void test_comments_kept(void **state)
{
	const char *old = "# <target name>\t<source device>\t<key file>\t<options>\n"
			  "\n"
			  "swap\t/dev/sda5\t/dev/urandom\tswap,cipher=aes-xts-plain64   \n"
			  "  # indented comment with data UUID=" UUID "\n"
			  "home UUID=" OTHER " none luks";	/* no final newline */
	char *out = NULL, why[512];

	(void)state;
	assert_int_equal(fdw_crypttab_edit(old, "data", UUID, false, &out, why, sizeof(why)), 0);
	/* Every old byte stays; a newline is added before the new line. */
	assert_memory_equal(out, old, strlen(old));
	assert_string_equal(out + strlen(old), "\ndata UUID=" UUID " none luks\n");
	free(out);
}

static void test_idempotent(void **state)
{
	char *once = NULL, *twice = (char *)1, why[512];

	(void)state;
	assert_int_equal(fdw_crypttab_edit("# hi\n", "data", UUID, true, &once, why, sizeof(why)),
			 0);
	assert_int_equal(fdw_crypttab_edit(once, "data", UUID, true, &twice, why, sizeof(why)),
			 1);
	assert_null(twice);
	free(once);
	/* Equal in meaning: other spacing, options in another order, upper-case UUID. */
	assert_int_equal(fdw_crypttab_edit("data\tUUID=0B7E3A55-1F2D-4C8E-9A61-5D2F8E4C7B10  none "
					   "discard,luks\n", "data", UUID, true, &twice, why,
					   sizeof(why)), 1);
	assert_int_equal(fdw_crypttab_edit("data /dev/disk/by-uuid/" UUID " none luks\n", "data",
					   UUID, false, &twice, why, sizeof(why)), 1);
}

static void test_conflicts(void **state)
{
	char *out = (char *)1, why[512];

	(void)state;
	/* Same volume, other name. */
	assert_int_equal(fdw_crypttab_edit("secret UUID=" UUID " none luks\n", "data", UUID,
					   false, &out, why, sizeof(why)), -EEXIST);
	assert_null(out);
	assert_non_null(strstr(why, "'secret'"));
	/* Same volume and name, other options or a key file. */
	assert_int_equal(fdw_crypttab_edit("data UUID=" UUID " none luks\n", "data", UUID, true,
					   &out, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "line 1"));
	assert_int_equal(fdw_crypttab_edit("data UUID=" UUID " /root/key luks\n", "data", UUID,
					   false, &out, why, sizeof(why)), -EEXIST);
	assert_int_equal(fdw_crypttab_edit("#\ndata UUID=" UUID " none luks,noauto\n", "data",
					   UUID, false, &out, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "line 2"));
	/* The name already opens another device. */
	assert_int_equal(fdw_crypttab_edit("data UUID=" OTHER " none luks\n", "data", UUID, false,
					   &out, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, OTHER));
	/* A commented-out entry is not an entry. */
	assert_int_equal(fdw_crypttab_edit("#data UUID=" UUID " none luks\n", "data", UUID, false,
					   &out, why, sizeof(why)), 0);
	free(out);
}

static void test_bad_input(void **state)
{
	char *out = NULL, why[512];

	(void)state;
	assert_int_equal(fdw_crypttab_edit(NULL, "two words", UUID, false, &out, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(fdw_crypttab_edit(NULL, "-x", UUID, false, &out, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(fdw_crypttab_edit(NULL, "", UUID, false, &out, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(fdw_crypttab_edit(NULL, "data", "not-a-uuid", false, &out, why,
					   sizeof(why)), -EINVAL);
	assert_int_equal(fdw_crypttab_edit(NULL, "data", UUID " x", false, &out, why,
					   sizeof(why)), -EINVAL);
	assert_null(out);
}

/* A detached header: the partition by PARTUUID, the header as crypttab(5)'s header=. */
static void test_detached(void **state)
{
	const char *pu = "6a1f3c2e-8b4d-4e0f-9a7b-112233445566";
	char *out = NULL, *again = NULL;
	char why[256];

	(void)state;
	assert_int_equal(fdw_crypttab_edit_detached("", "media", pu, "/etc/keys/media.luks",
						    false, &out, why, sizeof(why)), 0);
	assert_string_equal(out, "media PARTUUID=6a1f3c2e-8b4d-4e0f-9a7b-112233445566 none "
			    "luks,header=/etc/keys/media.luks\n");
	/* Twice: already there, in either order of its options. */
	assert_int_equal(fdw_crypttab_edit_detached(out, "media", pu, "/etc/keys/media.luks",
						    false, &again, why, sizeof(why)), 1);
	assert_null(again);
	assert_int_equal(fdw_crypttab_edit_detached("media PARTUUID=6A1F3C2E-8B4D-4E0F-9A7B-"
						    "112233445566 none header=/etc/keys/media."
						    "luks,discard,luks\n", "media", pu,
						    "/etc/keys/media.luks", true, &again, why,
						    sizeof(why)), 1);
	/* Another header for the same partition is another setting: refused. */
	assert_int_equal(fdw_crypttab_edit_detached(out, "media", pu, "/etc/keys/other.luks",
						    false, &again, why, sizeof(why)), -EEXIST);
	free(out);
	/* Paths crypttab cannot carry, and no PARTUUID. */
	assert_int_equal(fdw_crypttab_edit_detached("", "media", pu, "keys/media.luks", false,
						    &out, why, sizeof(why)), -EINVAL);
	assert_int_equal(fdw_crypttab_edit_detached("", "media", pu, "/my keys/m.luks", false,
						    &out, why, sizeof(why)), -EINVAL);
	assert_int_equal(fdw_crypttab_edit_detached("", "media", pu, "/k/a,b.luks", false,
						    &out, why, sizeof(why)), -EINVAL);
	assert_int_equal(fdw_crypttab_edit_detached("", "media", "", "/k/m.luks", false,
						    &out, why, sizeof(why)), -EINVAL);
	assert_null(out);
}

static void test_fstab(void **state)
{
	struct fdw_part_ids ids = { .node = "/dev/sda3", .partuuid = "6a3b-03",
				    .partlabel = "Data" };
	const char *old =
		"# /etc/fstab\n"
		"UUID=1234-abcd / ext4 errors=remount-ro 0 1\n"
		"/dev/sda3\t/srv\text4\tdefaults\t0 2\n"
		"/dev/sda30 /x ext4 defaults 0 2\n"
		"PARTUUID=6A3B-03   /data ext4 noatime 0 2\n"
		"PARTUUID=\"6a3b-03\" /data2 ext4 noatime 0 2\n"
		"PARTLABEL=Data /d ext4 defaults 0 0\n"
		"PARTLABEL=data /e ext4 defaults 0 0\n"
		"/dev/disk/by-partuuid/6a3b-03 /f ext4 defaults 0 0\n"
		"LABEL=Data /g ext4 defaults 0 0\n"
		"#/dev/sda3 /old ext4 defaults 0 0\n"
		"  /dev/sda3 /h ext4 defaults 0 0";
	const char *expect =
		"# /etc/fstab\n"
		"UUID=1234-abcd / ext4 errors=remount-ro 0 1\n"
		"/dev/mapper/data\t/srv\text4\tdefaults\t0 2\n"
		"/dev/sda30 /x ext4 defaults 0 2\n"
		"/dev/mapper/data   /data ext4 noatime 0 2\n"
		"/dev/mapper/data /data2 ext4 noatime 0 2\n"
		"/dev/mapper/data /d ext4 defaults 0 0\n"
		"PARTLABEL=data /e ext4 defaults 0 0\n"
		"/dev/mapper/data /f ext4 defaults 0 0\n"
		"LABEL=Data /g ext4 defaults 0 0\n"
		"#/dev/sda3 /old ext4 defaults 0 0\n"
		"  /dev/mapper/data /h ext4 defaults 0 0";
	char *out = NULL, *again = NULL;

	(void)state;
	assert_int_equal(fdw_fstab_edit(old, "data", &ids, &out), 6);
	assert_string_equal(out, expect);
	/* Again: nothing left to change. */
	assert_int_equal(fdw_fstab_edit(out, "data", &ids, &again), 0);
	assert_null(again);
	free(out);
	/* UUID= entries are the usual case and stay. */
	assert_int_equal(fdw_fstab_edit("UUID=1234 /srv ext4 defaults 0 2\n", "data", &ids, &out),
			 0);
	assert_null(out);
	/* Unknown ids match nothing. */
	ids = (struct fdw_part_ids){ 0 };
	assert_int_equal(fdw_fstab_edit("PARTUUID= /a ext4 d 0 0\n", "data", &ids, &out), 0);
}

static void test_fstab_links(void **state)
{
	struct fdw_part_ids ids = { .node = "/dev/null", .resolve_links = true };
	char link[64], text[256], *out = NULL;

	(void)state;
	snprintf(link, sizeof(link), "/dev/shm/fdewiz-test-%ld", (long)getpid());
	assert_int_equal(symlink("/dev/null", link), 0);
	snprintf(text, sizeof(text), "%s /a ext4 d 0 0\n/dev/zero /b ext4 d 0 0\n", link);
	assert_int_equal(fdw_fstab_edit(text, "v", &ids, &out), 1);
	assert_string_equal(out, "/dev/mapper/v /a ext4 d 0 0\n/dev/zero /b ext4 d 0 0\n");
	free(out);
	/* Another root's fstab: links under this /dev mean nothing there. */
	ids.resolve_links = false;
	assert_int_equal(fdw_fstab_edit(text, "v", &ids, &out), 0);
	unlink(link);
}

/* Another installed system's /home: every line with the name it gives it, UUID= too. */
static void test_fstab_spec(void **state)
{
	struct fdw_part_ids ids = { .spec = "UUID=4e0a" };
	const char *text = "# comment UUID=4e0a\n"
			   "UUID=4e0a\t/home ext4 defaults 0 2\n"
			   "UUID=4e0ab /srv ext4 defaults 0 2\n"
			   "UUID=4E0A /var ext4 defaults 0 2\n";
	char *out = NULL;

	(void)state;
	assert_int_equal(fdw_fstab_edit(text, "home_crypt", &ids, &out), 1);
	assert_string_equal(out, "# comment UUID=4e0a\n"
				 "/dev/mapper/home_crypt\t/home ext4 defaults 0 2\n"
				 "UUID=4e0ab /srv ext4 defaults 0 2\n"
				 "UUID=4E0A /var ext4 defaults 0 2\n");
	free(out);
	/* Without it, UUID= lines stay: the filesystem keeps its UUID inside the volume. */
	ids.spec = NULL;
	assert_int_equal(fdw_fstab_edit(text, "home_crypt", &ids, &out), 0);
	assert_null(out);
}

static void test_names(void **state)
{
	char name[64];

	(void)state;
	fdw_crypttab_name_from_label("My Data!", name, sizeof(name));
	assert_string_equal(name, "my-data");
	fdw_crypttab_name_from_label("  __x", name, sizeof(name));
	assert_string_equal(name, "x");
	fdw_crypttab_name_from_label(NULL, name, sizeof(name));
	assert_string_equal(name, "");
	fdw_crypttab_name_from_label("Ünïcode", name, sizeof(name));
	assert_string_equal(name, "n-code");
	assert_true(fdw_crypttab_name_valid("luks-" UUID));
	assert_false(fdw_crypttab_name_valid("a/b"));
}

static void test_recovery_canonical(void **state)
{
	struct fdw_secret *key = NULL, *again = NULL;
	char typed[128], why[256];
	size_t n = 0;

	(void)state;
	assert_int_equal(fdw_recovery_key_generate(&key), 0);
	assert_int_equal(key->len, FDW_RECOVERY_KEY_LEN);
	for (size_t i = 0; i < key->len; i++)
		if (i % 7 == 6)
			assert_int_equal(key->data[i], '-');
		else
			assert_non_null(strchr("23456789ABCDEFGHJKLMNPQRSTUVWXYZ", key->data[i]));
	/* Lower case, no dashes, spaces and a newline: the same key. */
	for (size_t i = 0; i < key->len; i++)
		if (key->data[i] != '-')
			typed[n++] = (char)tolower((unsigned char)key->data[i]);
	typed[n++] = '\n';
	assert_int_equal(fdw_recovery_key_canonicalize(typed, n, &again, why, sizeof(why)), 0);
	assert_true(fdw_secret_equal(key, again));
	fdw_secret_free(again);
	assert_int_equal(fdw_recovery_key_canonicalize(key->data, key->len, &again, why,
						       sizeof(why)), 0);
	assert_true(fdw_secret_equal(key, again));
	fdw_secret_free(again);
	/* One character short, one too many, and one that never occurs. */
	assert_int_equal(fdw_recovery_key_canonicalize(key->data, key->len - 1, &again, why,
						       sizeof(why)), -EMSGSIZE);
	memcpy(typed, key->data, key->len);
	typed[key->len] = 'A';
	assert_int_equal(fdw_recovery_key_canonicalize(typed, key->len + 1, &again, why,
						       sizeof(why)), -EMSGSIZE);
	typed[3] = 'O';
	assert_int_equal(fdw_recovery_key_canonicalize(typed, key->len, &again, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "character 4"));
	assert_null(again);
	fdw_secret_free(key);
}

/* The lines that ask for a passphrase at boot, and only those. */
static void test_asking(void **state)
{
	const char *text = "# a comment\n"
			   "root_crypt UUID=" UUID " none luks,discard\n"
			   "home_crypt\tUUID=" OTHER "\t-\tluks\n"
			   "bare /dev/sdb1\n"
			   "cryptswap1 PARTUUID=1234-03 /dev/urandom swap,cipher=aes-xts-plain64\n"
			   "keyed UUID=" OTHER " /etc/keys/k luks\n"
			   "lazy UUID=" OTHER " none luks,noauto\n"
			   "scripted UUID=" OTHER " none luks,keyscript=/bin/cat\n"
			   "detached PARTUUID=9-9 none luks,header=/h\n"
			   "plainvol /dev/sdc none plain\n"
			   "early UUID=" OTHER " none luks,initramfs";
	struct fdw_crypttab_asking a[2];

	(void)state;
	assert_int_equal(fdw_crypttab_asking(text, a, 2), 3);
	assert_string_equal(a[0].name, "root_crypt");
	assert_string_equal(a[0].source, "UUID=" UUID);
	assert_string_equal(a[1].name, "home_crypt");
	assert_string_equal(a[1].source, "UUID=" OTHER);
	assert_int_equal(fdw_crypttab_asking(NULL, a, 2), 0);
	assert_int_equal(fdw_crypttab_asking("", a, 0), 0);
	/* "swapfile" is not the option "swap". */
	assert_int_equal(fdw_crypttab_asking("x UUID=" UUID " none luks,swapfile\n", a, 2), 1);
}

/* The key field of one line changes; every other byte stays. */
static void test_keyfile(void **state)
{
	const char *old = "# keep me\n"
			  "root_crypt UUID=" UUID " none luks,discard\n"
			  "home_crypt\tUUID=" OTHER "\tnone\tluks\n"
			  "bare UUID=" OTHER "\n";
	char *out = NULL;

	(void)state;
	assert_int_equal(fdw_crypttab_edit_keyfile(old, "home_crypt", "/etc/k/home.key", &out), 0);
	assert_string_equal(out, "# keep me\n"
				 "root_crypt UUID=" UUID " none luks,discard\n"
				 "home_crypt\tUUID=" OTHER " /etc/k/home.key luks\n"
				 "bare UUID=" OTHER "\n");
	/* Again: nothing to write. */
	{
		char *again = NULL;

		assert_int_equal(fdw_crypttab_edit_keyfile(out, "home_crypt", "/etc/k/home.key",
							   &again), 1);
		assert_null(again);
	}
	free(out);
	assert_int_equal(fdw_crypttab_edit_keyfile(old, "bare", "/k", &out), 0);
	assert_string_equal(out + strlen(old) - strlen("bare UUID=" OTHER "\n"),
			    "bare UUID=" OTHER " /k\n");
	free(out);
	assert_int_equal(fdw_crypttab_edit_keyfile(old, "nosuch", "/k", &out), -ENOENT);
	assert_null(out);
	assert_int_equal(fdw_crypttab_edit_keyfile(old, "home_crypt", "relative", &out), -EINVAL);
	assert_int_equal(fdw_crypttab_edit_keyfile(old, "home_crypt", "/a b", &out), -EINVAL);
	assert_int_equal(fdw_crypttab_edit_keyfile(old, "../x", "/k", &out), -EINVAL);
}

/* Which line opens a volume, by its LUKS2 UUID: the decryption's refusal reads it. */
static void test_find_uuid(void **state)
{
	const char *u = "0a1b2c3d-0000-4000-8000-00000000abcd";
	const char *text = "# UUID=0a1b2c3d-0000-4000-8000-00000000abcd in a comment\n"
			   "swap /dev/sda2 /dev/urandom swap\n"
			   "home_crypt UUID=0A1B2C3D-0000-4000-8000-00000000ABCD none luks\n";
	char name[64] = "";
	unsigned line = 0;

	(void)state;
	assert_int_equal(fdw_crypttab_find_uuid(text, u, name, sizeof(name), &line), 1);
	assert_string_equal(name, "home_crypt");
	assert_int_equal(line, 3);
	assert_int_equal(fdw_crypttab_find_uuid("d /dev/disk/by-uuid/0a1b2c3d-0000-4000-8000-"
						"00000000abcd none luks", u, name, sizeof(name),
						&line), 1);
	assert_string_equal(name, "d");
	assert_int_equal(fdw_crypttab_find_uuid("d UUID=\"0a1b2c3d-0000-4000-8000-00000000abcd\""
						" none", u, name, sizeof(name), &line), 1);
	/* Another volume, a longer UUID, none at all. */
	assert_int_equal(fdw_crypttab_find_uuid("x UUID=0a1b2c3d-0000-4000-8000-00000000abce "
						"none luks\n", u, name, sizeof(name), &line), 0);
	assert_int_equal(fdw_crypttab_find_uuid("x UUID=0a1b2c3d-0000-4000-8000-00000000abcdef\n",
						u, name, sizeof(name), &line), 0);
	assert_int_equal(fdw_crypttab_find_uuid(NULL, u, name, sizeof(name), &line), 0);
	assert_int_equal(fdw_crypttab_find_uuid("", u, name, sizeof(name), &line), 0);
	/* A detached header's line names the partition and the header file. */
	assert_int_equal(fdw_crypttab_find_header("# c\nmedia PARTUUID=1234-01 none "
						  "luks,header=/boot/media.luks,discard\n",
						  "/boot/media.luks", name, sizeof(name), &line), 1);
	assert_string_equal(name, "media");
	assert_int_equal(line, 2);
	assert_int_equal(fdw_crypttab_find_header("media PARTUUID=1234-01 none "
						  "luks,header=/boot/media.luks.old\n",
						  "/boot/media.luks", name, sizeof(name), &line), 0);
	assert_int_equal(fdw_crypttab_find_header("media PARTUUID=1234-01 none\n",
						  "/boot/media.luks", name, sizeof(name), &line), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_to_empty),
		cmocka_unit_test(test_comments_kept),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_detached),
		cmocka_unit_test(test_fstab),
		cmocka_unit_test(test_fstab_links),
		cmocka_unit_test(test_fstab_spec),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_recovery_canonical),
		cmocka_unit_test(test_asking),
		cmocka_unit_test(test_keyfile),
		cmocka_unit_test(test_find_uuid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
