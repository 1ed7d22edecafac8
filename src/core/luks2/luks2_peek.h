/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reads a LUKS2 header without writing a byte: for anyone who only looks. */
#ifndef FDW_LUKS2_PEEK_H
#define FDW_LUKS2_PEEK_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/* What a viewer needs from a LUKS2 header: the copy with the highest sequence id. */
struct fdw_luks2_peek {
	uint64_t seqid;
	uint64_t hdr_size;
	char uuid[40];
	bool reencrypt;		/* an online-reencrypt requirement: a conversion is unfinished */
	bool crashed;		/* a segment still flagged in-reencryption: repair comes first */
	char mode[16];		/* the reencryption keyslot's mode ("encrypt", ...), or "" */
	json_object *json;	/* the whole metadata; put it with fdw_luks2_peek_release() */
};

/*
 * Read the LUKS2 header at @offset of @path (at most @size bytes from there; 0: up to the
 * end), opened O_RDONLY: both binary headers, each checked against its own checksum, the
 * newer valid one kept. libcryptsetup's crypt_load() is never used here, because a load
 * that finds the two copies disagreeing repairs the older one in place: a write, made by
 * whoever happened to look. A copy caught mid-write is passed over for the other; when
 * both fail, it reads again a few times over 0.1 s. Returns 0, -EINVAL (no LUKS2 header there), -EAGAIN (a
 * LUKS2 header whose copies both fail their checksums: it is being written right now,
 * or it is damaged), or -errno.
 */
int fdw_luks2_peek(const char *path, uint64_t offset, uint64_t size, struct fdw_luks2_peek *out);
/* As fdw_luks2_peek(), once, over the @len bytes of a header area in @buf. */
int fdw_luks2_peek_buf(const unsigned char *buf, size_t len, struct fdw_luks2_peek *out);
void fdw_luks2_peek_release(struct fdw_luks2_peek *p);
/* Does @path start with a valid LUKS2 header whose UUID is @uuid? */
bool fdw_luks2_peek_has_uuid(const char *path, const char *uuid);

#endif
