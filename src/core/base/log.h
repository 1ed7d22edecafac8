/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Log sink: the engine never prints; it hands messages to whoever listens. */
#ifndef FDW_LOG_H
#define FDW_LOG_H

enum fdw_log_level { FDW_LOG_DEBUG, FDW_LOG_INFO, FDW_LOG_WARN, FDW_LOG_ERROR };

typedef void (*fdw_log_fn)(enum fdw_log_level level, const char *msg, void *ctx);

void fdw_log_set_sink(fdw_log_fn fn, void *ctx);
void fdw_log(enum fdw_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
