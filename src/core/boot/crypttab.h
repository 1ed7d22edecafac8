/* SPDX-License-Identifier: GPL-3.0-or-later */
/* /etc/crypttab and /etc/fstab under a chosen root: entries for an encrypted partition. */
#ifndef FDW_CRYPTTAB_H
#define FDW_CRYPTTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "disk/disk.h"

/*
 * The line logic, on strings (pure, no I/O). @old is the whole file (NULL or "" when
 * there is none). Every other line, comments and blank lines stay byte for byte.
 *
 * crypttab: make sure "NAME UUID=<luks uuid> none luks[,discard]" is there.
 * Returns 1 when an equal entry already exists (*out NULL: nothing to write), 0 with the
 * new text in *out (malloc'ed, the line appended), or -EEXIST with @why when an entry for
 * the same UUID has another name or other options, or NAME already names another
 * device; -EINVAL with @why when NAME or the UUID cannot be written in crypttab.
 */
int fdw_crypttab_edit(const char *old, const char *name, const char *luks_uuid, bool discard,
		      char **out, char *why, size_t why_len);

/*
 * The same for a volume whose header is in a file: "NAME PARTUUID=<partuuid> none
 * luks,header=HEADER[,discard]" (crypttab(5)); the volume's UUID is only in the header.
 * -EINVAL with @why when the partition has no PARTUUID or HEADER is not an absolute path
 * crypttab can carry.
 */
int fdw_crypttab_edit_detached(const char *old, const char *name, const char *partuuid,
			       const char *header, bool discard, char **out, char *why,
			       size_t why_len);
/*
 * Does crypttab text @text open the LUKS2 volume @luks_uuid (a source field UUID=<uuid> or
 * /dev/disk/by-uuid/<uuid>)? 1 with its name in @name and its line number in *@line, 0
 * when no line does.
 */
int fdw_crypttab_find_uuid(const char *text, const char *luks_uuid, char *name, size_t len,
			   unsigned *line);
/* The same for a volume whose header is the file @header (its options: header=@header). */
int fdw_crypttab_find_header(const char *text, const char *header, char *name, size_t len,
			     unsigned *line);
/* What names the partition itself (not the filesystem on it); NULL fields are unknown. */
struct fdw_part_ids {
	const char *node;		/* "/dev/sda3" */
	const char *partuuid;		/* GPT partition GUID or msdos "xxxxxxxx-NN" */
	const char *partlabel;		/* GPT partition name */
	bool resolve_links;		/* also follow /dev/... links (by-id, by-path) to
					 * node: only for the running system's own root */
	const char *spec;		/* also lines whose first field is exactly this (how
					 * another installed system names it: UUID=... too) */
};

/*
 * fstab: entries that name the partition (its node, PARTUUID=, PARTLABEL=, or their
 * /dev/disk/by-partuuid|by-partlabel links) now reach the LUKS header, not the
 * filesystem: their first field becomes /dev/mapper/NAME. UUID= and LABEL= entries name
 * the filesystem, which keeps its UUID and label inside the volume: they stay, unless
 * @ids->spec names them. Returns
 * the number of lines changed (*out set when > 0, malloc'ed), or -ENOMEM.
 */
int fdw_fstab_edit(const char *old, const char *name, const struct fdw_part_ids *ids,
		   char **out);


/* What a file-level change did. */
struct fdw_tab_result {
	bool changed;			/* the file was written */
	char backup[4096];		/* the old file kept as ...fdewiz-<time>.bak, or "" */
	int lines;			/* fstab: lines rewritten */
};

/*
 * Add the crypttab entry to @root/etc/crypttab (created when missing), keeping the old
 * file as @root/etc/crypttab.fdewiz-<time>.bak when it changes; written atomically.
 * Same returns as fdw_crypttab_edit (1: already there, nothing written).
 */
int fdw_crypttab_add(const char *root, const char *name, const char *luks_uuid, bool discard,
		     struct fdw_tab_result *res, char *why, size_t why_len);

/* fdw_crypttab_add() for a detached header: @id is the PARTUUID (see above); with
 * @header NULL it is the LUKS UUID and this is fdw_crypttab_add(). */
int fdw_crypttab_add_detached(const char *root, const char *name, const char *id,
			      const char *header, bool discard, struct fdw_tab_result *res,
			      char *why, size_t why_len);
/* fdw_fstab_edit() on @root/etc/fstab (nothing when it is missing), backed up likewise. */
/*
 * Replace @path (whose text is @old, NULL when there is none) by @text, keeping the old
 * file first as PATH.fdewiz-<time>.bak (named in @res->backup); written atomically with
 * @mode. 0, or -errno with @why.
 */
int fdw_tab_file_replace(const char *path, const char *old, mode_t mode, const char *text,
			 struct fdw_tab_result *res, char *why, size_t why_len);

int fdw_fstab_update(const char *root, const char *name, const struct fdw_part_ids *ids,
		     struct fdw_tab_result *res, char *why, size_t why_len);

/* A crypttab line that asks for a passphrase at boot (outside text, as written). */
struct fdw_crypttab_asking {
	char name[128];
	char source[128];		/* UUID=..., PARTUUID=..., /dev/... */
};

/*
 * The lines of crypttab @text that ask for a passphrase at boot: key field "none", "-" or
 * missing, and none of the options swap, tmp, plain, noauto, keyscript, header, tcrypt,
 * bitlk, initramfs. Pure. Returns how many there are; the first @max go to @out.
 */
size_t fdw_crypttab_asking(const char *text, struct fdw_crypttab_asking *out, size_t max);

/*
 * The line named @name with @keyfile (absolute, no blanks) as its key field; every other
 * byte of the file stays. 1 when it already is (*out NULL), 0 with the new text in *out
 * (malloc'ed), -ENOENT when no line has that name, -EINVAL for a bad name or path.
 */
int fdw_crypttab_edit_keyfile(const char *old, const char *name, const char *keyfile,
			      char **out);
/* @root/etc/@file read whole, never through a link (malloc'ed *@text). 0 or -errno with
 * @why. */
int fdw_etc_read(const char *root, const char *file, char **text, char *why, size_t why_len);
/* fdw_crypttab_edit_keyfile() on @root/etc/crypttab, backed up like the others. */
int fdw_crypttab_set_keyfile(const char *root, const char *name, const char *keyfile,
			     struct fdw_tab_result *res, char *why, size_t why_len);

/*
 * A device-mapper name from a label ("My Data" -> "my-data"): lower case letters,
 * digits, '-' and '_' only. Empty when nothing usable is left.
 */
void fdw_crypttab_name_from_label(const char *label, char *name, size_t len);

/*
 * The name a crypttab entry gets unless one is chosen: from the volume's label, else the
 * partition's name ("Data" -> "data"), else "luks-<UUID>" for a device node, or "data"
 * for a partition of an image file (which has no node).
 */
void fdw_crypttab_default_name(const struct fdw_partition *part, char *name, size_t len);

/* Can @name be a crypttab / device-mapper name? */
bool fdw_crypttab_name_valid(const char *name);

#endif
