/* SPDX-License-Identifier: GPL-3.0-or-later */
/* crypttab and fstab entries for an encrypted partition, edited line by line and kept durable. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crypttab.h"
#include "base/durable.h"
#include "base/fileio.h"
#include "base/i18n.h"
#include "base/log.h"
#include "base/tabfile.h"
#include "base/uuid.h"

#define DM_NAME_MAX 127

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
	int err;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->s, cap);

		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Does field @i equal @prefix followed by @value (the value compared without case)? */
static bool field_names(const struct fdw_tab_line *f, int i, const char *prefix,
			const char *value, bool nocase)
{
	size_t pl = strlen(prefix), vl;
	const char *v;

	if (!value || !*value || i >= f->n || f->flen[i] <= pl || strncmp(f->at[i], prefix, pl))
		return false;
	v = f->at[i] + pl;
	vl = f->flen[i] - pl;
	/* PARTUUID="..." is allowed by mount(8). */
	if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
		v++;
		vl -= 2;
	}
	if (vl != strlen(value))
		return false;
	return nocase ? !strncasecmp(v, value, vl) : !strncmp(v, value, vl);
}

/*
 * Is the comma-separated list @opts (length @len) the set {luks} or {luks, discard}, plus
 * header=@header when @header is not NULL?
 */
static bool options_match(const char *opts, size_t len, bool discard, const char *header)
{
	bool luks = false, disc = false, hdr = !header;
	size_t hl = header ? strlen(header) : 0;
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && opts[j] != ',')
			j++;
		if (j - i == 4 && !strncmp(opts + i, "luks", 4))
			luks = true;
		else if (j - i == 7 && !strncmp(opts + i, "discard", 7))
			disc = true;
		else if (header && j - i == 7 + hl && !strncmp(opts + i, "header=", 7) &&
			 !strncmp(opts + i + 7, header, hl))
			hdr = true;
		else if (j > i)
			return false;
		i = j + 1;
	}
	return luks && hdr && disc == discard;
}

int fdw_crypttab_find_uuid(const char *text, const char *luks_uuid, char *name, size_t len,
			   unsigned *line)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line f;

	fdw_tab_begin(&r, text);
	while (fdw_tab_next(&r, &f)) {
		if (f.n < 2 || (!field_names(&f, 1, "UUID=", luks_uuid, true) &&
				!field_names(&f, 1, "/dev/disk/by-uuid/", luks_uuid, true)))
			continue;
		fdw_tab_field(&f, 0, name, len);
		*line = f.number;
		return 1;
	}
	return 0;
}

int fdw_crypttab_find_header(const char *text, const char *header, char *name, size_t len,
			     unsigned *line)
{
	struct fdw_tab_reader r;
	struct fdw_tab_line f;
	char value[PATH_MAX];

	fdw_tab_begin(&r, text);
	while (fdw_tab_next(&r, &f)) {
		if (f.n < 4 || !fdw_tab_option_value(&f, 3, "header", value, sizeof(value)) ||
		    strcmp(value, header))
			continue;
		fdw_tab_field(&f, 0, name, len);
		*line = f.number;
		return 1;
	}
	return 0;
}

bool fdw_crypttab_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > DM_NAME_MAX || name[0] == '-' || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("-_.+", name[i]))
			return false;
	return true;
}

void fdw_crypttab_name_from_label(const char *label, char *name, size_t len)
{
	size_t o = 0;
	bool dash = false;

	if (!len)
		return;
	for (const char *p = label ? label : ""; *p && o + 1 < len && o < DM_NAME_MAX; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) && c < 128) {
			if (dash && o)
				name[o++] = '-';
			dash = false;
			if (o + 1 < len)
				name[o++] = (char)tolower(c);
		} else if (c == '_' && o) {
			name[o++] = '_';
			dash = false;
		} else {
			dash = true;
		}
	}
	name[o] = '\0';
}

void fdw_crypttab_default_name(const struct fdw_partition *part, char *name, size_t len)
{
	fdw_crypttab_name_from_label(part->label, name, len);
	if (!*name)
		fdw_crypttab_name_from_label(part->name, name, len);
	if (*name && fdw_crypttab_name_valid(name))
		return;
	if (part->node && part->uuid)
		snprintf(name, len, "luks-%s", part->uuid);
	else
		snprintf(name, len, "data");
}

