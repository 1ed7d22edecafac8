/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Stop signals: one handler that only sets the caller's flag. */
#include "config.h"

#include <stddef.h>

#include "stopsig.h"

static volatile sig_atomic_t *volatile stop_flag;

static void on_stop_signal(int sig)
{
	volatile sig_atomic_t *f = stop_flag;

	if (f)
		*f = sig;
}

void fdw_stop_signals_catch(volatile sig_atomic_t *flag, bool hup_stops,
			    struct fdw_stop_signals *saved)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t set;

	stop_flag = flag;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &sa, saved ? &saved->old[0] : NULL);
	sigaction(SIGTERM, &sa, saved ? &saved->old[1] : NULL);
	sigaction(SIGHUP, hup_stops ? &sa : &ign, saved ? &saved->old[2] : NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

bool fdw_stop_by_system(sig_atomic_t flag)
{
	return flag == SIGTERM;
}

void fdw_stop_signals_defer(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

void fdw_stop_signals_restore(const struct fdw_stop_signals *saved)
{
	sigaction(SIGINT, &saved->old[0], NULL);
	sigaction(SIGTERM, &saved->old[1], NULL);
	sigaction(SIGHUP, &saved->old[2], NULL);
}
