/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fstab and crypttab read one line at a time: the one reader of both tables. */
#include "config.h"

#include <string.h>

#include "sysstate.h"
#include "tabfile.h"

void fdw_tab_begin(struct fdw_tab_reader *r, const char *text)
{
	r->next = text ? text : "";
	r->number = 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

bool fdw_tab_next(struct fdw_tab_reader *r, struct fdw_tab_line *l)
{
	const char *p = r->next, *nl;
	size_t i = 0;

	if (!*p)
		return false;
	nl = strchr(p, '\n');
	l->text = p;
	l->len = nl ? (size_t)(nl - p) : strlen(p);
	l->number = ++r->number;
	l->newline = nl != NULL;
	l->n = 0;
	r->next = p + l->len + (nl ? 1 : 0);
	while (i < l->len && l->n < FDW_TAB_MAX_FIELDS) {
		while (i < l->len && blank(p[i]))
			i++;
		if (i == l->len || p[i] == '#')
			break;
		l->at[l->n] = p + i;
		while (i < l->len && !blank(p[i]))
			i++;
		l->flen[l->n] = (size_t)(p + i - l->at[l->n]);
		l->n++;
	}
	return true;
}

bool fdw_tab_field_is(const struct fdw_tab_line *l, int i, const char *s)
{
	return i >= 0 && i < l->n && l->flen[i] == strlen(s) && !memcmp(l->at[i], s, l->flen[i]);
}

bool fdw_tab_field(const struct fdw_tab_line *l, int i, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (i < 0 || i >= l->n || l->flen[i] >= len)
		return false;
	memcpy(buf, l->at[i], l->flen[i]);
	buf[l->flen[i]] = '\0';
	fdw_unescape_octal(buf);
	return true;
}

bool fdw_tab_has_option(const struct fdw_tab_line *l, int i, const char *opt)
{
	size_t ol = strlen(opt), at = 0, len;
	const char *opts;

	if (i < 0 || i >= l->n)
		return false;
	opts = l->at[i];
	len = l->flen[i];
	while (at < len) {
		size_t end = at;

		while (end < len && opts[end] != ',')
			end++;
		if (end - at >= ol && !strncmp(opts + at, opt, ol) &&
		    (end - at == ol || opts[at + ol] == '='))
			return true;
		at = end + 1;
	}
	return false;
}

bool fdw_tab_option_value(const struct fdw_tab_line *l, int i, const char *opt, char *buf,
			  size_t len)
{
	char field[512];
	size_t ol = strlen(opt);
	bool found = false;

	if (len)
		buf[0] = '\0';
	if (!len || !fdw_tab_field(l, i, field, sizeof(field)))
		return false;
	for (char *save = NULL, *o = strtok_r(field, ",", &save); o;
	     o = strtok_r(NULL, ",", &save)) {
		if (strncmp(o, opt, ol) || o[ol] != '=')
			continue;
		found = strlen(o + ol + 1) < len;
		snprintf(buf, len, "%s", found ? o + ol + 1 : "");
	}
	return found;
}