/* A header path crypttab can carry: absolute, no blanks, no commas (the option separator). */
static bool header_path_valid(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *c = path; *c; c++)
		if (isspace((unsigned char)*c) || *c == ',' || *c == '#')
			return false;
	return true;
}

/*
 * The entry "NAME PREFIX+VALUE none luks[,header=HEADER][,discard]": a line that names
 * the same source with these options is already it (1); other settings for the same
 * source, or NAME for another device, are -EEXIST.
 */
static int edit_entry(const char *old, const char *name, const char *prefix, const char *link,
		      const char *value, const char *header, bool discard, char **out,
		      char *why, size_t why_len)
{
	struct buf b = { 0 };
	struct fdw_tab_reader r;
	struct fdw_tab_line f;

	*out = NULL;
	fdw_tab_begin(&r, old);
	while (fdw_tab_next(&r, &f)) {
		bool same = field_names(&f, 1, prefix, value, true) ||
			    field_names(&f, 1, link, value, true);

		if (same && !fdw_tab_field_is(&f, 0, name)) {
			snprintf(why, why_len, _("line %d of crypttab already opens this volume, as "
						 "'%.*s'; use --name %.*s, or change that line by "
						 "hand"), (int)f.number, (int)f.flen[0], f.at[0],
				 (int)f.flen[0], f.at[0]);
			return -EEXIST;
		}
		if (same) {
			if ((f.n == 4 || (f.n == 3 && !header)) && fdw_tab_field_is(&f, 2, "none") &&
			    options_match(f.n == 4 ? f.at[3] : "", f.n == 4 ? f.flen[3] : 0,
					  discard, header))
				return 1;
			snprintf(why, why_len, _("line %d of crypttab already has an entry for this "
						 "volume with other settings ('%.*s'); change or "
						 "remove that line by hand to change them"),
				 (int)f.number, (int)f.len, f.text);
			return -EEXIST;
		}
		if (f.n && fdw_tab_field_is(&f, 0, name)) {
			snprintf(why, why_len, _("line %d of crypttab already uses the name '%s' for "
						 "another device (%.*s); choose another --name"),
				 (int)f.number, name, f.n > 1 ? (int)f.flen[1] : 0,
				 f.n > 1 ? f.at[1] : "");
			return -EEXIST;
		}
	}
	buf_add(&b, old ? old : "", old ? strlen(old) : 0);
	if (b.len && b.s[b.len - 1] != '\n')
		buf_add(&b, "\n", 1);
	buf_add(&b, name, strlen(name));
	buf_add(&b, " ", 1);
	buf_add(&b, prefix, strlen(prefix));
	buf_add(&b, value, strlen(value));
	buf_add(&b, " none luks", 10);
	if (header) {
		buf_add(&b, ",header=", 8);
		buf_add(&b, header, strlen(header));
	}
	if (discard)
		buf_add(&b, ",discard", 8);
	buf_add(&b, "\n", 1);
	if (b.err) {
		free(b.s);
		snprintf(why, why_len, _("out of memory"));
		return b.err;
	}
	*out = b.s;
	return 0;
}

int fdw_crypttab_edit(const char *old, const char *name, const char *luks_uuid, bool discard,
		      char **out, char *why, size_t why_len)
{
	*out = NULL;
	if (!fdw_crypttab_name_valid(name)) {
		snprintf(why, why_len, _("'%s' cannot be a volume name: use letters, digits, "
					 "'-', '_' and '.' (at most 127)"), name);
		return -EINVAL;
	}
	if (!fdw_uuid_valid(luks_uuid)) {
		snprintf(why, why_len, _("'%s' is not a LUKS UUID"), luks_uuid);
		return -EINVAL;
	}
	return edit_entry(old, name, "UUID=", "/dev/disk/by-uuid/", luks_uuid, NULL, discard,
			  out, why, why_len);
}

