/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Log sink: routes engine messages to the front-end's chosen destination. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static fdw_log_fn sink_fn;
static void *sink_ctx;

void fdw_log_set_sink(fdw_log_fn fn, void *ctx)
{
	sink_fn = fn;
	sink_ctx = ctx;
}

void fdw_log(enum fdw_log_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!sink_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sink_fn(level, buf, sink_ctx);
}
