/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the words of a finished conversion: the verdict and the summary. */
#include "unit.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/convert/results.h"
#include "core/boot/system_boot_internal.h"

static void verdict_of(const double *slowdown, const bool *suspicious, size_t n, char *buf,
		       size_t len)
{
	struct fdw_bench_delta d[8];

	memset(d, 0, sizeof(d));
	for (size_t i = 0; i < n; i++) {
		d[i].slowdown_pct = slowdown[i];
		d[i].suspicious = suspicious ? suspicious[i] : false;
	}
	fdw_results_verdict(d, n, buf, len);
}

static void test_verdict_bands(void **state)
{
	static const struct { double pct; const char *says; } bands[] = {
		{ 0.0, "almost nothing on this machine (0% slower" },
		{ 4.9, "almost nothing on this machine (5% slower" },
		{ 5.0, "a little speed (5% slower" },
		{ 19.9, "a little speed (20% slower" },
		{ 20.0, "noticeable speed on this machine (20% slower" },
		{ 49.0, "noticeable speed" },
		{ 50.0, "a lot of speed here (50% slower" },
		{ 90.0, "see the cipher recommendation" },
	};
	char buf[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bands) / sizeof(bands[0]); i++) {
		verdict_of(&bands[i].pct, NULL, 1, buf, sizeof(buf));
		if (!strstr(buf, bands[i].says))
			fail_msg("%.1f%%: '%s' lacks '%s'", bands[i].pct, buf, bands[i].says);
	}
}

/* The mean is over the trustworthy tests only; none of them: no conclusion. */
static void test_verdict_leaves_out_suspicious(void **state)
{
	const double pct[] = { 2.0, 80.0, 4.0 };
	const bool sus[] = { false, true, false };
	const bool all[] = { true, true, true };
	char buf[512];

	(void)state;
	verdict_of(pct, sus, 3, buf, sizeof(buf));
	assert_non_null(strstr(buf, "almost nothing on this machine (3% slower"));
	verdict_of(pct, all, 3, buf, sizeof(buf));
	assert_non_null(strstr(buf, "do not allow a conclusion"));
	verdict_of(pct, NULL, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "do not allow a conclusion"));
}

static void test_delta_notable(void **state)
{
	struct fdw_bench_delta d = { .slowdown_pct = FDW_RESULTS_SMALL_PCT };

	(void)state;
	assert_false(fdw_results_delta_notable(&d));
	d.slowdown_pct = FDW_RESULTS_SMALL_PCT + 0.1;
	assert_true(fdw_results_delta_notable(&d));
}

static void test_summary(void **state)
{
	struct fdw_job job;
	char head[512], note[1024];

	(void)state;
	memset(&job, 0, sizeof(job));
	snprintf(job.address, sizeof(job.address), "/dev/sdz2");
	fdw_results_summary(&job, true, true, head, sizeof(head), note, sizeof(note));
	assert_string_equal(head, "/dev/sdz2 is encrypted (LUKS2, aes-xts-plain64).");
	assert_string_equal(note, "");
	snprintf(job.cipher, sizeof(job.cipher), "serpent-xts-plain64, 512-bit key");
	fdw_results_summary(&job, true, false, head, sizeof(head), note, sizeof(note));
	assert_string_equal(head, "/dev/sdz2 is encrypted (LUKS2, serpent-xts-plain64, 512-bit "
			    "key).");
	assert_non_null(strstr(note, "Only the baseline"));
	assert_non_null(strstr(note, "no device-mapper"));
	/* Adiantum's spec has a comma of its own; a text not in the record's form stays. */
	snprintf(job.cipher, sizeof(job.cipher), "xchacha12,aes-adiantum-plain64, 256-bit key");
	fdw_results_summary(&job, true, true, head, sizeof(head), note, sizeof(note));
	assert_string_equal(head, "/dev/sdz2 is encrypted (LUKS2, xchacha12,aes-adiantum-plain64, "
			    "256-bit key).");
	snprintf(job.cipher, sizeof(job.cipher), "aes-xts-plain64, 512-bit keys and more");
	fdw_results_summary(&job, true, true, head, sizeof(head), note, sizeof(note));
	assert_string_equal(head, "/dev/sdz2 is encrypted (LUKS2, aes-xts-plain64, 512-bit keys and "
			    "more).");
	snprintf(job.cipher, sizeof(job.cipher), "serpent-xts-plain64, 512-bit key");
	snprintf(job.bench_note, sizeof(job.bench_note), "it was stopped");
	fdw_results_summary(&job, true, false, head, sizeof(head), note, sizeof(note));
	assert_string_equal(note, "Only the baseline (before encryption) was measured: it was "
			    "stopped.");
	fdw_results_summary(&job, false, false, head, sizeof(head), note, sizeof(note));
	assert_string_equal(note, "it was stopped");
	job.bench_note[0] = '\0';
	fdw_results_summary(&job, false, false, head, sizeof(head), note, sizeof(note));
	assert_string_equal(note, "No benchmark was run for this conversion.");
}

