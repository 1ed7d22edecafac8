/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An LVM physical volume read from LVM's JSON reports, and the header's room planned. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/spawn.h"
#include "fsprobe.h"
#include "installed_os.h"
#include "lvm_pv.h"

/* The report of a few devices and volumes is small; a larger one is not this one's. */
#define REPORT_MAX (64 * 1024)

void fdw_lvm_pv_begin(struct fdw_lvm_pv *out)
{
	memset(out, 0, sizeof(*out));
	out->last_lv = out->root_lv = out->swap_lv = -1;
}

/* report[0].@kind as an array, or NULL. */
static struct json_object *report_rows(struct json_object *top, const char *kind)
{
	struct json_object *report, *first, *rows;

	if (!json_object_object_get_ex(top, "report", &report) ||
	    !json_object_is_type(report, json_type_array) || json_object_array_length(report) < 1)
		return NULL;
	first = json_object_array_get_idx(report, 0);
	if (!json_object_object_get_ex(first, kind, &rows) ||
	    !json_object_is_type(rows, json_type_array))
		return NULL;
	return rows;
}

/* LVM reports numbers as strings ("--units b --nosuffix"); -1 when missing or not one. */
static int64_t num(struct json_object *row, const char *key)
{
	struct json_object *v;
	const char *s;
	char *end;
	long long n;

	if (!json_object_object_get_ex(row, key, &v) || !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	return errno || *end || n < 0 ? -1 : n;
}

static void str(struct json_object *row, const char *key, char *buf, size_t len)
{
	struct json_object *v;

	buf[0] = '\0';
	if (json_object_object_get_ex(row, key, &v) && json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
}

static struct json_object *parse(const char *json, const char *kind, struct json_object **top)
{
	*top = json_tokener_parse(json);
	return *top ? report_rows(*top, kind) : NULL;
}

int fdw_lvm_parse_pv(const char *json, struct fdw_lvm_pv *out)
{
	struct json_object *top, *rows = parse(json, "pv", &top), *row;
	int64_t v[7];
	int rc = -EBADMSG;

	if (!rows || json_object_array_length(rows) != 1)
		goto out;
	row = json_object_array_get_idx(rows, 0);
	str(row, "vg_name", out->vg, sizeof(out->vg));
	v[0] = num(row, "pv_size");
	v[1] = num(row, "dev_size");
	v[2] = num(row, "pe_start");
	v[3] = num(row, "vg_extent_size");
	v[4] = num(row, "pv_pe_count");
	v[5] = num(row, "pv_pe_alloc_count");
	v[6] = num(row, "pv_count");
	for (int i = 0; i < 7; i++)
		if (v[i] < 0)
			goto out;
	out->dev_size = (uint64_t)v[1];
	out->pe_start = (uint64_t)v[2];
	out->extent = (uint64_t)v[3];
	out->pe_count = (uint64_t)v[4];
	out->pe_alloc = (uint64_t)v[5];
	out->pv_count = (unsigned)(v[6] > 1000 ? 1000 : v[6]);
	/* Figures that cannot describe a PV are not believed. (pvs's pv_size is its
	 * extents' bytes; where they end is what matters here.) */
	if (!out->extent || out->pe_alloc > out->pe_count ||
	    out->pe_count > (UINT64_MAX - out->pe_start) / out->extent)
		goto out;
	out->pv_size = out->pe_start + out->pe_count * out->extent;
	if (out->pv_size > out->dev_size)
		goto out;
	rc = 0;
out:
	json_object_put(top);
	return rc;
}

static struct fdw_lvm_lv *lv_named(struct fdw_lvm_pv *pv, const char *name)
{
	for (unsigned i = 0; i < pv->n_lvs; i++)
		if (!strcmp(pv->lvs[i].name, name))
			return &pv->lvs[i];
	return NULL;
}

int fdw_lvm_parse_lvs(const char *json, struct fdw_lvm_pv *out)
{
	struct json_object *top, *rows = parse(json, "lv", &top);
	size_t n;

	if (!rows) {
		json_object_put(top);
		return -EBADMSG;
	}
	n = json_object_array_length(rows);
	for (size_t i = 0; i < n && out->n_lvs < FDW_LVM_MAX_LVS; i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		struct fdw_lvm_lv *lv = &out->lvs[out->n_lvs];
		memset(lv, 0, sizeof(*lv));
		str(row, "lv_name", lv->name, sizeof(lv->name));
		str(row, "lv_dm_path", lv->dm_path, sizeof(lv->dm_path));
		/* One linear segment; where it lies comes from the PV's segments. */
		lv->one_piece = num(row, "seg_count") == 1;
		if (lv->name[0] && !strchr(lv->name, '/') && !strncmp(lv->dm_path, "/dev/mapper/", 12))
			out->n_lvs++;
	}
	json_object_put(top);
	return 0;
}

int fdw_lvm_parse_segments(const char *json, struct fdw_lvm_pv *out)
{
	struct json_object *top, *rows = parse(json, "pvseg", &top);
	uint64_t end = 0;
	size_t n;
	int rc = -EBADMSG;

	if (!rows)
		goto out;
	n = json_object_array_length(rows);
	for (size_t i = 0; i < n; i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		int64_t start = num(row, "pvseg_start"), size = num(row, "pvseg_size");
		char name[128], type[32];
		struct fdw_lvm_lv *lv;

		str(row, "lv_name", name, sizeof(name));
		str(row, "segtype", type, sizeof(type));
		if (start < 0 || size <= 0 || (uint64_t)start != end)
			goto out;	/* segments tile the PV in order */
		end = (uint64_t)start + (uint64_t)size;
		if (!name[0]) {
			out->tail_free_pe += (uint64_t)size;
			continue;
		}
		out->tail_free_pe = 0;
		lv = lv_named(out, name);
		out->last_lv = lv ? (int)(lv - out->lvs) : -1;
		if (!lv)
			continue;
		if (lv->n_pe) {
			lv->one_piece = false;	/* a second piece on this PV */
			continue;
		}
		lv->first_pe = (uint64_t)start;
		lv->n_pe = (uint64_t)size;
		if (strcmp(type, "linear") && strcmp(type, "striped"))
			lv->one_piece = false;
	}
	if (end != out->pe_count)
		goto out;
	rc = 0;
out:
	json_object_put(top);
	return rc;
}

uint64_t fdw_lvm_lv_offset(const struct fdw_lvm_pv *pv, const struct fdw_lvm_lv *lv)
{
	return pv->pe_start + lv->first_pe * pv->extent;
}

bool fdw_lvm_lv_named(const struct fdw_lvm_pv *pv, const struct fdw_lvm_lv *lv, const char *path)
{
	size_t vl = strlen(pv->vg);

	if (!strcmp(path, lv->dm_path))
		return true;
	return !strncmp(path, "/dev/", 5) && !strncmp(path + 5, pv->vg, vl) &&
	       path[5 + vl] == '/' && !strcmp(path + 6 + vl, lv->name);
}

/* Run one report; its stdout in a malloc'ed buffer (*@out). */
static int report(char *const argv[], char **out)
{
	char *buf = malloc(REPORT_MAX);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = fdw_spawn_stdout(argv, buf, REPORT_MAX);
	if (rc) {
		fdw_log(FDW_LOG_DEBUG, "%s: exit status %d", argv[0], rc);
		free(buf);
		return rc < 0 ? rc : -EIO;
	}
	*out = buf;
	return 0;
}

int fdw_lvm_pv_read(const char *node, struct fdw_lvm_pv *out)
{
	char *pv_argv[] = { "pvs", "--reportformat", "json", "--units", "b", "--nosuffix",
			    "-o", "pv_name,vg_name,pv_size,dev_size,pe_start,pv_pe_count,"
				  "pv_pe_alloc_count,vg_extent_size,pv_count",
			    (char *)node, NULL };
	char *seg_argv[] = { "pvs", "--reportformat", "json", "--units", "b", "--nosuffix",
			     "--segments", "-o", "pvseg_start,pvseg_size,lv_name,segtype",
			     (char *)node, NULL };
	char *text = NULL;
	int rc;

	fdw_lvm_pv_begin(out);
	rc = report(pv_argv, &text);
	if (!rc)
		rc = fdw_lvm_parse_pv(text, out);
	free(text);
	text = NULL;
	if (!rc && out->vg[0]) {
		char *lv_argv[] = { "lvs", "--reportformat", "json", "--units", "b", "--nosuffix",
				    "-o", "lv_name,lv_dm_path,seg_count", out->vg, NULL };

		rc = report(lv_argv, &text);
		if (!rc)
			rc = fdw_lvm_parse_lvs(text, out);
		free(text);
		text = NULL;
	}
	if (!rc) {
		rc = report(seg_argv, &text);
		if (!rc)
			rc = fdw_lvm_parse_segments(text, out);
		free(text);
	}
	if (rc) {
		fdw_log(FDW_LOG_DEBUG, "%s: LVM's report could not be read: %s", node,
			strerror(rc < 0 ? -rc : EIO));
		fdw_lvm_pv_begin(out);
		return rc;
	}
	out->read = true;
	return 0;
}

void fdw_lvm_room_plan(const struct fdw_lvm_pv *pv, uint64_t header, struct fdw_lvm_room *out)
{
	uint64_t keep_pe, need, from_swap;
	const struct fdw_lvm_lv *swap;

	memset(out, 0, sizeof(*out));
	if (pv->dev_size < header + pv->pe_start) {
		out->kind = FDW_LVM_ROOM_NONE;
		out->short_by = header;
		return;
	}
	/* The PV's size after the conversion: whole sectors before the header's room. Its
	 * extents may end early enough already; LVM's record of its size is still set
	 * (pvresize), or LVM would find the encrypted volume smaller than the PV it knew. */
	out->pv_size = (pv->dev_size - header) / 512 * 512;
	if (pv->pv_size <= out->pv_size) {
		out->kind = FDW_LVM_ROOM_PVRESIZE;
		return;
	}
	keep_pe = (out->pv_size - pv->pe_start) / pv->extent;
	need = pv->pe_count > keep_pe ? pv->pe_count - keep_pe : 0;
	out->free_pe = need;
	if (need <= pv->tail_free_pe) {
		out->kind = FDW_LVM_ROOM_PVRESIZE;
		return;
	}
	from_swap = need - pv->tail_free_pe;
	swap = pv->swap_lv >= 0 ? &pv->lvs[pv->swap_lv] : NULL;
	if (swap && pv->last_lv == pv->swap_lv && swap->one_piece &&
	    swap->n_pe > from_swap && (swap->n_pe - from_swap) * pv->extent >= FDW_LVM_MIN_SWAP) {
		out->kind = FDW_LVM_ROOM_SWAP;
		out->swap_pe = swap->n_pe - from_swap;
		return;
	}
	out->kind = FDW_LVM_ROOM_NONE;
	out->short_by = from_swap * pv->extent;
}

/* What blkid finds at the start of @lv (in @fd, the disk, whose PV starts at @pv_start). */
static void probe_lv(int fd, uint64_t pv_start, const struct fdw_lvm_pv *pv,
		     struct fdw_lvm_lv *lv)
{
	blkid_probe pr = blkid_new_probe();
	const char *v;

	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)(pv_start + fdw_lvm_lv_offset(pv, lv)),
				   (blkid_loff_t)(lv->n_pe * pv->extent)) == 0 &&
	    blkid_do_safeprobe(pr) == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			snprintf(lv->fstype, sizeof(lv->fstype), "%s", v);
		if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
			snprintf(lv->uuid, sizeof(lv->uuid), "%s", v);
		if (blkid_probe_lookup_value(pr, "LABEL", &v, NULL) == 0)
			snprintf(lv->label, sizeof(lv->label), "%s", v);
	}
	blkid_free_probe(pr);
}

