/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the other initramfs builds fdewiz waits for: which processes are builds
 * (from a made-up proc folder), and a wait that lasts as long as a real one runs. */
#include "unit.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/boot/initramfs_builders.h"

/* A process of the made-up proc folder @proc: its cmdline, arguments NUL-separated. */
static void fake_proc(const char *proc, const char *pid, const char *cmdline, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", proc, pid);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%s/cmdline", proc, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(cmdline, 1, n, f), n);
	fclose(f);
}

#define FAKE(proc, pid, lit) fake_proc(proc, pid, lit, sizeof(lit) - 1)

static void test_which_are_builds(void **state)
{
	char proc[] = "/tmp/fdw-proc-XXXXXX";
	pid_t pids[8];
	size_t n;

	(void)state;
	assert_non_null(mkdtemp(proc));
	/* Builds: the shell script as a shell runs it, mkinitramfs, dracut by path. */
	FAKE(proc, "101", "/bin/sh\0/usr/sbin/update-initramfs\0-u\0-k\0all\0");
	FAKE(proc, "102", "/bin/sh\0/usr/sbin/mkinitramfs\0-o\0/boot/initrd.img-6.1.0-57-amd64.new\0");
	FAKE(proc, "103", "/usr/bin/dracut\0--regenerate-all\0");
	FAKE(proc, "104", "update-initramfs\0-c\0-k\0" "6.1.0-57-amd64\0");
	/* Not builds: a name that contains one, an argument naming one, an editor of the
	 * script, a kernel thread (empty), a folder that is no pid. */
	FAKE(proc, "201", "/usr/local/bin/my-update-initramfs-wrapper\0");
	FAKE(proc, "202", "/usr/bin/vim\0/usr/sbin/update-initramfs\0");
	FAKE(proc, "203", "/bin/grep\0-r\0mkinitramfs\0/etc\0");
	FAKE(proc, "204", "");
	FAKE(proc, "self", "/bin/sh\0/usr/sbin/update-initramfs\0");
	n = fdw_initramfs_builders(proc, pids, 8);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_true(pids[i] >= 101 && pids[i] <= 104);
	/* More than fit: all counted, the first ones kept. */
	assert_int_equal(fdw_initramfs_builders(proc, pids, 1), 4);
	/* No proc folder at all: none. */
	assert_int_equal(fdw_initramfs_builders("/nonexistent-proc", pids, 8), 0);
	{
		char rm[64];

		snprintf(rm, sizeof(rm), "rm -rf '%s'", proc);
		assert_int_equal(system(rm), 0);
	}
}

/* A real process named @name (sleep @seconds under that name), once /proc shows it. */
static pid_t start_named(char *name, char *seconds)
{
	pid_t child = fork(), p;

	assert_true(child >= 0);
	if (child == 0) {
		char *argv[] = { name, seconds, NULL };

		execv("/bin/sleep", argv);
		_exit(127);
	}
	for (int i = 0; i < 200 && fdw_initramfs_builders("/proc", &p, 1) == 0; i++)
		usleep(10000);
	return child;
}

/* A real process named as update-initramfs: the wait ends once it has, not before. */
static void test_wait_lasts_as_long_as_a_build(void **state)
{
	char who[160] = "";
	pid_t child;
	int rc, status;

	(void)state;
	child = start_named("update-initramfs", "1");
	/* A waiter of its own that reaps nothing: the build ends as a zombie, no build any
	 * more. It returns the number of builds it saw (1) only once none runs. */
	if (fork() == 0) {
		rc = fdw_initramfs_builders_wait(30, who, sizeof(who));
		_exit(rc >= 1 && who[0] ? 0 : 1);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(wait(&status) > 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* None running now: no wait at all. */
	assert_int_equal(fdw_initramfs_builders_wait(30, who, sizeof(who)), 0);
	/* One that does not end within the limit: a timeout, naming it. */
	child = start_named("mkinitramfs", "5");
	who[0] = '\0';
	assert_int_equal(fdw_initramfs_builders_wait(1, who, sizeof(who)), -ETIMEDOUT);
	assert_non_null(strstr(who, "mkinitramfs"));
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_are_builds),
		cmocka_unit_test(test_wait_lasts_as_long_as_a_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