/* An installed system's root: the boot step said done (with its files) or left. */
static void test_system(void **state)
{
	char dir[] = "/tmp/fdw-results-XXXXXX", jobs[64], tpm[64], buf[2600];
	struct fdw_sysboot_record r = { .name = "vda2_crypt", .swap = true };
	struct fdw_job job = { .id = "0f1e2d3c-4b5a-6978-8a9b-acbdcedf0011",
			       .address = "/dev/vda2" };
	bool ok = true;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(jobs, sizeof(jobs), "%s/jobs", dir);
	assert_int_equal(mkdir(jobs, 0700), 0);
	setenv("FDEWIZ_STATE_DIR", dir, 1);
	/* This machine's TPM, if any, is not the test's: a folder of its own stands for it. */
	snprintf(tpm, sizeof(tpm), "%s/tpm-sys", dir);
	setenv("FDEWIZ_TEST_TPM_SYSFS", tpm, 1);
	/* A plain data partition: nothing to say. */
	assert_false(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_string_equal(buf, "");
	assert_false(ok);
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_false(ok);
	assert_non_null(strstr(buf, "not set up yet"));
	assert_non_null(strstr(buf, "Run 'fdewiz resume /dev/vda2' before starting"));
	r.done = true;
	snprintf(r.changed, sizeof(r.changed), "%s", "/etc/crypttab (/etc/crypttab.fdewiz-bak)\n"
		 "/etc/initramfs-tools/conf.d/resume (new file)\n");
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_true(ok);
	assert_string_equal(buf, "The installed system's boot is set up: it asks for the "
			    "passphrase at its next start. Files changed, each kept as a backup: "
			    "/etc/crypttab (/etc/crypttab.fdewiz-bak), "
			    "/etc/initramfs-tools/conf.d/resume (new file).");
	/* TPM unlock asked for: sealed (its keyslot and PCRs said), or not (what to do). */
	snprintf(r.tpm_pcrs, sizeof(r.tpm_pcrs), "7");
	r.tpm_slot = 2;
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "it unlocks with this computer's TPM at its next start "
				    "(keyslot 2, sealed to PCR 7)"));
	assert_non_null(strstr(buf, "the recovery key works there too"));
	r.tpm_slot = -1;
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "it asks for the passphrase at its next start"));
	assert_non_null(strstr(buf, "unlocking with the TPM was not set up (the log says why)"));
	assert_non_null(strstr(buf, "'fdewiz tpm enrol /dev/vda2' tries again"));
	/* Its initramfs turned out to lack clevis: the passphrase starts it; what to install. */
	r.tpm_unready = true;
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_true(ok);
	assert_non_null(strstr(buf, "initramfs does not carry clevis's TPM unlock (install "
				    "clevis-tpm2 and clevis-initramfs in it)"));
	/* Not asked for on a computer with a TPM 2.0: how to have it. */
	r.tpm_pcrs[0] = '\0';
	r.tpm_unready = false;
	assert_int_equal(fdw_system_boot_save(&job, &r), 0);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_null(strstr(buf, "has a TPM"));
	assert_int_equal(mkdir(tpm, 0700), 0);
	snprintf(buf, sizeof(buf), "%s/tpm0", tpm);
	assert_int_equal(mkdir(buf, 0700), 0);
	snprintf(buf, sizeof(buf), "%s/tpm0/tpm_version_major", tpm);
	f = fopen(buf, "w");
	assert_non_null(f);
	fputs("2\n", f);
	fclose(f);
	assert_true(fdw_results_system(&job, &ok, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "This computer has a TPM 2.0: 'fdewiz tpm enrol /dev/vda2', "
				    "run in that system, lets it start with nothing typed."));
	snprintf(buf, sizeof(buf), "%s/tpm0/tpm_version_major", tpm);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s/tpm0", tpm);
	rmdir(buf);
	rmdir(tpm);
	snprintf(buf, sizeof(buf), "%s/%s.system", jobs, job.id);
	unlink(buf);
	rmdir(jobs);
	rmdir(dir);
	unsetenv("FDEWIZ_STATE_DIR");
	unsetenv("FDEWIZ_TEST_TPM_SYSFS");
}

/* A row of the results has a figure: the cipher recommendation kept in a run has none. */
static void test_has_figure(void **state)
{
	static struct fdw_bench_test t;

	(void)state;
	memset(&t, 0, sizeof(t));
	snprintf(t.id, sizeof(t.id), "cipher.recommended");
	snprintf(t.title, sizeof(t.title), "recommended: aes xts-plain64, 512-bit key");
	assert_false(fdw_results_has_figure(&t));
	assert_false(fdw_results_has_figure(NULL));
	snprintf(t.metrics[0].key, sizeof(t.metrics[0].key), "mbps");
	t.n_metrics = 1;
	assert_false(fdw_results_has_figure(&t));	/* a metric without samples */
	t.metrics[0].samples[0] = 500;
	t.metrics[0].n = 1;
	fdw_bench_metric_finish(&t.metrics[0]);
	assert_true(fdw_results_has_figure(&t));
}

/* A backup that could not be refreshed: no valid one, and how to make one. */
static void test_backup_stale(void **state)
{
	static struct fdw_job job;
	char s[8192];

	(void)state;
	memset(&job, 0, sizeof(job));
	snprintf(job.address, sizeof(job.address), "/dev/vda2");
	snprintf(job.header_backup, sizeof(job.header_backup), "/var/lib/fdewiz/vda2.header");
	assert_false(fdw_results_backup_stale(&job, s, sizeof(s)));
	assert_string_equal(s, "");
	job.header_backup_stale = true;
	assert_true(fdw_results_backup_stale(&job, s, sizeof(s)));
	assert_non_null(strstr(s, "No valid header backup: /var/lib/fdewiz/vda2.header still "
			    "describes the volume before conversion"));
	assert_non_null(strstr(s, "'fdewiz header-backup /dev/vda2 FILE'"));
	/* Without a backup named there is nothing to call stale. */
	job.header_backup[0] = '\0';
	assert_false(fdw_results_backup_stale(&job, s, sizeof(s)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_bands),
		cmocka_unit_test(test_verdict_leaves_out_suspicious),
		cmocka_unit_test(test_delta_notable),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_has_figure),
		cmocka_unit_test(test_backup_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
