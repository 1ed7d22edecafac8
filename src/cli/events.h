/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `--events json`: what a run does, for a program that drives fdewiz on many machines:
 * one JSON object a line on standard output, each with "event" (planned, started,
 * progress, said, launched, prepared, restart-needed, done, failed) and its fields; the
 * words meant for a person go to standard error instead. Never a key or a passphrase.
 */
#ifndef FDW_CLI_EVENTS_H
#define FDW_CLI_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

/* From here on events go to standard output, and what was printed there to standard
 * error. 0, or -errno (events stay off). */
int cli_events_begin(void);
/*
 * One event: @type, then pairs of a field's name and its text, ending with NULL ("device",
 * "/dev/sda2", NULL). Nothing when events are off.
 */
void cli_event(const char *type, ...) __attribute__((sentinel));
/* A progress event: bytes done of total, percent, seconds since the conversion began. */
void cli_event_progress(uint64_t done, uint64_t total, double percent, double seconds);
/* "launched" with the worker's pid. */
void cli_event_launched(const char *device, long pid);

#endif
