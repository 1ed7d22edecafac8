/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An fstab line for a filesystem fdewiz made (the /boot carved from the root). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstab_mount.h"
#include "base/i18n.h"
#include "base/tabfile.h"

/* Can @s be one fstab field as it is (no escapes needed)? */
static bool field_ok(const char *s)
{
	return s && *s && !strpbrk(s, " \t\n#\\");
}

int fdw_fstab_add_mount(const char *old, const char *spec, const char *dir, const char *type,
			const char *opts, int pass, char **out, char *why, size_t why_len)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line l;
	const char *after = NULL;	/* where the new line goes: after the root's line */
	char *text = NULL, at[256];
	size_t len = 0;
	FILE *f;

	*out = NULL;
	if (!field_ok(spec) || !field_ok(dir) || !field_ok(type) || !field_ok(opts)) {
		snprintf(why, why_len, _("an fstab field would be empty or hold a blank or a '#'"));
		return -EINVAL;
	}
	fdw_tab_begin(&r, old);
	while (fdw_tab_next(&r, &l)) {
		if (!fdw_tab_field(&l, 1, at, sizeof(at)))
			continue;
		if (!strcmp(at, "/"))
			after = l.text + l.len + (l.newline ? 1 : 0);
		if (strcmp(at, dir))
			continue;
		if (fdw_tab_field_is(&l, 0, spec))
			return 1;
		snprintf(why, why_len, _("line %u of fstab already mounts %.*s at %s; change or "
					 "remove that line by hand first"), l.number,
			 (int)l.flen[0], l.at[0], dir);
		return -EEXIST;
	}
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	old = old ? old : "";
	after = after ? after : old + strlen(old);
	fwrite(old, 1, (size_t)(after - old), f);
	if (after > old && after[-1] != '\n')
		fputc('\n', f);
	fprintf(f, "%s %s %s %s 0 %d\n", spec, dir, type, opts, pass);
	fputs(after, f);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*out = text;
	return 0;
}
