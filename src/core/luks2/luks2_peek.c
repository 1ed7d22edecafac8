/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reads a LUKS2 header without writing a byte: for anyone who only looks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/fileio.h"
#include "luks2_peek.h"
#include "luks2_json.h"

/* The binary header's fields (LUKS2 on-disk format), by byte offset. */
#define HDR_BIN 4096
#define HDR_SIZE_AT 8
#define HDR_SEQID_AT 16
#define HDR_CSUM_ALG_AT 72
#define HDR_UUID_AT 168
#define HDR_OFFSET_AT 256
#define HDR_CSUM_AT 448
#define HDR_CSUM_LEN 64
/* The sizes a binary header plus JSON area may have: 16 KiB doubling up to 4 MiB. */
#define HDR_MIN (16 * 1024ULL)
#define HDR_MAX (4 * 1024 * 1024ULL)

static const unsigned char magic1[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
static const unsigned char magic2[6] = { 'S', 'K', 'U', 'L', 0xba, 0xbe };

static bool size_valid(uint64_t s)
{
	return s >= HDR_MIN && s <= HDR_MAX && !(s & (s - 1));
}

/* Is the copy at @at of @buf (@len bytes) whole: its magic, place and checksum? */
static bool copy_valid(const unsigned char *buf, size_t len, uint64_t at, bool secondary)
{
	const unsigned char *h = buf + at;
	unsigned char md[EVP_MAX_MD_SIZE], *tmp;
	char alg[33];
	const EVP_MD *type;
	unsigned int md_len = 0;
	uint64_t size;
	bool ok;

	if (at > len || len - at < HDR_BIN ||
	    memcmp(h, secondary ? magic2 : magic1, sizeof(magic1)) || fdw_be16(h + 6) != 2)
		return false;
	size = fdw_be64(h + HDR_SIZE_AT);
	if (!size_valid(size) || size > len - at || fdw_be64(h + HDR_OFFSET_AT) != at)
		return false;
	memcpy(alg, h + HDR_CSUM_ALG_AT, 32);
	alg[32] = '\0';
	type = EVP_get_digestbyname(alg);
	if (!type || EVP_MD_get_size(type) > HDR_CSUM_LEN)
		return false;
	/* The checksum covers the whole area with its own field zeroed. */
	tmp = malloc(size);
	if (!tmp)
		return false;
	memcpy(tmp, h, size);
	memset(tmp + HDR_CSUM_AT, 0, HDR_CSUM_LEN);
	ok = EVP_Digest(tmp, size, md, &md_len, type, NULL) &&
	     !memcmp(md, h + HDR_CSUM_AT, md_len);
	free(tmp);
	return ok;
}

/* What libcryptsetup itself reads to tell a clean stop from a crash, read here by hand. */
static void read_state(struct fdw_luks2_peek *p)
{
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	struct fdw_luks2_keyslot ks[FDW_LUKS2_MAX_KEYSLOTS];
	size_t n = 0;

	p->reencrypt = fdw_luks2_reencrypt_required(p->json);
	/* Segments that are not as the format writes them: libcryptsetup refuses the header,
	 * and no state is read from them. */
	if (fdw_luks2_segments(p->json, segs, FDW_LUKS2_MAX_SEGMENTS, &n) == 0)
		for (size_t i = 0; i < n; i++)
			p->crashed |= fdw_luks2_segment_flag(&segs[i], "in-reencryption");
	if (fdw_luks2_keyslots(p->json, ks, FDW_LUKS2_MAX_KEYSLOTS, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			const char *mode = fdw_luks2_str(ks[i].obj, "mode");

			if (!strcmp(ks[i].type, "reencrypt") && mode)
				snprintf(p->mode, sizeof(p->mode), "%s", mode);
		}
	p->crashed = p->crashed && p->reencrypt;
}

int fdw_luks2_peek_buf(const unsigned char *buf, size_t len, struct fdw_luks2_peek *out)
{
	uint64_t best = UINT64_MAX, at;
	bool magic = false;
	json_tokener *tok;
	size_t json_len;

	memset(out, 0, sizeof(*out));
	if (len >= HDR_BIN && !memcmp(buf, magic1, sizeof(magic1)))
		magic = true;
	if (copy_valid(buf, len, 0, false))
		best = 0;
	/* The second copy sits right after the first; if the first is torn, at any size. */
	for (at = HDR_MIN; at <= HDR_MAX; at *= 2) {
		if (at >= len || !copy_valid(buf, len, at, true))
			continue;
		magic = true;
		if (best == UINT64_MAX ||
		    fdw_be64(buf + at + HDR_SEQID_AT) > fdw_be64(buf + best + HDR_SEQID_AT))
			best = at;
	}
	if (best == UINT64_MAX)
		return magic ? -EAGAIN : -EINVAL;
	out->seqid = fdw_be64(buf + best + HDR_SEQID_AT);
	out->hdr_size = fdw_be64(buf + best + HDR_SIZE_AT);
	memcpy(out->uuid, buf + best + HDR_UUID_AT, sizeof(out->uuid) - 1);
	json_len = strnlen((const char *)buf + best + HDR_BIN, out->hdr_size - HDR_BIN);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	out->json = json_tokener_parse_ex(tok, (const char *)buf + best + HDR_BIN, (int)json_len);
	json_tokener_free(tok);
	if (!out->json || !json_object_is_type(out->json, json_type_object)) {
		fdw_luks2_peek_release(out);
		return -EINVAL;
	}
	read_state(out);
	return 0;
}

static int peek_once(const char *path, uint64_t offset, uint64_t size, struct fdw_luks2_peek *out)
{
	unsigned char first[HDR_BIN], *buf;
	size_t len = 2 * HDR_MAX;
	ssize_t got;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* Both copies: twice the size the first names, or every size when it is torn. */
	got = fdw_pread_full(fd, first, sizeof(first), offset);
	if (got == (ssize_t)sizeof(first) && !memcmp(first, magic1, sizeof(magic1)) &&
	    size_valid(fdw_be64(first + HDR_SIZE_AT)))
		len = 2 * fdw_be64(first + HDR_SIZE_AT);
	if (size && size < len)
		len = (size_t)size;
	buf = got < 0 ? NULL : malloc(len);
	if (got < 0)
		rc = (int)got;
	else if (!buf)
		rc = -ENOMEM;
	else if ((got = fdw_pread_full(fd, buf, len, offset)) < 0)
		rc = (int)got;
	else
		rc = fdw_luks2_peek_buf(buf, (size_t)got, out);
	free(buf);
	close(fd);
	return rc;
}

int fdw_luks2_peek(const char *path, uint64_t offset, uint64_t size, struct fdw_luks2_peek *out)
{
	int rc, tries = 0;

	/* A writer puts one copy down at a time: a moment later one of them is whole again. */
	while ((rc = peek_once(path, offset, size, out)) == -EAGAIN && ++tries < 5)
		usleep(20000);
	return rc;
}

void fdw_luks2_peek_release(struct fdw_luks2_peek *p)
{
	if (p->json)
		json_object_put(p->json);
	p->json = NULL;
}

bool fdw_luks2_peek_has_uuid(const char *path, const char *uuid)
{
	struct fdw_luks2_peek pk;
	bool same;

	if (fdw_luks2_peek(path, 0, 0, &pk) != 0)
		return false;
	same = !strcmp(pk.uuid, uuid);
	fdw_luks2_peek_release(&pk);
	return same;
}