int fdw_crypttab_edit_detached(const char *old, const char *name, const char *partuuid,
			       const char *header, bool discard, char **out, char *why,
			       size_t why_len)
{
	*out = NULL;
	if (!fdw_crypttab_name_valid(name)) {
		snprintf(why, why_len, _("'%s' cannot be a volume name: use letters, digits, "
					 "'-', '_' and '.' (at most 127)"), name);
		return -EINVAL;
	}
	if (!partuuid[0] || strpbrk(partuuid, " \t,#=")) {
		snprintf(why, why_len, _("the partition has no PARTUUID, so crypttab cannot name "
					 "it (the volume's own UUID is in its detached header)"));
		return -EINVAL;
	}
	if (!header_path_valid(header)) {
		snprintf(why, why_len, _("the header path %s cannot be written in crypttab: it "
					 "must be absolute, without spaces, commas or '#'; move "
					 "the header file"), header);
		return -EINVAL;
	}
	return edit_entry(old, name, "PARTUUID=", "/dev/disk/by-partuuid/", partuuid, header,
			  discard, out, why, why_len);
}

/* Is the first field a /dev link (by-id, by-path...) that leads to the partition's node? */
static bool link_to_node(const struct fdw_tab_line *f, const struct fdw_part_ids *ids)
{
	char spec[PATH_MAX], real[PATH_MAX], node[PATH_MAX];

	if (!ids->resolve_links || !ids->node || !f->n || f->flen[0] >= sizeof(spec) ||
	    strncmp(f->at[0], "/dev/", 5))
		return false;
	memcpy(spec, f->at[0], f->flen[0]);
	spec[f->flen[0]] = '\0';
	return realpath(spec, real) && realpath(ids->node, node) && !strcmp(real, node);
}

int fdw_fstab_edit(const char *old, const char *name, const struct fdw_part_ids *ids,
		   char **out)
{
	struct buf b = { 0 };
	struct fdw_tab_reader r;
	struct fdw_tab_line f;
	int changed = 0;

	*out = NULL;
	fdw_tab_begin(&r, old);
	while (fdw_tab_next(&r, &f)) {
		if (f.n && (field_names(&f, 0, "", ids->node, false) ||
			    field_names(&f, 0, "", ids->spec, false) ||
			    field_names(&f, 0, "PARTUUID=", ids->partuuid, true) ||
			    field_names(&f, 0, "/dev/disk/by-partuuid/", ids->partuuid, true) ||
			    field_names(&f, 0, "PARTLABEL=", ids->partlabel, false) ||
			    field_names(&f, 0, "/dev/disk/by-partlabel/", ids->partlabel, false) ||
			    link_to_node(&f, ids))) {
			/* Only the first field changes; spacing and the rest stay as they were. */
			buf_add(&b, f.text, (size_t)(f.at[0] - f.text));
			buf_add(&b, "/dev/mapper/", 12);
			buf_add(&b, name, strlen(name));
			buf_add(&b, f.at[0] + f.flen[0],
				(size_t)(f.text + f.len - f.at[0] - f.flen[0]));
			changed++;
		} else {
			buf_add(&b, f.text, f.len);
		}
		if (f.newline)
			buf_add(&b, "\n", 1);
	}
	if (b.err || !changed) {
		free(b.s);
		return b.err ? b.err : 0;
	}
	*out = b.s;
	return changed;
}

size_t fdw_crypttab_asking(const char *text, struct fdw_crypttab_asking *out, size_t max)
{
	static const char *const not_asking[] = { "swap", "tmp", "plain", "noauto", "keyscript",
						  "header", "tcrypt", "bitlk", "initramfs" };
	struct fdw_tab_reader r;
	struct fdw_tab_line f;
	size_t n = 0;

	fdw_tab_begin(&r, text);
	while (fdw_tab_next(&r, &f)) {
		bool asks = f.n >= 2 && (f.n == 2 || fdw_tab_field_is(&f, 2, "none") ||
					 fdw_tab_field_is(&f, 2, "-"));

		for (size_t i = 0; asks && i < sizeof(not_asking) / sizeof(*not_asking); i++)
			asks = !fdw_tab_has_option(&f, 3, not_asking[i]);
		if (asks && f.flen[0] < sizeof(out->name) && f.flen[1] < sizeof(out->source)) {
			if (n < max) {
				snprintf(out[n].name, sizeof(out[n].name), "%.*s", (int)f.flen[0],
					 f.at[0]);
				snprintf(out[n].source, sizeof(out[n].source), "%.*s",
					 (int)f.flen[1], f.at[1]);
			}
			n++;
		}
	}
	return n;
}

/* A key file path crypttab can carry: absolute, no blanks, no '#'. */
static bool keyfile_path_valid(const char *path)
{
	if (path[0] != '/')
		return false;
	for (const char *c = path; *c; c++)
		if (isspace((unsigned char)*c) || *c == '#')
			return false;
	return true;
}

