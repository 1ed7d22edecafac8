/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The battery guard: mains or battery, and how much charge, from /sys/class/power_supply. */
#ifndef FDW_POWER_H
#define FDW_POWER_H

#include <stdbool.h>
#include <stddef.h>

/* On battery below this charge a conversion does not start unless forced. */
#define FDW_BATTERY_START_PERCENT 30
/* On battery below this charge a running conversion pauses until the charger is back. */
#define FDW_BATTERY_PAUSE_PERCENT 15

struct fdw_power {
	bool battery;		/* the system has a battery of its own (not a mouse's) */
	bool on_battery;	/* it runs on it: no mains supply online */
	int charge;		/* percent of the system batteries together; -1 unknown */
};

/*
 * Read the power supplies under fdw_power_supply_root() (testhook.c): a "Mains" (or "USB")
 * supply online means mains power; "Battery" supplies of scope System give the charge.
 * No supply at all (a desktop, a VM): not on battery. Never fails.
 */
void fdw_power_read(struct fdw_power *pw);

/* On battery and below @percent? (An unknown charge counts as low: nothing says it is not.) */
bool fdw_power_low(const struct fdw_power *pw, int percent);

/*
 * May a conversion start now? 0; or, on battery below FDW_BATTERY_START_PERCENT and not
 * @force, -EAGAIN with @why (the charge, why it matters, what to do).
 */
int fdw_power_start_check(bool force, char *why, size_t len);

/*
 * No one chose to run on battery in this process (a service started the run): a
 * conversion here guards against a low battery even when it is low at its start, rather
 * than take that as the person's choice. fdw_power_guard_insisted() says whether it was.
 */
void fdw_power_guard_insist(void);
bool fdw_power_guard_insisted(void);

#endif
