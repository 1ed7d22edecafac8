/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Values read out of LUKS2 metadata: strings, numbers, the segments, the keyslots. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luks2_json.h"

const char *fdw_luks2_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

bool fdw_luks2_u64(json_object *o, const char *key, uint64_t *out)
{
	const char *s = fdw_luks2_str(o, key);
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* "flags", when present, must be an array of strings: anything else is no header's. */
static bool flags_valid(json_object *seg)
{
	json_object *flags;

	if (!json_object_object_get_ex(seg, "flags", &flags))
		return true;
	if (!json_object_is_type(flags, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(flags); i++)
		if (!json_object_is_type(json_object_array_get_idx(flags, i), json_type_string))
			return false;
	return true;
}

static int segment_read(const char *key, json_object *obj, struct fdw_luks2_segment *s)
{
	const char *size;

	if (!json_object_is_type(obj, json_type_object) || !flags_valid(obj))
		return -EINVAL;
	s->key = key;
	s->obj = obj;
	s->type = fdw_luks2_str(obj, "type");
	size = fdw_luks2_str(obj, "size");
	s->dynamic = size && !strcmp(size, "dynamic");
	s->size = 0;
	if (!s->type || !fdw_luks2_u64(obj, "offset", &s->offset) ||
	    (!s->dynamic && !fdw_luks2_u64(obj, "size", &s->size)))
		return -EINVAL;
	return 0;
}

int fdw_luks2_segments(json_object *root, struct fdw_luks2_segment *out, size_t cap, size_t *n)
{
	json_object *segs;
	int rc;

	*n = 0;
	if (!root || !json_object_object_get_ex(root, "segments", &segs) ||
	    !json_object_is_type(segs, json_type_object))
		return -EINVAL;
	json_object_object_foreach(segs, key, seg) {
		if (*n == cap)
			return -E2BIG;
		rc = segment_read(key, seg, &out[*n]);
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

static int keyslot_read(const char *key, json_object *obj, struct fdw_luks2_keyslot *k)
{
	uint64_t size;

	if (!json_object_is_type(obj, json_type_object))
		return -EINVAL;
	k->key = key;
	k->obj = obj;
	k->type = fdw_luks2_str(obj, "type");
	if (!k->type || !json_object_object_get_ex(obj, "area", &k->area) ||
	    !json_object_is_type(k->area, json_type_object) ||
	    !fdw_luks2_u64(k->area, "offset", &k->area_offset) ||
	    !fdw_luks2_u64(k->area, "size", &size) || size > UINT64_MAX - k->area_offset)
		return -EINVAL;
	k->area_end = k->area_offset + size;
	return 0;
}

int fdw_luks2_keyslots(json_object *root, struct fdw_luks2_keyslot *out, size_t cap, size_t *n)
{
	json_object *slots;
	int rc;

	*n = 0;
	if (!root || !json_object_object_get_ex(root, "keyslots", &slots) ||
	    !json_object_is_type(slots, json_type_object))
		return -EINVAL;
	json_object_object_foreach(slots, key, ks) {
		if (*n == cap)
			return -E2BIG;
		rc = keyslot_read(key, ks, &out[*n]);
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

bool fdw_luks2_array_has_prefix(json_object *arr, const char *prefix)
{
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(arr, i));

		if (s && !strncmp(s, prefix, strlen(prefix)))
			return true;
	}
	return false;
}

bool fdw_luks2_reencrypt_required(json_object *root)
{
	json_object *cfg, *reqs, *mand;

	return json_object_object_get_ex(root, "config", &cfg) &&
	       json_object_object_get_ex(cfg, "requirements", &reqs) &&
	       json_object_object_get_ex(reqs, "mandatory", &mand) &&
	       fdw_luks2_array_has_prefix(mand, "online-reencrypt");
}

bool fdw_luks2_segment_flag(const struct fdw_luks2_segment *seg, const char *prefix)
{
	json_object *flags;

	return json_object_object_get_ex(seg->obj, "flags", &flags) &&
	       fdw_luks2_array_has_prefix(flags, prefix);
}

bool fdw_luks2_segment_flagged(const struct fdw_luks2_segment *seg)
{
	json_object *flags;

	return json_object_object_get_ex(seg->obj, "flags", &flags) &&
	       json_object_array_length(flags) > 0;
}

bool fdw_luks2_segment_bytes(const struct fdw_luks2_segment *seg, uint64_t device_size,
			     uint64_t *bytes)
{
	if (seg->offset >= device_size)
		return false;
	*bytes = seg->dynamic ? device_size - seg->offset : seg->size;
	return *bytes <= device_size - seg->offset;
}
