/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Stop signals: SIGINT and SIGTERM (and SIGHUP where asked) ask a long run to stop. */
#ifndef FDW_STOPSIG_H
#define FDW_STOPSIG_H

#include <signal.h>
#include <stdbool.h>

/* What was installed before, to put back. */
struct fdw_stop_signals {
	struct sigaction old[3];	/* SIGINT, SIGTERM, SIGHUP */
};

/*
 * From now on SIGINT and SIGTERM set *@flag to the signal's number (the handler does
 * nothing else), and so does SIGHUP when @hup_stops; otherwise SIGHUP is ignored (a closed
 * terminal must not end a conversion half-way). The three are unblocked, so one that came
 * while they were blocked is delivered now. @saved (may be NULL) keeps the previous
 * handlers. A person's stop ('fdewiz pause', Ctrl-C) is SIGINT; SIGTERM is the system's
 * (a shutdown stops every process with it), which fdw_stop_by_system() tells.
 */
void fdw_stop_signals_catch(volatile sig_atomic_t *flag, bool hup_stops,
			    struct fdw_stop_signals *saved);
/*
 * Hold back SIGINT, SIGTERM and SIGHUP from the first write on: resize2fs (which inherits
 * the mask) and the header steps must not be cut in the middle. fdw_stop_signals_catch()
 * (the conversion, once it runs) takes them as "stop at the next safe point".
 */
void fdw_stop_signals_defer(void);

/* Did the stop asked in @flag come from the system (SIGTERM: a shutdown, a service
 * stopped), not from the person? */
bool fdw_stop_by_system(sig_atomic_t flag);

/* Put back the handlers @saved kept. */
void fdw_stop_signals_restore(const struct fdw_stop_signals *saved);

#endif
