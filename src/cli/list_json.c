/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz list --json`: the scan as JSON, in the shape data/fdewiz-list.schema.json documents. */
#include "config.h"

#include <json-c/json.h>

#include "cli.h"

#define LIST_JSON_VERSION 1

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *int_or_null(int64_t v)
{
	return v >= 0 ? json_object_new_int64(v) : NULL;
}

static struct json_object *strv(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *flags_json(const struct fdw_partition *p)
{
	struct json_object *a = json_object_new_array();

	if (p->flag_esp)
		json_object_array_add(a, json_object_new_string("esp"));
	if (p->flag_bios_boot)
		json_object_array_add(a, json_object_new_string("bios_grub"));
	if (p->flag_boot)
		json_object_array_add(a, json_object_new_string("boot"));
	if (p->flag_raid)
		json_object_array_add(a, json_object_new_string("raid"));
	if (p->flag_lvm)
		json_object_array_add(a, json_object_new_string("lvm"));
	if (p->flag_swap)
		json_object_array_add(a, json_object_new_string("swap"));
	return a;
}

static struct json_object *nullable_string(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* What an installed system inside needs to boot; null when there is none. */
static struct json_object *installed_os_json(const struct fdw_installed_os *os)
{
	struct json_object *o;

	if (!os->found)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "name", nullable_string(*os->name ? os->name : NULL));
	json_object_object_add(o, "fstab_names_it", json_object_new_boolean(os->fstab_names_it));
	json_object_object_add(o, "root_subvolume",
			       nullable_string(*os->root_subvol ? os->root_subvol : NULL));
	json_object_object_add(o, "boot_separate", json_object_new_boolean(os->boot_separate));
	json_object_object_add(o, "usr_separate", json_object_new_boolean(os->usr_separate));
	json_object_object_add(o, "home_separate", json_object_new_boolean(os->home_separate));
	json_object_object_add(o, "has_kernels", json_object_new_boolean(os->has_kernels));
	json_object_object_add(o, "boot_loader", nullable_string(fdw_boot_loader_name(os->loader)));
	json_object_object_add(o, "initramfs", nullable_string(fdw_initramfs_name(os->initramfs)));
	json_object_object_add(o, "luks_in_initramfs",
			       json_object_new_boolean(os->luks_in_initramfs));
	json_object_object_add(o, "tpm_in_initramfs",
			       json_object_new_boolean(os->tpm_in_initramfs));
	json_object_object_add(o, "hibernates", json_object_new_boolean(os->hibernates));
	json_object_object_add(o, "swaps", json_object_new_int((int)os->n_swaps));
	json_object_object_add(o, "swap_files", json_object_new_int((int)os->n_swap_files));
	return o;
}

/* The installed system that names this partition, and what for; NULL when none does. */
static struct json_object *owner_json(const struct fdw_owner *ow)
{
	struct json_object *o;

	if (!ow->found)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "system", nullable_string(*ow->os_name ? ow->os_name : NULL));
	json_object_object_add(o, "root", json_object_new_string(ow->root_address));
	json_object_object_add(o, "use", json_object_new_string(fdw_os_use_name(ow->use)));
	json_object_object_add(o, "mountpoint", nullable_string(*ow->dir ? ow->dir : NULL));
	json_object_object_add(o, "spec", json_object_new_string(ow->spec));
	return o;
}

/* The kernels and boot loaders found inside, whatever names it; NULL when none were and
 * it could look. */
static struct json_object *boot_files_json(const struct fdw_boot_files *bf)
{
	struct json_object *o, *kinds;

	if (!(bf->kinds & FDW_BOOTF_DECISIVE) && !bf->look_error)
		return NULL;
	o = json_object_new_object();
	kinds = json_object_new_array();
	for (unsigned bit = 1; bit && bit <= FDW_BOOTF_MACOS; bit <<= 1)
		if (bf->kinds & bit)
			json_object_array_add(kinds, json_object_new_string(
							     fdw_boot_file_kind_name(bit)));
	json_object_object_add(o, "found", kinds);
	json_object_object_add(o, "where", bf->kinds ? json_object_new_string(
					   bf->under_boot ? "boot" : "top") : NULL);
	json_object_object_add(o, "looked", json_object_new_boolean(!bf->look_error));
	json_object_object_add(o, "root", nullable_string(*bf->root_address ? bf->root_address
								       : NULL));
	return o;
}

static struct json_object *verdict_json(const struct fdw_partition *p)
{
	const struct fdw_verdict *v = &p->verdict;
	struct json_object *o = json_object_new_object();
	struct json_object *strategies = json_object_new_array();
	char msg[2048];

	for (unsigned bit = FDW_STRATEGY_SHRINK; bit <= FDW_STRATEGY_FREE_TAIL; bit <<= 1)
		if (v->strategies & bit)
			json_object_array_add(strategies, json_object_new_string(
							  fdw_strategy_name(bit)));
	fdw_verdict_explain(p, msg, sizeof(msg));
	json_object_object_add(o, "eligible", json_object_new_boolean(v->eligible));
	json_object_object_add(o, "strategy", str_or_null(fdw_strategy_name(v->strategy)));
	json_object_object_add(o, "strategies", strategies);
	json_object_object_add(o, "reason", json_object_new_string(fdw_reason_name(v->reason)));
	json_object_object_add(o, "message", json_object_new_string(msg));
	return o;
}

static struct json_object *partition_json(const struct fdw_partition *p)
{
	struct json_object *o = json_object_new_object();
	struct json_object *luks = NULL;

	if (p->luks_version) {
		luks = json_object_new_object();
		json_object_object_add(luks, "version", json_object_new_int(p->luks_version));
		json_object_object_add(luks, "reencrypt_unfinished",
				       json_object_new_boolean(p->luks_reencrypt_unfinished));
	}
	json_object_object_add(o, "number", json_object_new_int(p->number));
	json_object_object_add(o, "node", str_or_null(p->node));
	json_object_object_add(o, "address", json_object_new_string(p->address));
	json_object_object_add(o, "start", json_object_new_int64((int64_t)p->start));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)p->size));
	json_object_object_add(o, "name", str_or_null(p->name));
	json_object_object_add(o, "flags", flags_json(p));
	json_object_object_add(o, "fstype", str_or_null(p->fstype));
	json_object_object_add(o, "fsversion", str_or_null(p->fsversion));
	json_object_object_add(o, "label", str_or_null(p->label));
	json_object_object_add(o, "uuid", str_or_null(p->uuid));
	json_object_object_add(o, "mountpoints", strv(p->mountpoints, p->n_mountpoints));
	json_object_object_add(o, "fs_size", int_or_null(p->fs_size));
	json_object_object_add(o, "fs_used", int_or_null(p->fs_used));
	json_object_object_add(o, "fs_free", int_or_null(p->fs_free));
	json_object_object_add(o, "fs_block_size", int_or_null(p->fs_block_size));
	json_object_object_add(o, "free_after", json_object_new_int64((int64_t)p->free_after));
	json_object_object_add(o, "holders", strv(p->holders, p->n_holders));
	json_object_object_add(o, "swap_active", json_object_new_boolean(p->swap_active));
	json_object_object_add(o, "read_only", json_object_new_boolean(p->read_only));
	json_object_object_add(o, "luks", luks);
	json_object_object_add(o, "detached_header", str_or_null(p->detached_header));
	json_object_object_add(o, "installed_system", installed_os_json(&p->os));
	json_object_object_add(o, "belongs_to", owner_json(&p->owner));
	json_object_object_add(o, "boot_files", boot_files_json(&p->boot_files));
	json_object_object_add(o, "verdict", verdict_json(p));
	return o;
}

static struct json_object *disk_json(const struct fdw_disk *d)
{
	struct json_object *o = json_object_new_object();
	struct json_object *parts = json_object_new_array();

	for (size_t i = 0; i < d->n_parts; i++)
		json_object_array_add(parts, partition_json(&d->parts[i]));
	json_object_object_add(o, "path", json_object_new_string(d->path));
	json_object_object_add(o, "kind", json_object_new_string(
				  d->kind == FDW_DISK_IMAGE ? "image" : "block"));
	json_object_object_add(o, "model", str_or_null(d->model));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)d->size));
	json_object_object_add(o, "logical_sector_size",
			       json_object_new_int((int)d->logical_sector_size));
	json_object_object_add(o, "physical_sector_size",
			       json_object_new_int((int)d->physical_sector_size));
	json_object_object_add(o, "table", json_object_new_string(d->table));
	json_object_object_add(o, "read_only", json_object_new_boolean(d->read_only));
	json_object_object_add(o, "partitions", parts);
	return o;
}

void list_print_json(FILE *out, const struct fdw_disk *disks, size_t n,
		     const struct list_error *errors, size_t n_errors)
{
	struct json_object *root = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct json_object *errs = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, disk_json(&disks[i]));
	for (size_t i = 0; i < n_errors; i++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "path", json_object_new_string(errors[i].path));
		json_object_object_add(e, "message", str_or_null(errors[i].message));
		json_object_array_add(errs, e);
	}
	json_object_object_add(root, "fdewiz_list_version", json_object_new_int(LIST_JSON_VERSION));
	json_object_object_add(root, "disks", arr);
	json_object_object_add(root, "errors", errs);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}
