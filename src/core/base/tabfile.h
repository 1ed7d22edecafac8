/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fstab and crypttab read one line at a time: the one reader of both tables. */
#ifndef FDW_TABFILE_H
#define FDW_TABFILE_H

#include <stdbool.h>
#include <stddef.h>

/* fstab has six fields, crypttab four; a seventh and later are ignored, as mount(8) does. */
#define FDW_TAB_MAX_FIELDS 6

/*
 * One line of a table (outside text, never changed): its fields point into the text and
 * are not terminated. A blank line and a comment ('#' first) have no fields; a field that
 * starts with '#' begins a trailing comment and ends the fields.
 */
struct fdw_tab_line {
	const char *text;		/* the line, without its newline */
	size_t len;
	unsigned number;		/* 1 for the first line */
	bool newline;			/* a newline follows it (the last line may have none) */
	int n;				/* fields */
	const char *at[FDW_TAB_MAX_FIELDS];
	size_t flen[FDW_TAB_MAX_FIELDS];
};

/* Where a walk through a table is: set by fdw_tab_begin(). */
struct fdw_tab_reader {
	const char *next;
	unsigned number;
};

/* Start reading @text (NULL reads as an empty table). */
void fdw_tab_begin(struct fdw_tab_reader *r, const char *text);
/* The next line, blank lines and comments included; false at the end. */
bool fdw_tab_next(struct fdw_tab_reader *r, struct fdw_tab_line *l);

/* Is field @i exactly @s (as written, escapes not decoded)? */
bool fdw_tab_field_is(const struct fdw_tab_line *l, int i, const char *s);
/*
 * Field @i into @buf with the octal escapes of fstab(5) decoded ("\040" is a blank).
 * False, with @buf "", when the line has no field @i or it does not fit in @len bytes.
 */
bool fdw_tab_field(const struct fdw_tab_line *l, int i, char *buf, size_t len);
/* Does field @i, a comma-separated list, hold @opt alone or as "@opt=..."? */
bool fdw_tab_has_option(const struct fdw_tab_line *l, int i, const char *opt);
/*
 * The value of "@opt=VALUE" in field @i (escapes decoded; the last one wins, as mount(8)
 * takes it) into @buf. False, with @buf "", when there is none or it does not fit.
 */
bool fdw_tab_option_value(const struct fdw_tab_line *l, int i, const char *opt, char *buf,
			  size_t len);

#endif
