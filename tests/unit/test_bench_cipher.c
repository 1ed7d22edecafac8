/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the cipher advice (captured /proc/cpuinfo) and the userspace AES-XTS path. */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "core/bench/bench_cipher.h"
#include "core/base/cpuinfo.h"

/* x86-64 server (AMD EPYC, the development machine), first processor block. */
static const char cpuinfo_epyc[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model\t\t: 1\n"
	"model name\t: AMD EPYC\n"
	"stepping\t: 1\n"
	"cpu MHz\t\t: 2445.402\n"
	"cache size\t: 512 KB\n"
	"fpu\t\t: yes\n"
	"cpuid level\t: 16\n"
	"wp\t\t: yes\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
	"clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc "
	"rep_good nopl xtopology nonstop_tsc cpuid extd_apicid tsc_known_freq pni pclmulqdq "
	"ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx "
	"f16c rdrand hypervisor lahf_lm cmp_legacy cr8_legacy abm sse4a misalignsse "
	"3dnowprefetch osvw topoext ssbd ibrs ibpb stibp vmmcall fsgsbase tsc_adjust bmi1 avx2 "
	"smep bmi2 erms invpcid rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 "
	"xsaves clzero xsaveerptr wbnoinvd arat umip pku ospke vaes vpclmulqdq rdpid fsrm\n"
	"bugs\t\t: sysret_ss_attrs spectre_v1 spectre_v2 spec_store_bypass srso\n"
	"bogomips\t: 4890.80\n"
	"\n";

/* Netbook: Intel Atom N450 (HP Mini 5102), no AES-NI. */
static const char cpuinfo_atom[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 28\n"
	"model name\t: Intel(R) Atom(TM) CPU N450   @ 1.66GHz\n"
	"stepping\t: 10\n"
	"cpu MHz\t\t: 1000.000\n"
	"cache size\t: 512 KB\n"
	"physical id\t: 0\n"
	"siblings\t: 2\n"
	"core id\t\t: 0\n"
	"cpu cores\t: 1\n"
	"fpu\t\t: yes\n"
	"fpu_exception\t: yes\n"
	"cpuid level\t: 10\n"
	"wp\t\t: yes\n"
	"flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat clflush "
	"dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx lm constant_tsc arch_perfmon pebs "
	"bts rep_good aperfmperf pni dtes64 monitor ds_cpl est tm2 ssse3 cx16 xtpr pdcm movbe "
	"lahf_lm\n"
	"bogomips\t: 3325.04\n"
	"clflush size\t: 64\n"
	"\n";

/* arm64 with the crypto extension: Cortex-A55 (Renesas RZ board). */
static const char cpuinfo_a55[] =
	"processor\t: 0\n"
	"BogoMIPS\t: 48.00\n"
	"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
	"asimdrdm lrcpc dcpop asimddp\n"
	"CPU implementer\t: 0x41\n"
	"CPU architecture: 8\n"
	"CPU variant\t: 0x2\n"
	"CPU part\t: 0xd05\n"
	"CPU revision\t: 0\n"
	"\n";

/* arm64 without it: Raspberry Pi 4 (Cortex-A72, BCM2711). */
static const char cpuinfo_pi4[] =
	"processor\t: 0\n"
	"BogoMIPS\t: 108.00\n"
	"Features\t: fp asimd evtstrm crc32 cpuid\n"
	"CPU implementer\t: 0x41\n"
	"CPU architecture: 8\n"
	"CPU variant\t: 0x0\n"
	"CPU part\t: 0xd08\n"
	"CPU revision\t: 3\n"
	"\n"
	"Hardware\t: BCM2835\n"
	"Model\t\t: Raspberry Pi 4 Model B Rev 1.1\n";

/*
 * Private statistics, so that the real ones (and the state-directory code they link in, and
 * libparted with it) stay out of this test: valgrind flags libparted's own start-up code.
 */
void fdw_bench_metric_finish(struct fdw_bench_metric *m)
{
	double v[FDW_BENCH_MAX_REPEATS];
	size_t i, j, n = m->n < FDW_BENCH_MAX_REPEATS ? m->n : FDW_BENCH_MAX_REPEATS;

	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && v[j - 1] > m->samples[i]; j--)
			v[j] = v[j - 1];
		v[j] = m->samples[i];
	}
	m->min = n ? v[0] : 0;
	m->max = n ? v[n - 1] : 0;
	m->median = !n ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	m->spread_pct = m->median > 0 ? (m->max - m->min) / m->median * 100.0 : 0;
}