int fdw_crypttab_edit_keyfile(const char *old, const char *name, const char *keyfile,
			      char **out)
{
	struct buf b = { 0 };
	struct fdw_tab_reader r;
	struct fdw_tab_line f;
	int found = 0;

	*out = NULL;
	if (!fdw_crypttab_name_valid(name) || !keyfile_path_valid(keyfile))
		return -EINVAL;
	fdw_tab_begin(&r, old);
	while (fdw_tab_next(&r, &f)) {
		if (f.n >= 2 && fdw_tab_field_is(&f, 0, name) && !found++) {
			if (fdw_tab_field_is(&f, 2, keyfile)) {
				free(b.s);
				return 1;
			}
			/* Name and source as they were, the key file, then the options. */
			buf_add(&b, f.text, (size_t)(f.at[1] + f.flen[1] - f.text));
			buf_add(&b, " ", 1);
			buf_add(&b, keyfile, strlen(keyfile));
			if (f.n >= 4) {
				buf_add(&b, " ", 1);
				buf_add(&b, f.at[3], (size_t)(f.text + f.len - f.at[3]));
			}
		} else {
			buf_add(&b, f.text, f.len);
		}
		if (f.newline)
			buf_add(&b, "\n", 1);
	}
	if (b.err || !found) {
		free(b.s);
		return b.err ? b.err : -ENOENT;
	}
	*out = b.s;
	return 0;
}

/* The largest table read: far more than any system's, far less than a memory's worth. */
#define TAB_MAX (16u << 20)

/* Read all of @path; -ENOENT when missing. A link under a target root would lead to this
 * machine's own files: not followed. Not a text file: left to a person (-EILSEQ). */
static int read_all(const char *path, char **text, mode_t *mode)
{
	return fdw_read_file(path, TAB_MAX, FDW_READ_NOFOLLOW | FDW_READ_TEXT, text, NULL, mode);
}

static int etc_path(const char *root, const char *file, char *path, size_t len)
{
	size_t rl = strlen(root);

	if (snprintf(path, len, "%s%setc/%s", root, rl && root[rl - 1] == '/' ? "" : "/",
		     file) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Keep @text (the old contents of @path) as @path.fdewiz-<time>.bak. */
static int keep_backup(const char *path, const char *text, mode_t mode, char *backup,
		       size_t len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 1; i < 100; i++) {
		int n = i == 1 ? snprintf(backup, len, "%s.fdewiz-%s.bak", path, stamp) :
			snprintf(backup, len, "%s.fdewiz-%s-%d.bak", path, stamp, i);

		if (n >= (int)len)
			return -ENAMETOOLONG;
		if (access(backup, F_OK) != 0 && errno == ENOENT)
			return fdw_write_file_atomic(backup, text, strlen(text), mode);
	}
	return -EEXIST;
}

/* Replace @path by @text, keeping the old file (if any) as a backup first. */
int fdw_tab_file_replace(const char *path, const char *old, mode_t mode, const char *text,
			struct fdw_tab_result *res, char *why, size_t why_len)
{
	int rc = 0;

	if (old) {
		rc = keep_backup(path, old, mode, res->backup, sizeof(res->backup));
		if (rc) {
			snprintf(why, why_len, _("could not keep a backup of %s: %s"), path,
				 strerror(-rc));
			res->backup[0] = '\0';
			return rc;
		}
	}
	rc = fdw_write_file_atomic(path, text, strlen(text), mode);
	if (rc) {
		snprintf(why, why_len, _("could not write %s: %s"), path, strerror(-rc));
		return rc;
	}
	res->changed = true;
	fdw_log(FDW_LOG_INFO, "wrote %s%s%s", path, res->backup[0] ? ", old one kept as " : "",
		res->backup);
	return 0;
}

static int check_etc(const char *root, char *why, size_t why_len)
{
	char etc[PATH_MAX];
	struct stat st;

	size_t rl = strlen(root);

	/* No trailing slash: lstat must see a link at etc itself. */
	if (snprintf(etc, sizeof(etc), "%s%setc", root, rl && root[rl - 1] == '/' ? "" : "/") >=
	    (int)sizeof(etc) || lstat(etc, &st) != 0) {
		snprintf(why, why_len, _("%s has no etc directory: it is not the root of a "
					 "system"), root);
		return -ENOTDIR;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, why_len, _("%s is a symbolic link; links inside a target root are "
					 "not followed (they could lead to this machine's own "
					 "files). Nothing was changed"), etc);
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, _("%s is not a directory: %s is not the root of a "
					 "system"), etc, root);
		return -ENOTDIR;
	}
	return 0;
}