/* Does @os swap on @lv (an fstab swap line naming it by device or by its UUID)? */
static bool swap_of(const struct fdw_installed_os *os, const struct fdw_lvm_pv *pv,
		    const struct fdw_lvm_lv *lv)
{
	for (unsigned i = 0; i < os->n_entries; i++) {
		const char *spec = os->entries[i].spec;

		if (os->entries[i].use != FDW_USE_SWAP)
			continue;
		if (fdw_lvm_lv_named(pv, lv, spec) ||
		    (lv->uuid[0] && !strncmp(spec, "UUID=", 5) && !strcasecmp(spec + 5, lv->uuid)))
			return true;
	}
	return false;
}

void fdw_lvm_pv_look(const char *disk_path, int fd, uint64_t pv_start, struct fdw_lvm_pv *pv,
		     struct fdw_installed_os *os)
{
	memset(os, 0, sizeof(*os));
	for (unsigned i = 0; i < pv->n_lvs; i++) {
		struct fdw_lvm_lv *lv = &pv->lvs[i];

		if (!lv->one_piece || !lv->n_pe)
			continue;
		probe_lv(fd, pv_start, pv, lv);
		if (!fdw_fstype_is_ext(lv->fstype) || pv->root_lv >= 0)
			continue;
		/* A system on it whose fstab mounts this very volume at /: LVM's own names. */
		if (fdw_installed_os_probe(disk_path, pv_start + fdw_lvm_lv_offset(pv, lv),
					   lv->uuid, lv->label, os) != 0 || !os->found) {
			memset(os, 0, sizeof(*os));
			continue;
		}
		os->fstab_names_it |= fdw_lvm_lv_named(pv, lv, os->root_spec);
		if (os->fstab_names_it)
			pv->root_lv = (int)i;
		else
			memset(os, 0, sizeof(*os));
	}
	/* Its swap volume: a swap area the system itself swaps on (its fstab), never just a
	 * volume whose first bytes look like one (a stale signature under a data volume). */
	for (unsigned i = 0; pv->root_lv >= 0 && i < pv->n_lvs && pv->swap_lv < 0; i++)
		if (!strcmp(pv->lvs[i].fstype, "swap") && swap_of(os, pv, &pv->lvs[i]))
			pv->swap_lv = (int)i;
}