void fdw_bench_test_finish(struct fdw_bench_test *t)
{
	size_t i;

	for (i = 0; i < t->n_metrics; i++)
		fdw_bench_metric_finish(&t->metrics[i]);
}

static void test_flags(void **state)
{
	(void)state;
	assert_true(fdw_cpuinfo_text_has_aes(cpuinfo_epyc));
	assert_false(fdw_cpuinfo_text_has_aes(cpuinfo_atom));
	assert_true(fdw_cpuinfo_text_has_aes(cpuinfo_a55));
	assert_false(fdw_cpuinfo_text_has_aes(cpuinfo_pi4));
	/* Whole words only: "vaes" or "aes-ni" are not "aes". */
	assert_false(fdw_cpuinfo_text_has_aes("flags\t\t: sse2 vaes avx\n"));
	assert_false(fdw_cpuinfo_text_has_aes("flags\t\t: aes-ni\n"));
	assert_true(fdw_cpuinfo_text_has_aes("flags\t\t: aes"));
	assert_true(fdw_cpuinfo_has_flag(cpuinfo_epyc, "fsrm"));	/* last word of the line */
	assert_true(fdw_cpuinfo_has_flag(cpuinfo_epyc, "fpu"));	/* first word */
	assert_true(fdw_cpuinfo_has_flag(cpuinfo_a55, "pmull"));
	/* Other lines do not count: "aes" only in the model name or a later field. */
	assert_false(fdw_cpuinfo_text_has_aes("model name\t: aes\nflags\t\t: sse\n"));
	assert_false(fdw_cpuinfo_text_has_aes("flagsx\t: aes\n"));
	assert_false(fdw_cpuinfo_text_has_aes(""));
	assert_false(fdw_cpuinfo_text_has_aes(NULL));
}

static void check_advice(const char *text, bool aes)
{
	struct fdw_cipher_advice a;

	memset(&a, 0xa5, sizeof(a));
	fdw_cipher_recommend_text(text, &a);
	assert_int_equal(a.cpu_has_aes, aes);
	if (aes) {
		assert_string_equal(a.cipher, "aes");
		assert_string_equal(a.mode, "xts-plain64");
		assert_int_equal(a.key_bits, 512);
		assert_non_null(strstr(a.why, "has AES instructions"));
	} else {
		assert_string_equal(a.cipher, "xchacha12,aes");
		assert_string_equal(a.mode, "adiantum-plain64");
		assert_int_equal(a.key_bits, 256);
		assert_non_null(strstr(a.why, "no AES instructions"));
		assert_non_null(strstr(a.why, "Adiantum"));
	}
	assert_true(strlen(a.why) < sizeof(a.why) - 1);
	assert_int_equal(a.why[strlen(a.why) - 1], '.');
}

static void test_advice(void **state)
{
	struct fdw_cipher_advice a;

	(void)state;
	check_advice(cpuinfo_epyc, true);
	check_advice(cpuinfo_atom, false);
	check_advice(cpuinfo_a55, true);
	check_advice(cpuinfo_pi4, false);
	/* Unknown CPU: the standard choice, and a sentence that says it was not checked. */
	fdw_cipher_recommend_text(NULL, &a);
	assert_string_equal(a.cipher, "aes");
	assert_false(a.cpu_has_aes);
	assert_non_null(strstr(a.why, "could not be read"));
}

static struct fdw_bench_test *add_test(struct fdw_bench_run *r, const char *id, double enc,
				       const char *note)
{
	struct fdw_bench_test *t = &r->tests[r->n_tests++];

	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->note, sizeof(t->note), "%s", note);
	t->n_metrics = 1;
	snprintf(t->metrics[0].key, sizeof(t->metrics[0].key), "enc_mibps");
	t->metrics[0].n = 1;
	t->metrics[0].samples[0] = t->metrics[0].median = enc;
	return t;
}

