/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The end window of an in-place encryption, recognised and rewritten in the LUKS2 metadata. */
#include "config.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "luks2_final.h"
#include "luks2_json.h"

/* LUKS2 binary header fields (big-endian), as the on-disk format defines them. */
#define HDR_CSUM_ALG_AT 72
#define HDR_CSUM_AT 448
#define HDR_CSUM_LEN 64



static bool fw_str_is(json_object *o, const char *key, const char *want)
{
	const char *s = fdw_luks2_str(o, key);

	return s && !strcmp(s, want);
}

/* The segments: one plain data segment equal to "backup-final", maybe the moved copy. */
static bool fw_segments(json_object *root, struct fdw_final_window *fw)
{
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	const struct fdw_luks2_segment *data = NULL, *final = NULL, *moved = NULL;
	json_object *area;
	const char *enc, *dash;
	int64_t sector;
	int n_data = 0;
	size_t n;

	if (fdw_luks2_segments(root, segs, FDW_LUKS2_MAX_SEGMENTS, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct fdw_luks2_segment *seg = &segs[i];

		if (fdw_luks2_segment_flag(seg, "backup-final"))
			final = seg;
		else if (fdw_luks2_segment_flag(seg, "backup-moved-segment"))
			moved = seg;
		else if (fdw_luks2_segment_flag(seg, "backup-previous"))
			continue;
		else if (fdw_luks2_segment_flagged(seg))
			return false;	/* "in-reencryption" or unknown: not this state */
		else {
			data = seg;
			n_data++;
		}
	}
	if (n_data != 1 || !final || strcmp(data->type, "crypt"))
		return false;
	fw->data_offset = data->offset;
	fw->moved = moved != NULL;
	if (moved) {
		if (strcmp(moved->type, "linear") || moved->dynamic)
			return false;
		fw->moved_offset = moved->offset;
		fw->moved_size = moved->size;
	}
	if (json_object_deep_copy(final->obj, &fw->final, NULL) != 0)
		return false;
	json_object_object_del(fw->final, "flags");
	/* The hotzones are done exactly when the data segment is the final one. */
	if (!json_object_equal(fw->final, data->obj))
		return false;
	enc = fdw_luks2_str(data->obj, "encryption");
	dash = enc ? strchr(enc, '-') : NULL;
	if (!dash || dash == enc || (size_t)(dash - enc) >= sizeof(fw->cipher) ||
	    strlen(dash + 1) >= sizeof(fw->mode))
		return false;
	snprintf(fw->cipher, sizeof(fw->cipher), "%.*s", (int)(dash - enc), enc);
	snprintf(fw->mode, sizeof(fw->mode), "%s", dash + 1);
	if (!json_object_object_get_ex(data->obj, "sector_size", &area))
		return false;
	sector = json_object_get_int64(area);
	if (sector != 512 && sector != 1024 && sector != 2048 && sector != 4096)
		return false;
	fw->sector_size = (unsigned)sector;
	return true;
}

/* The keyslots: one reencryption keyslot of an encryption, and the others. */
static bool fw_keyslots(json_object *root, struct fdw_final_window *fw)
{
	struct fdw_luks2_keyslot ks[FDW_LUKS2_MAX_KEYSLOTS];
	int n_reenc = 0;
	size_t n;

	if (fdw_luks2_keyslots(root, ks, FDW_LUKS2_MAX_KEYSLOTS, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ks[i].type, "luks2")) {
			fw->user_keyslots++;
			continue;
		}
		if (strcmp(ks[i].type, "reencrypt") || !fw_str_is(ks[i].obj, "mode", "encrypt"))
			return false;
		/* Datashift encryption walks backwards; other kinds move no data. */
		fw->datashift = fw_str_is(ks[i].area, "type", "datashift");
		if (fw->datashift && !fw_str_is(ks[i].obj, "direction", "backward"))
			return false;
		n_reenc++;
	}
	return n_reenc == 1;
}

void fdw_final_window_release(struct fdw_final_window *fw)
{
	json_object_put(fw->final);
	fw->final = NULL;
}

int fdw_final_window_parse(const char *json, struct fdw_final_window *fw)
{
	json_object *root;
	bool found;

	memset(fw, 0, sizeof(*fw));
	root = json_tokener_parse(json);
	/* libcryptsetup's own JSON always parses: refuse to guess rather than go on. */
	if (!root)
		return -EINVAL;
	/* Every level is checked for its type: json-c's object calls assume an object. */
	found = json_object_is_type(root, json_type_object) && fdw_luks2_reencrypt_required(root) &&
		fw_keyslots(root, fw) && fw_segments(root, fw) && fw->datashift == fw->moved;
	json_object_put(root);
	if (found)
		return 1;
	fdw_final_window_release(fw);
	return 0;
}

