/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for the battery guard's reading of power-supply folders. */
#include "unit.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>

#include "core/base/power.h"
#include "core/base/testhook.h"

static char root[64];

static void put(const char *supply, const char *attr, const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, supply);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, supply, attr);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/fdewiz-power-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	setenv(FDW_TEST_POWER_ROOT_ENV, root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* A desktop or a VM: no supply at all, or no folder: never on battery. */
static void test_no_supply(void **state)
{
	struct fdw_power pw;

	(void)state;
	fdw_power_read(&pw);
	assert_false(pw.battery);
	assert_false(pw.on_battery);
	assert_int_equal(fdw_power_start_check(false, NULL, 0), 0);
	setenv(FDW_TEST_POWER_ROOT_ENV, "/nonexistent/power", 1);
	fdw_power_read(&pw);
	assert_false(pw.on_battery);
	setenv(FDW_TEST_POWER_ROOT_ENV, root, 1);
}

static void test_mains_and_battery(void **state)
{
	struct fdw_power pw;
	char why[512] = "";

	(void)state;
	put("AC", "type", "Mains");
	put("AC", "online", "1");
	put("BAT0", "type", "Battery");
	put("BAT0", "status", "Charging");
	put("BAT0", "capacity", "12");
	put("hid-mouse", "type", "Battery");
	put("hid-mouse", "scope", "Device");
	put("hid-mouse", "capacity", "2");
	put("hid-mouse", "status", "Discharging");
	fdw_power_read(&pw);
	assert_true(pw.battery);
	assert_false(pw.on_battery);
	assert_int_equal(pw.charge, 12);
	assert_int_equal(fdw_power_start_check(false, why, sizeof(why)), 0);

	/* The charger pulled: below 30 % nothing starts unless forced; below 15 % it pauses. */
	put("AC", "online", "0");
	put("BAT0", "status", "Discharging");
	fdw_power_read(&pw);
	assert_true(pw.on_battery);
	assert_true(fdw_power_low(&pw, FDW_BATTERY_PAUSE_PERCENT));
	assert_int_equal(fdw_power_start_check(false, why, sizeof(why)), -EAGAIN);
	assert_non_null(strstr(why, "12 %"));
	assert_int_equal(fdw_power_start_check(true, why, sizeof(why)), 0);
	put("BAT0", "capacity", "20");
	fdw_power_read(&pw);
	assert_false(fdw_power_low(&pw, FDW_BATTERY_PAUSE_PERCENT));
	assert_true(fdw_power_low(&pw, FDW_BATTERY_START_PERCENT));
	put("BAT0", "capacity", "30");
	assert_int_equal(fdw_power_start_check(false, why, sizeof(why)), 0);
}

/* No mains supply listed (some laptops): the battery's status tells; two batteries add up. */
static void test_two_batteries_by_energy(void **state)
{
	struct fdw_power pw;

	(void)state;
	put("BAT0", "type", "Battery");
	put("BAT0", "status", "Discharging");
	put("BAT0", "energy_now", "10000000");
	put("BAT0", "energy_full", "40000000");
	put("BAT1", "type", "Battery");
	put("BAT1", "status", "Unknown");
	put("BAT1", "energy_now", "0");
	put("BAT1", "energy_full", "40000000");
	fdw_power_read(&pw);
	assert_true(pw.on_battery);
	assert_int_equal(pw.charge, 12);	/* 10 of 80 Wh */
	put("BAT0", "status", "Full");
	fdw_power_read(&pw);
	assert_false(pw.on_battery);
}

/* On battery with no readable charge counts as low: nothing says it is not. */
static void test_unknown_charge(void **state)
{
	struct fdw_power pw;

	(void)state;
	put("BAT0", "type", "Battery");
	put("BAT0", "status", "Discharging");
	fdw_power_read(&pw);
	assert_true(pw.on_battery);
	assert_int_equal(pw.charge, -1);
	assert_true(fdw_power_low(&pw, FDW_BATTERY_PAUSE_PERCENT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_supply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mains_and_battery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_batteries_by_energy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_charge, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
