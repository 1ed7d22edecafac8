/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for running helpers: a fixed PATH and a minimal environment, whatever PATH was. */
#include "unit.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/log.h"
#include "core/base/spawn.h"

static char logged[8192];

static void sink(enum fdw_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

/* A directory with a fake "sh" first in PATH, and variables a helper must not see. */
static char fake_dir[64];

static int setup(void **state)
{
	char path[128];
	FILE *f;

	(void)state;
	snprintf(fake_dir, sizeof(fake_dir), "/tmp/fdw-spawn-XXXXXX");
	if (!mkdtemp(fake_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/sh", fake_dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("#!/bin/sh\necho FAKE-SH-RAN\n", f);
	fclose(f);
	chmod(path, 0755);
	setenv("PATH", fake_dir, 1);
	setenv("FDW_TEST_SECRET", "must-not-leak", 1);
	setenv("LD_LIBRARY_PATH", fake_dir, 1);
	fdw_log_set_sink(sink, NULL);
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/sh", fake_dir);
	unlink(path);
	rmdir(fake_dir);
	return 0;
}

static void test_fixed_path(void **state)
{
	char *const argv[] = { "sh", "-c", "echo \"path=$PATH\"; env | sort | tr '\\n' ' '",
			       NULL };
	char prog[256];

	(void)state;
	logged[0] = '\0';
	assert_int_equal(fdw_spawn(argv), 0);
	assert_null(strstr(logged, "FAKE-SH-RAN"));
	assert_non_null(strstr(logged, "sh: path=" FDW_HELPER_PATH "\n"));
	assert_null(strstr(logged, "must-not-leak"));
	assert_null(strstr(logged, "LD_LIBRARY_PATH"));
	assert_non_null(strstr(logged, "LC_ALL=C"));
	assert_int_equal(fdw_helper_resolve("sh", prog, sizeof(prog)), 0);
	assert_int_equal(strncmp(prog, fake_dir, strlen(fake_dir)) == 0, 0);
}

static void test_missing_helper(void **state)
{
	char *const argv[] = { "fdewiz-no-such-helper", NULL };

	(void)state;
	logged[0] = '\0';
	assert_int_equal(fdw_spawn(argv), -ENOENT);
	assert_non_null(strstr(logged, "could not find fdewiz-no-such-helper"));
}

static void test_exit_status(void **state)
{
	char *const argv[] = { "sh", "-c", "exit 3", NULL };

	(void)state;
	assert_int_equal(fdw_spawn(argv), 3);
}

/*
 * A helper given bytes on its stdin that exits without reading them: the write fails
 * (EPIPE), the SIGPIPE it raises does not kill the caller. Many times, as the helper's exit
 * races the write.
 */
static void test_stdin_unread(void **state)
{
	char *const argv[] = { "sh", "-c", "exit 5", NULL };
	static char bytes[60000];
	struct fdw_spawn_opts o = { .stdin_bytes = bytes, .stdin_len = sizeof(bytes), .fd3 = -1 };
	char out[64];

	(void)state;
	memset(bytes, 'k', sizeof(bytes));
	for (int i = 0; i < 50; i++)
		assert_int_equal(fdw_spawn_collect(argv, &o, out, sizeof(out)), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_path),
		cmocka_unit_test(test_missing_helper),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_stdin_unread),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
