/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Values read out of LUKS2 metadata (JSON): strings, numbers as the format writes them, and
 * the segments and the keyslots, each read and checked in this one place. */
#ifndef FDW_LUKS2_JSON_H
#define FDW_LUKS2_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* More than a reencryption ever has (data, moved copy, three backups); a header with more
 * is not one this program wrote or reads. */
#define FDW_LUKS2_MAX_SEGMENTS 16

/* The string member @key of LUKS2 JSON object @o, or NULL when it is missing or not one. */
const char *fdw_luks2_str(json_object *o, const char *key);
/* LUKS2 keeps offsets and sizes as decimal strings: member @key of @o as a number; false
 * when it is missing or anything but digits that fit. */
bool fdw_luks2_u64(json_object *o, const char *key, uint64_t *out);

/* One segment. The pointers belong to the header's JSON and live as long as it does. */
struct fdw_luks2_segment {
	const char *key;	/* its id in "segments": "0", "1", ... */
	json_object *obj;	/* the segment's own object */
	const char *type;	/* "crypt", "linear", or a type this program does not know */
	uint64_t offset;	/* bytes from the start of the data device */
	uint64_t size;		/* bytes; 0 when @dynamic */
	bool dynamic;		/* "size": "dynamic": up to the end of the device */
};

/* LUKS2 has 32 keyslots, and a reencryption one more of its own. */
#define FDW_LUKS2_MAX_KEYSLOTS 33

/* One keyslot. The pointers belong to the header's JSON and live as long as it does. */
struct fdw_luks2_keyslot {
	const char *key;	/* its id in "keyslots": "0", "1", ... */
	json_object *obj;	/* the keyslot's own object */
	const char *type;	/* "luks2", "reencrypt", or a type this program does not know */
	json_object *area;	/* its "area" object */
	uint64_t area_offset;	/* where its area starts, in bytes from the header's start */
	uint64_t area_end;	/* where it ends: offset plus size, which does not wrap */
};

/*
 * Every keyslot of @root into @out, in the header's order; @n says how many. Each must be
 * an object with a string "type" and an "area" object whose "offset" and "size" are
 * written as the format writes them. The one reader of keyslots: the header's copy, the
 * zeroed keyslot area and the final window read the same keyslots the same way, and a
 * header that is not so is none of theirs. Returns 0; -EINVAL when "keyslots" is missing
 * or one of them is not so (nothing in @out may then be used); -E2BIG past @cap.
 */
int fdw_luks2_keyslots(json_object *root, struct fdw_luks2_keyslot *out, size_t cap, size_t *n);

/* Does array @arr hold a string that starts with @prefix? False when it is no array. */
bool fdw_luks2_array_has_prefix(json_object *arr, const char *prefix);
/* Does the metadata @root carry the online-reencrypt requirement (a conversion unfinished)? */
bool fdw_luks2_reencrypt_required(json_object *root);

/*
 * Every segment of @root (a whole LUKS2 metadata object) into @out, in the header's order;
 * @n says how many. Each must be an object with a string "type", an "offset" and a "size"
 * written as the format writes them (whole decimal strings that fit 64 bits; "dynamic" for
 * a size) and, if it has "flags", an array of strings. Returns 0; -EINVAL when "segments"
 * is missing or one of them is not so (nothing in @out may then be used); -E2BIG when there
 * are more than @cap.
 */
int fdw_luks2_segments(json_object *root, struct fdw_luks2_segment *out, size_t cap, size_t *n);

/* Does @seg carry a flag that starts with @prefix ("backup-final", "in-reencryption")? */
bool fdw_luks2_segment_flag(const struct fdw_luks2_segment *seg, const char *prefix);

/* Does @seg carry any flag at all? (A plain data segment carries none.) */
bool fdw_luks2_segment_flagged(const struct fdw_luks2_segment *seg);

/* The bytes @seg covers on a device of @device_size bytes: its size, or from its offset to
 * the end when dynamic. False when it starts at or past the end, or runs past it. */
bool fdw_luks2_segment_bytes(const struct fdw_luks2_segment *seg, uint64_t device_size,
			     uint64_t *bytes);

#endif