static void test_measured(void **state)
{
	static struct fdw_bench_run r;
	struct fdw_cipher_advice flags, a;

	(void)state;
	fdw_cipher_recommend(&flags);
	/* No figures: the advice from the flags, and 0. */
	memset(&r, 0, sizeof(r));
	assert_int_equal(fdw_cipher_recommend_measured(&r, &a), 0);
	assert_string_equal(a.cipher, flags.cipher);
	/* Userspace figures are not the kernel's: ignored. */
	add_test(&r, "cipher.aes-xts-512", 100,
		 "userspace OpenSSL, not the kernel's dm-crypt path.");
	add_test(&r, "cipher.adiantum", 900, "kernel crypto API.");
	assert_int_equal(fdw_cipher_recommend_measured(&r, &a), 0);
	assert_string_equal(a.cipher, flags.cipher);
	/* Kernel figures: Adiantum four times faster wins, whatever the flags say. */
	memset(&r, 0, sizeof(r));
	add_test(&r, "cipher.aes-xts-512", 100, "kernel crypto API.");
	add_test(&r, "cipher.adiantum", 400, "kernel crypto API.");
	assert_int_equal(fdw_cipher_recommend_measured(&r, &a), 1);
	assert_string_equal(a.cipher, "xchacha12,aes");
	assert_string_equal(a.mode, "adiantum-plain64");
	assert_non_null(strstr(a.why, "Measured"));
	assert_int_equal(a.cpu_has_aes, flags.cpu_has_aes);
	/* AES-XTS clearly faster. */
	r.tests[0].metrics[0].median = 2000;
	assert_int_equal(fdw_cipher_recommend_measured(&r, &a), 1);
	assert_string_equal(a.cipher, "aes");
	assert_int_equal(a.key_bits, 512);
	assert_non_null(strstr(a.why, "Measured"));
	/* Close figures: the flags decide. */
	r.tests[0].metrics[0].median = 450;
	assert_int_equal(fdw_cipher_recommend_measured(&r, &a), 1);
	assert_string_equal(a.cipher, flags.cipher);
	assert_string_equal(a.why, flags.why);
}

/* IEEE P1619 XTS-AES-128 vector 4: data unit 0, plaintext 00 01 .. ff 00 01 .. ff. */
static const unsigned char xts_key[32] = {
	0x27, 0x18, 0x28, 0x18, 0x28, 0x45, 0x90, 0x45, 0x23, 0x53, 0x60, 0x28, 0x74, 0x71,
	0x35, 0x26, 0x31, 0x41, 0x59, 0x26, 0x53, 0x58, 0x97, 0x93, 0x23, 0x84, 0x62, 0x64,
	0x33, 0x83, 0x27, 0x95,
};

static const unsigned char xts_ct_head[32] = {
	0x27, 0xa7, 0x47, 0x9b, 0xef, 0xa1, 0xd4, 0x76, 0x48, 0x9f, 0x30, 0x8c, 0xd4, 0xcf,
	0xa6, 0xe2, 0xa9, 0x6e, 0x4b, 0xbe, 0x32, 0x08, 0xff, 0x25, 0x28, 0x7d, 0xd3, 0x81,
	0x96, 0x16, 0xe8, 0x9c,
};

static void test_xts(void **state)
{
	unsigned char pt[1024], ct[1024], back[1024], one[512], key64[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pt); i++)
		pt[i] = (unsigned char)i;
	assert_int_equal(fdw_cipher_xts_userspace(xts_key, 32, 0, 512, pt, ct, 512, true), 0);
	assert_memory_equal(ct, xts_ct_head, sizeof(xts_ct_head));
	assert_int_equal(fdw_cipher_xts_userspace(xts_key, 32, 0, 512, ct, back, 512, false), 0);
	assert_memory_equal(back, pt, 512);
	/* plain64: the second sector of a two-sector call is sector 1 on its own. */
	assert_int_equal(fdw_cipher_xts_userspace(xts_key, 32, 0, 512, pt, ct, 1024, true), 0);
	assert_memory_equal(ct, xts_ct_head, sizeof(xts_ct_head));
	assert_int_equal(fdw_cipher_xts_userspace(xts_key, 32, 1, 512, pt + 512, one, 512, true),
			 0);
	assert_memory_equal(ct + 512, one, 512);
	assert_memory_not_equal(ct, ct + 512, 512);
	/* AES-256 (512-bit key) round trip with 4096-byte sectors. */
	for (i = 0; i < sizeof(key64); i++)
		key64[i] = (unsigned char)(i * 7 + 1);
	assert_int_equal(fdw_cipher_xts_userspace(key64, 64, 7, 1024, pt, ct, 1024, true), 0);
	assert_memory_not_equal(ct, pt, 1024);
	assert_int_equal(fdw_cipher_xts_userspace(key64, 64, 7, 1024, ct, back, 1024, false), 0);
	assert_memory_equal(back, pt, 1024);
	/* Bad input is refused, not guessed at. */
	assert_int_equal(fdw_cipher_xts_userspace(key64, 48, 0, 512, pt, ct, 512, true), -EINVAL);
	assert_int_equal(fdw_cipher_xts_userspace(key64, 64, 0, 512, pt, ct, 500, true), -EINVAL);
	assert_int_equal(fdw_cipher_xts_userspace(key64, 64, 0, 8, pt, ct, 512, true), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_measured),
		cmocka_unit_test(test_xts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
