/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The end window of an in-place encryption, recognised and rewritten in the LUKS2 metadata. */
#ifndef FDW_LUKS2_FINAL_H
#define FDW_LUKS2_FINAL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * What the end-window header holds (see final_window.c for the whole story): every
 * hotzone is encrypted, the header is not finalised yet.
 */
struct fdw_final_window {
	char uuid[40];
	char cipher[32];
	char mode[64];
	unsigned sector_size;
	uint64_t data_offset;	/* bytes: where the final crypt segment starts */
	bool datashift;		/* resilience: datashift (header on the device) or other */
	bool moved;		/* a "backup-moved-segment" is recorded */
	uint64_t moved_offset;	/* bytes: the stale plaintext copy, to be wiped */
	uint64_t moved_size;
	int user_keyslots;	/* "luks2" keyslots besides the reencryption one */
	json_object *final;	/* the "backup-final" segment without its flags */
};

/*
 * Does @json (a LUKS2 header's JSON metadata) describe the end window? Returns 1 and
 * fills @fw (all but the UUID; release it), 0 when it does not (every field that differs
 * from the end window says no), or -ENOMEM.
 */
int fdw_final_window_parse(const char *json, struct fdw_final_window *fw);
void fdw_final_window_release(struct fdw_final_window *fw);

/*
 * The window header's JSON turned into the finished one, as libcryptsetup's last step
 * would leave it: only the data segment (as "0"), no reencryption keyslot nor its digest,
 * digests bound to segment "0", no online-reencrypt requirement, the keyslot area ending
 * where the data starts. @hdr_size: the binary header's size. NULL when @json is not the
 * window @fw was parsed from.
 */
json_object *fdw_final_window_json(const char *json, uint64_t hdr_size,
				   const struct fdw_final_window *fw);

/*
 * Where the reencryption keyslot keeps its resilience data in @json: true with @off and
 * @len when that area lies between the two binary headers' end and @fw->data_offset.
 */
bool fdw_final_window_reencrypt_area(const char *json, uint64_t hdr_size,
				     const struct fdw_final_window *fw, uint64_t *off,
				     uint64_t *len);

/*
 * Put @json and @seqid into the binary header at @off of @fd (of @hdr_size bytes), with a
 * new sha256 checksum; the rest of the header stays. -EINVAL when the header found there
 * is not of that size or checksum kind, or the JSON does not fit.
 */
int fdw_luks2_write_hdr(int fd, uint64_t off, uint64_t hdr_size, const char *json,
			uint64_t seqid);

/* LUKS2 binary header fields (big-endian), as the on-disk format defines them. */
#define FDW_LUKS2_HDR_SIZE_AT 8
#define FDW_LUKS2_HDR_SEQID_AT 16

#endif