/*
 * Where the keyslot area ends: where the data starts when the header sits on the device
 * (datashift); else (a detached header) after the two binary headers and "keyslots_size".
 */
static bool keyslots_end(json_object *root, uint64_t hdr_size,
			 const struct fdw_final_window *fw, uint64_t *end)
{
	json_object *cfg;
	uint64_t ks_size;

	if (fw->datashift) {
		*end = fw->data_offset;
		return *end >= 2 * hdr_size;
	}
	if (!json_object_object_get_ex(root, "config", &cfg) ||
	    !fdw_luks2_u64(cfg, "keyslots_size", &ks_size) || ks_size > UINT64_MAX - 2 * hdr_size)
		return false;
	*end = 2 * hdr_size + ks_size;
	return true;
}

bool fdw_final_window_reencrypt_area(const char *json, uint64_t hdr_size,
				     const struct fdw_final_window *fw, uint64_t *off,
				     uint64_t *len)
{
	struct fdw_luks2_keyslot ks[FDW_LUKS2_MAX_KEYSLOTS];
	json_object *root = json_tokener_parse(json);
	const struct fdw_luks2_keyslot *re = NULL;
	uint64_t end = 0;
	size_t n;
	bool ok;

	if (fdw_luks2_keyslots(root, ks, FDW_LUKS2_MAX_KEYSLOTS, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(ks[i].type, "reencrypt"))
				re = &ks[i];
	ok = re && keyslots_end(root, hdr_size, fw, &end);
	if (ok) {
		*off = re->area_offset;
		*len = re->area_end - re->area_offset;
		ok = *off >= 2 * hdr_size && *off <= end && *len <= end - *off;
	}
	json_object_put(root);
	return ok;
}

/* The ids the window header gives its parts, by which the finished one is made. */
struct fw_ids {
	char data[16];		/* the data segment, equal to the final one */
	char final[16];		/* the "backup-final" segment */
	char reenc[16];		/* the reencryption keyslot */
	json_object *data_seg;
};

/* Find @ids in @root's segments and in @kss; false when one of them is missing. */
static bool fw_window_ids(json_object *root, json_object *kss, const struct fdw_final_window *fw,
			  struct fw_ids *ids)
{
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	size_t n;

	if (fdw_luks2_segments(root, segs, FDW_LUKS2_MAX_SEGMENTS, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (fdw_luks2_segment_flag(&segs[i], "backup-final"))
			snprintf(ids->final, sizeof(ids->final), "%s", segs[i].key);
		else if (json_object_equal(segs[i].obj, fw->final)) {
			snprintf(ids->data, sizeof(ids->data), "%s", segs[i].key);
			ids->data_seg = segs[i].obj;
		}
	}
	json_object_object_foreach(kss, kk, ks) {
		if (fw_str_is(ks, "type", "reencrypt"))
			snprintf(ids->reenc, sizeof(ids->reenc), "%s", kk);
	}
	return ids->data_seg && *ids->final && *ids->reenc;
}

/* True when every element of array @a is a string (a null among ids is no header's). */
static bool fw_all_strings(json_object *a)
{
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!json_object_is_type(json_object_array_get_idx(a, i), json_type_string))
			return false;
	return true;
}

/*
 * One digest rebound: without the reencryption keyslot, bound to segment "0" when it was
 * bound to the data or the final segment. False when it is not a digest (or its ids are
 * not all strings); else @empty says whether no keyslot is left to it.
 */
static bool fw_digest_rebind(json_object *dig, const struct fw_ids *ids, bool *empty)
{
	json_object *dks, *dss, *nks, *nss;
	bool bound = false;
	size_t i;

	if (!json_object_object_get_ex(dig, "keyslots", &dks) ||
	    !json_object_object_get_ex(dig, "segments", &dss) ||
	    !json_object_is_type(dks, json_type_array) ||
	    !json_object_is_type(dss, json_type_array) || !fw_all_strings(dks) ||
	    !fw_all_strings(dss))
		return false;
	nks = json_object_new_array();
	nss = json_object_new_array();
	for (i = 0; i < json_object_array_length(dks); i++) {
		json_object *k = json_object_array_get_idx(dks, i);

		if (strcmp(json_object_get_string(k), ids->reenc))
			json_object_array_add(nks, json_object_get(k));
	}
	for (i = 0; i < json_object_array_length(dss); i++) {
		const char *sid = json_object_get_string(json_object_array_get_idx(dss, i));

		bound |= !strcmp(sid, ids->data) || !strcmp(sid, ids->final);
	}
	if (bound)
		json_object_array_add(nss, json_object_new_string("0"));
	json_object_object_add(dig, "keyslots", nks);
	json_object_object_add(dig, "segments", nss);
	*empty = !json_object_array_length(nks);
	return true;
}

/*
 * Digests: drop the reencryption keyslot; bind the volume key's to segment "0"; a digest
 * left with no keyslot goes, and the walk starts again. False on one that is not a digest.
 */
static bool fw_digests_rebind(json_object *digs, const struct fw_ids *ids)
{
	for (;;) {
		const char *drop = NULL;

		json_object_object_foreach(digs, dk, dig) {
			bool empty;

			if (!fw_digest_rebind(dig, ids, &empty))
				return false;
			if (empty) {
				drop = dk;
				break;
			}
		}
		if (!drop)
			return true;
		json_object_object_del(digs, drop);
	}
}

/* The online-reencrypt requirement dropped from @cfg; "requirements" goes when empty. */
static void fw_requirement_drop(json_object *cfg)
{
	json_object *reqs, *mand, *nmand;

	if (!json_object_object_get_ex(cfg, "requirements", &reqs) ||
	    !json_object_object_get_ex(reqs, "mandatory", &mand) ||
	    !json_object_is_type(mand, json_type_array))
		return;
	nmand = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(mand); i++) {
		json_object *r = json_object_array_get_idx(mand, i);

		/* Not a string: not the requirement this drops; it stays as it was. */
		if (!json_object_is_type(r, json_type_string) ||
		    strncmp(json_object_get_string(r), "online-reencrypt", 16))
			json_object_array_add(nmand, json_object_get(r));
	}
	if (json_object_array_length(nmand))
		json_object_object_add(reqs, "mandatory", nmand);
	else {
		json_object_put(nmand);
		json_object_object_del(reqs, "mandatory");
	}
	if (!json_object_object_length(reqs))
		json_object_object_del(cfg, "requirements");
}

