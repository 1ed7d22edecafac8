/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The JSON event lines of --events json, on what was standard output. */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "events.h"

static FILE *events;

int cli_events_begin(void)
{
	int fd;

	if (events)
		return 0;
	fflush(stdout);
	fd = dup(STDOUT_FILENO);
	if (fd < 0)
		return -errno;
	events = fdopen(fd, "w");
	if (!events) {
		close(fd);
		return -errno;
	}
	/* Everything printed for a person from here on is on standard error. */
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int rc = -errno;

		fclose(events);
		events = NULL;
		return rc;
	}
	return 0;
}

static void emit(json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE), events);
	fputc('\n', events);
	fflush(events);
	json_object_put(o);
}

static json_object *event_new(const char *type)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "event", json_object_new_string(type));
	return o;
}

void cli_event(const char *type, ...)
{
	json_object *o;
	const char *name;
	va_list ap;

	if (!events)
		return;
	o = event_new(type);
	va_start(ap, type);
	while ((name = va_arg(ap, const char *)) != NULL) {
		const char *value = va_arg(ap, const char *);

		json_object_object_add(o, name, json_object_new_string(value ? value : ""));
	}
	va_end(ap);
	emit(o);
}

void cli_event_progress(uint64_t done, uint64_t total, double percent, double seconds)
{
	json_object *o;

	if (!events)
		return;
	o = event_new("progress");
	json_object_object_add(o, "bytes_done", json_object_new_int64((int64_t)done));
	json_object_object_add(o, "bytes_total", json_object_new_int64((int64_t)total));
	json_object_object_add(o, "percent", json_object_new_double(percent));
	json_object_object_add(o, "seconds", json_object_new_double(seconds));
	emit(o);
}

void cli_event_launched(const char *device, long pid)
{
	json_object *o;

	if (!events)
		return;
	o = event_new("launched");
	json_object_object_add(o, "device", json_object_new_string(device));
	json_object_object_add(o, "pid", json_object_new_int64(pid));
	emit(o);
}
