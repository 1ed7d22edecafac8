/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whose partition is it: every partition an installed system's fstab, crypttab or RESUME=
 * names is attributed to that system, so that its boot is never broken from outside. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "disk.h"
#include "base/log.h"
#include "volume_id.h"

/* A partition's PARTUUID, read once and only when a spec asks for one. */
struct partuuid_cache {
	const struct fdw_partition *p;
	char id[64];
};

static const char *partuuid_of(const struct fdw_disk *d, const struct fdw_partition *p,
			       struct partuuid_cache *cache, size_t *n, size_t max)
{
	for (size_t i = 0; i < *n; i++)
		if (cache[i].p == p)
			return cache[i].id;
	if (*n >= max)
		return "";
	cache[*n].p = p;
	cache[*n].id[0] = '\0';
	if (p->number > 0 && fdw_partuuid_probe(d->path, p->number, cache[*n].id,
						 sizeof(cache[*n].id)) != 0)
		cache[*n].id[0] = '\0';
	return cache[(*n)++].id;
}

/* "/dev/sda3", "/dev/nvme0n1p3", "/dev/vda3": the partition number at its end, or 0. */
static int node_number(const char *spec)
{
	const char *end = spec + strlen(spec), *p = end;

	while (p > spec && isdigit((unsigned char)p[-1]))
		p--;
	if (p == end || end - p > 3 || strchr(spec + 5, '/'))
		return 0;
	/* "/dev/sda" names a whole disk; "/dev/md0" or "/dev/dm-1" are not partitions. */
	if (!strncmp(spec, "/dev/md", 7) || !strncmp(spec, "/dev/dm-", 8) ||
	    !strncmp(spec, "/dev/loop", 9) || !strncmp(spec, "/dev/sr", 7))
		return 0;
	return atoi(p);
}

/* TAG=value or its /dev/disk/by-TAG/value link: the value for @tag, or NULL. */
static const char *tag_value(const char *spec, const char *tag, const char *link)
{
	size_t t = strlen(tag), l = strlen(link);

	if (!strncmp(spec, tag, t))
		return spec + t;
	if (!strncmp(spec, link, l))
		return spec + l;
	return NULL;
}

struct match_ctx {
	const struct fdw_disk *root_disk;
	struct partuuid_cache cache[64];
	size_t n_cache;
};

static bool spec_matches(const char *spec, const struct fdw_disk *d,
			 const struct fdw_partition *p, struct match_ctx *m)
{
	const char *v;

	if ((v = tag_value(spec, "UUID=", "/dev/disk/by-uuid/")))
		return p->uuid && *v && !strcasecmp(v, p->uuid);
	if ((v = tag_value(spec, "LABEL=", "/dev/disk/by-label/")))
		return p->label && *v && !strcmp(v, p->label);
	if ((v = tag_value(spec, "PARTLABEL=", "/dev/disk/by-partlabel/")))
		return p->name && *v && !strcmp(v, p->name);
	if ((v = tag_value(spec, "PARTUUID=", "/dev/disk/by-partuuid/"))) {
		const char *id = partuuid_of(d, p, m->cache, &m->n_cache,
					     sizeof(m->cache) / sizeof(m->cache[0]));

		return *v && *id && !strcasecmp(v, id);
	}
	/* A device name is the installed system's: only its number on its own disk counts. */
	if (!strncmp(spec, "/dev/", 5) && !strncmp(spec, "/dev/disk/", 10))
		return false;
	return !strncmp(spec, "/dev/", 5) && d == m->root_disk && p->number > 0 &&
	       node_number(spec) == p->number;
}

static void set_owner(struct fdw_partition *p, const struct fdw_os_entry *e,
		      const struct fdw_disk *rd, const struct fdw_partition *root)
{
	struct fdw_owner *o = &p->owner;

	memset(o, 0, sizeof(*o));
	o->found = true;
	o->use = e->use;
	snprintf(o->dir, sizeof(o->dir), "%s", e->dir);
	snprintf(o->spec, sizeof(o->spec), "%s", e->spec);
	snprintf(o->os_name, sizeof(o->os_name), "%s", root->os.name);
	snprintf(o->root_address, sizeof(o->root_address), "%s", root->address);
	snprintf(o->root_disk, sizeof(o->root_disk), "%s", rd->path);
	o->root_number = root->number;
	o->root_start = root->start;
	o->root_size = root->size;
	snprintf(o->root_uuid, sizeof(o->root_uuid), "%s", root->uuid ? root->uuid : "");
	snprintf(o->root_via, sizeof(o->root_via), "%s", root->os.via);
}

/* Which use tells most when one partition is named twice (/boot and a crypttab line). */
static int use_rank(enum fdw_os_use use)
{
	static const int rank[] = { [FDW_USE_BOOT] = 5, [FDW_USE_RESUME] = 4, [FDW_USE_DATA] = 3,
				    [FDW_USE_SWAP] = 2, [FDW_USE_CRYPT] = 1 };

	return use <= FDW_USE_CRYPT ? rank[use] : 0;
}