json_object *fdw_final_window_json(const char *json, uint64_t hdr_size,
				   const struct fdw_final_window *fw)
{
	json_object *root = json_tokener_parse(json), *kss, *digs, *cfg;
	json_object *nsegs = NULL;
	struct fw_ids ids = { .data_seg = NULL };
	char num[32];

	if (!root || !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "keyslots", &kss) ||
	    !json_object_object_get_ex(root, "digests", &digs) ||
	    !json_object_object_get_ex(root, "config", &cfg) ||
	    !json_object_is_type(kss, json_type_object) ||
	    !json_object_is_type(digs, json_type_object) ||
	    !json_object_is_type(cfg, json_type_object))
		goto bad;
	if (!fw_window_ids(root, kss, fw, &ids))
		goto bad;
	nsegs = json_object_new_object();
	if (!nsegs || json_object_object_add(nsegs, "0", json_object_get(ids.data_seg)))
		goto bad;
	json_object_object_add(root, "segments", nsegs);
	nsegs = NULL;
	json_object_object_del(kss, ids.reenc);
	if (!fw_digests_rebind(digs, &ids))
		goto bad;
	fw_requirement_drop(cfg);
	/*
	 * On the device the keyslot area ends where the data starts, as the library sets it
	 * when done; a detached header keeps its own.
	 */
	if (fw->datashift) {
		if (fw->data_offset < 2 * hdr_size)
			goto bad;
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)(fw->data_offset - 2 * hdr_size));
		json_object_object_add(cfg, "keyslots_size", json_object_new_string(num));
	}
	return root;
bad:
	json_object_put(nsegs);
	json_object_put(root);
	return NULL;
}

int fdw_luks2_write_hdr(int fd, uint64_t off, uint64_t hdr_size, const char *json,
			uint64_t seqid)
{
	unsigned char *buf = calloc(1, hdr_size);
	unsigned int md_len = 0;
	size_t jlen = strlen(json);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	if (pread(fd, buf, 4096, (off_t)off) != 4096 || fdw_be64(buf + FDW_LUKS2_HDR_SIZE_AT) != hdr_size ||
	    strcmp((const char *)buf + HDR_CSUM_ALG_AT, "sha256") || jlen >= hdr_size - 4096)
		rc = -EINVAL;
	if (!rc) {
		fdw_put_be64(buf + FDW_LUKS2_HDR_SEQID_AT, seqid);
		memcpy(buf + 4096, json, jlen);
		memset(buf + HDR_CSUM_AT, 0, HDR_CSUM_LEN);
		if (!EVP_Digest(buf, hdr_size, buf + HDR_CSUM_AT, &md_len, EVP_sha256(), NULL))
			rc = -EIO;
	}
	if (!rc && pwrite(fd, buf, hdr_size, (off_t)off) != (ssize_t)hdr_size)
		rc = -EIO;
	free(buf);
	return rc;
}