/* Why @path could not be read, @rc from read_all(). */
static void read_error(const char *path, int rc, char *why, size_t why_len)
{
	if (rc == -ELOOP)
		snprintf(why, why_len, _("%s is a symbolic link; links inside a target root are "
					 "not followed (they could lead to this machine's own "
					 "files). Nothing was changed; edit it by hand"), path);
	else
		snprintf(why, why_len, _("cannot read %s: %s"), path, strerror(-rc));
}

/*
 * @root/etc/@file read whole, without following a link (into *@old, its mode in *@mode),
 * and its path. -ENOENT when it is missing (said in @why only when @need); other errors
 * are said in @why.
 */
static int read_etc(const char *root, const char *file, bool need, char *path, size_t len,
		    char **old, mode_t *mode, char *why, size_t why_len)
{
	int rc = check_etc(root, why, why_len);

	*old = NULL;
	if (!rc)
		rc = etc_path(root, file, path, len);
	if (rc)
		return rc;
	rc = read_all(path, old, mode);
	if (rc && (need || rc != -ENOENT))
		read_error(path, rc, why, why_len);
	return rc;
}

int fdw_etc_read(const char *root, const char *file, char **text, char *why, size_t why_len)
{
	char path[PATH_MAX];
	mode_t mode;

	return read_etc(root, file, true, path, sizeof(path), text, &mode, why, why_len);
}

int fdw_crypttab_add(const char *root, const char *name, const char *luks_uuid, bool discard,
		     struct fdw_tab_result *res, char *why, size_t why_len)
{
	return fdw_crypttab_add_detached(root, name, luks_uuid, NULL, discard, res, why,
					 why_len);
}

int fdw_crypttab_add_detached(const char *root, const char *name, const char *id,
			      const char *header, bool discard, struct fdw_tab_result *res,
			      char *why, size_t why_len)
{
	char path[PATH_MAX], *old = NULL, *text = NULL;
	mode_t mode = 0644;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = read_etc(root, "crypttab", false, path, sizeof(path), &old, &mode, why, why_len);
	if (rc && rc != -ENOENT)
		return rc;
	rc = header ? fdw_crypttab_edit_detached(old, name, id, header, discard, &text, why,
						 why_len)
		    : fdw_crypttab_edit(old, name, id, discard, &text, why, why_len);
	if (rc == 0)
		rc = fdw_tab_file_replace(path, old, mode, text, res, why, why_len);
	free(old);
	free(text);
	return rc;
}

int fdw_fstab_update(const char *root, const char *name, const struct fdw_part_ids *ids,
		     struct fdw_tab_result *res, char *why, size_t why_len)
{
	char path[PATH_MAX], *old = NULL, *text = NULL;
	mode_t mode = 0644;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = read_etc(root, "fstab", false, path, sizeof(path), &old, &mode, why, why_len);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	rc = fdw_fstab_edit(old, name, ids, &text);
	if (rc > 0) {
		res->lines = rc;
		rc = fdw_tab_file_replace(path, old, mode, text, res, why, why_len);
	} else if (rc < 0) {
		snprintf(why, why_len, _("out of memory"));
	}
	free(old);
	free(text);
	return rc;
}

int fdw_crypttab_set_keyfile(const char *root, const char *name, const char *keyfile,
			     struct fdw_tab_result *res, char *why, size_t why_len)
{
	char path[PATH_MAX], *old = NULL, *text = NULL;
	mode_t mode = 0644;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = read_etc(root, "crypttab", true, path, sizeof(path), &old, &mode, why, why_len);
	if (rc)
		return rc;
	rc = fdw_crypttab_edit_keyfile(old, name, keyfile, &text);
	if (rc == 0)
		rc = fdw_tab_file_replace(path, old, mode, text, res, why, why_len);
	else if (rc < 0)
		snprintf(why, why_len, _("crypttab has no line for '%s' (%s)"), name,
			 strerror(-rc));
	free(old);
	free(text);
	return rc;
}