/* Attribute to @root (on @rd) every partition of @disks its entries name. */
static void attribute_one(struct fdw_disk *disks, size_t n_disks, const struct fdw_disk *rd,
			  const struct fdw_partition *root, struct match_ctx *m)
{
	m->root_disk = rd;
	for (unsigned k = 0; k < root->os.n_entries; k++) {
		const struct fdw_os_entry *e = &root->os.entries[k];

		for (size_t i = 0; i < n_disks; i++) {
			for (size_t j = 0; j < disks[i].n_parts; j++) {
				struct fdw_partition *p = &disks[i].parts[j];

				if (p == root || p->extended ||
				    !spec_matches(e->spec, &disks[i], p, m))
					continue;
				if (p->owner.found && use_rank(p->owner.use) >= use_rank(e->use))
					continue;
				set_owner(p, e, rd, root);
				fdw_log(FDW_LOG_DEBUG, "%s: %s of the system on %s (%s)",
					p->address, e->dir[0] ? e->dir : fdw_os_use_name(e->use),
					root->address, e->spec);
			}
		}
	}
}

/*
 * Is @d the open mapping of an encrypted root that a LUKS partition of @disks reads its
 * system through? That partition is the system's root, not the mapping, which is gone
 * at the next boot.
 */
static bool read_through(const struct fdw_disk *disks, size_t n_disks, const struct fdw_disk *d)
{
	for (size_t i = 0; i < n_disks; i++)
		for (size_t j = 0; j < disks[i].n_parts; j++)
			if (disks[i].parts[j].os.via[0] && !strcmp(disks[i].parts[j].os.via, d->path))
				return true;
	return false;
}

/* The LUKS partition of @disks whose UUID @bf's boot configuration names, or NULL. */
static const struct fdw_partition *luks_named(const struct fdw_disk *disks, size_t n_disks,
					      const struct fdw_boot_files *bf)
{
	for (size_t i = 0; i < n_disks; i++)
		for (size_t j = 0; j < disks[i].n_parts; j++) {
			const struct fdw_partition *q = &disks[i].parts[j];

			if (q->luks_version && q->uuid && fdw_boot_files_names_uuid(bf, q->uuid))
				return q;
		}
	return NULL;
}

/* On @d: the LUKS partition numbered as root='s mapping ("sda3_crypt"), or the only LUKS
 * partition when root= is some mapping (encrypted LVM); NULL when neither says. */
static const struct fdw_partition *luks_beside(const struct fdw_disk *d,
					       const struct fdw_boot_files *bf)
{
	const struct fdw_partition *only = NULL;
	int number = fdw_boot_files_mapper_number(bf), n_luks = 0;

	for (size_t j = 0; j < d->n_parts; j++) {
		const struct fdw_partition *q = &d->parts[j];

		if (!q->luks_version)
			continue;
		if (number && q->number == number)
			return q;
		only = q;
		n_luks++;
	}
	return bf->root_mapper[0] && n_luks == 1 ? only : NULL;
}

/* A partition holding kernels or a boot loader with no fstab naming it: the encrypted
 * root its boot loader starts, where its configuration tells (boot_files.h). */
static void attribute_boot_files(struct fdw_disk *disks, size_t n_disks)
{
	for (size_t i = 0; i < n_disks; i++)
		for (size_t j = 0; j < disks[i].n_parts; j++) {
			struct fdw_boot_files *bf = &disks[i].parts[j].boot_files;
			const struct fdw_partition *root;

			if (!(bf->kinds & FDW_BOOTF_DECISIVE) || (bf->kinds & FDW_BOOTF_OTHER_OS))
				continue;
			root = luks_named(disks, n_disks, bf);
			if (!root)
				root = luks_beside(&disks[i], bf);
			if (!root)
				continue;
			snprintf(bf->root_address, sizeof(bf->root_address), "%s", root->address);
			bf->root_luks_version = root->luks_version;
		}
}

void fdw_disks_attribute(struct fdw_disk *disks, size_t n_disks)
{
	struct match_ctx *m = calloc(1, sizeof(*m));

	attribute_boot_files(disks, n_disks);
	if (!m)
		return;
	for (size_t i = 0; i < n_disks; i++)
		for (size_t j = 0; j < disks[i].n_parts; j++) {
			const struct fdw_partition *root = &disks[i].parts[j];

			if (root->os.found && root->os.fstab_names_it &&
			    !read_through(disks, n_disks, &disks[i]))
				attribute_one(disks, n_disks, &disks[i], root, m);
		}
	for (size_t i = 0; i < n_disks; i++)
		for (size_t j = 0; j < disks[i].n_parts; j++)
			if (disks[i].parts[j].owner.found)
				fdw_verdict_decide(&disks[i].parts[j], &disks[i]);
	free(m);
}
