/* In-place LUKS2 encryption through libcryptsetup's reencryption with datashift resilience. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libcryptsetup.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "durable.h"
#include "job.h"
#include "log.h"

#define SECTOR 512ULL

static void cryptsetup_log(int level, const char *msg, void *usrptr)
{
	size_t len = strlen(msg);
	char line[1024];

	(void)usrptr;
	/* libcryptsetup ends its messages with a newline; the log adds its own. */
	snprintf(line, sizeof(line), "%.*s", (int)(len && msg[len - 1] == '\n' ? len - 1 : len),
		 msg);
	fdw_log(level == CRYPT_LOG_ERROR ? FDW_LOG_ERROR :
		level == CRYPT_LOG_DEBUG ? FDW_LOG_DEBUG : FDW_LOG_INFO, "libcryptsetup: %s", line);
}

static int crypt_open_device(struct crypt_device **cd, const char *header, const char *data)
{
	int rc = data ? crypt_init_data_device(cd, header, data) : crypt_init(cd, header);

	if (!rc)
		crypt_set_log_callback(*cd, cryptsetup_log, NULL);
	return rc;
}

/* The temporary header: a private file in the work directory, never on the device. */
static int make_temp_header(const char *work_dir, char *path, size_t len)
{
	int fd;

	if (snprintf(path, len, "%s/fdewiz-header-XXXXXX", work_dir) >= (int)len)
		return -ENAMETOOLONG;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	/* libcryptsetup wants at least one sector to recognise a file as a device. */
	if (posix_fallocate(fd, 0, 4096) != 0) {
		close(fd);
		unlink(path);
		return -ENOSPC;
	}
	close(fd);
	return 0;
}

/* Format the header (cipher, UUID, sector size) and add the passphrase's keyslot. */
static int format_with_keyslot(struct crypt_device *cd, const struct fdw_convert_params *p,
			       const struct fdw_secret *pass, struct crypt_params_luks2 *luks2,
			       int *keyslot)
{
	struct crypt_pbkdf_type fast = { .type = CRYPT_KDF_PBKDF2, .hash = "sha256",
					 .iterations = 1000,
					 .flags = CRYPT_PBKDF_NO_BENCHMARK };
	int rc = 0;

	if (p->fast_pbkdf)
		rc = crypt_set_pbkdf_type(cd, &fast);
	if (!rc)
		rc = crypt_format(cd, CRYPT_LUKS2, p->cipher, p->cipher_mode, p->uuid, NULL,
				  p->key_bits / 8, luks2);
	if (rc)
		return rc;
	rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0, pass->data, pass->len);
	if (rc < 0)
		return rc;
	*keyslot = rc;
	/* Now or only after the conversion: libcryptsetup locks keyslots while it runs. */
	if (p->recovery_key) {
		rc = crypt_keyslot_add_by_volume_key(cd, CRYPT_ANY_SLOT, NULL, 0,
						     p->recovery_key->data,
						     p->recovery_key->len);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int format_temp_header(const struct fdw_convert_params *p, const char *tmp,
			      const struct fdw_secret *pass, int *keyslot)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size ? p->sector_size : 512 };
	struct crypt_params_reencrypt rp = {
		.mode = CRYPT_REENCRYPT_ENCRYPT,
		/* The data moves towards the start, so it is walked from the end. */
		.direction = CRYPT_REENCRYPT_BACKWARD,
		.resilience = "datashift",
		.data_shift = FDW_DATA_SHIFT_BYTES / 2 / SECTOR,
		.luks2 = &luks2,
		.flags = CRYPT_REENCRYPT_INITIALIZE_ONLY | CRYPT_REENCRYPT_MOVE_FIRST_SEGMENT,
	};
	struct crypt_device *cd = NULL;
	int rc;

	rc = crypt_open_device(&cd, tmp, p->device);
	if (rc)
		return rc;
	/* The header takes the first half of the shift; the first data segment moves there. */
	rc = crypt_set_data_offset(cd, FDW_DATA_SHIFT_BYTES / 2 / SECTOR);
	if (!rc)
		rc = format_with_keyslot(cd, p, pass, &luks2, keyslot);
	if (!rc)
		rc = crypt_reencrypt_init_by_passphrase(cd, NULL, pass->data, pass->len,
							CRYPT_ANY_SLOT, *keyslot, p->cipher,
							p->cipher_mode, &rp);
	if (rc > 0)
		rc = 0;
	crypt_free(cd);
	return rc;
}

/*
 * Detached header: no data moves, so there is no datashift; the hotzone is protected
 * by checksums instead. The header file is created here and must not exist yet.
 */
static int init_detached(const struct fdw_convert_params *p, const struct fdw_secret *pass)
{
	struct crypt_params_luks2 luks2 = { .sector_size = p->sector_size ? p->sector_size : 512 };
	struct crypt_params_reencrypt rp = {
		.mode = CRYPT_REENCRYPT_ENCRYPT,
		.direction = CRYPT_REENCRYPT_FORWARD,
		.resilience = "checksum",
		.hash = "sha256",
		.luks2 = &luks2,
		.flags = CRYPT_REENCRYPT_INITIALIZE_ONLY,
	};
	struct crypt_device *cd = NULL;
	int fd, keyslot, rc;

	fd = open(p->detached_header, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = posix_fallocate(fd, 0, 4096) ? -ENOSPC : 0;
	close(fd);
	if (!rc)
		rc = crypt_open_device(&cd, p->detached_header, p->device);
	if (!rc)
		rc = crypt_set_data_offset(cd, 0);
	if (!rc)
		rc = format_with_keyslot(cd, p, pass, &luks2, &keyslot);
	if (!rc)
		rc = crypt_reencrypt_init_by_passphrase(cd, NULL, pass->data, pass->len,
							CRYPT_ANY_SLOT, keyslot, p->cipher,
							p->cipher_mode, &rp);
	if (rc > 0)
		rc = 0;
	if (!rc)
		rc = crypt_header_backup(cd, CRYPT_LUKS2, p->header_backup);
	crypt_free(cd);
	if (!rc)
		rc = fdw_sync_path(p->header_backup);
	if (!rc)
		rc = fdw_sync_path(p->detached_header);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not prepare the detached header %s: %s",
			p->detached_header, strerror(-rc));
		unlink(p->detached_header);
	}
	return rc;
}

int fdw_convert_init(const struct fdw_convert_params *p, const struct fdw_secret *pass)
{
	char tmp[PATH_MAX];
	struct crypt_device *cd = NULL;
	int keyslot = -1, rc;

	if (p->detached_header)
		return init_detached(p, pass);

	rc = make_temp_header(p->work_dir, tmp, sizeof(tmp));
	if (rc)
		return rc;
	rc = format_temp_header(p, tmp, pass, &keyslot);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not prepare the LUKS2 header: %s", strerror(-rc));
		goto out;
	}
	/* The backup is taken from the finished temporary header, before the device changes. */
	rc = crypt_open_device(&cd, tmp, NULL);
	if (!rc)
		rc = crypt_header_backup(cd, CRYPT_LUKS2, p->header_backup);
	crypt_free(cd);
	cd = NULL;
	/* libcryptsetup does not fsync it; a power cut must not take the backup along. */
	if (!rc)
		rc = fdw_sync_path(p->header_backup);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "could not write the header backup %s: %s", p->header_backup,
			strerror(-rc));
		goto out;
	}
	/* First write to the device: the header goes where the first data segment was. */
	rc = crypt_open_device(&cd, p->device, NULL);
	if (!rc)
		rc = crypt_header_restore(cd, CRYPT_LUKS2, tmp);
	crypt_free(cd);
	if (rc)
		fdw_log(FDW_LOG_ERROR, "could not place the header on %s: %s", p->device,
			strerror(-rc));
out:
	unlink(tmp);
	return rc;
}

struct progress_bridge {
	fdw_convert_progress_fn fn;
	void *ctx;
};

/* tests/root/test-encrypt-final-window.sh stops here by name when offset == size. */
static int progress_bridge_cb(uint64_t size, uint64_t offset, void *usrptr)
{
	struct progress_bridge *b = usrptr;

	return b->fn ? b->fn(offset, size, b->ctx) : 0;
}

/* Load the volume's header: from the detached file or the device itself. */
static int load_volume(struct crypt_device **cd, const struct fdw_volume *v)
{
	int rc = v->header ? crypt_open_device(cd, v->header, v->device)
			   : crypt_open_device(cd, v->device, NULL);

	if (!rc)
		rc = crypt_load(*cd, CRYPT_LUKS2, NULL);
	if (rc) {
		crypt_free(*cd);
		*cd = NULL;
	}
	return rc;
}

/*
 * The end window of an in-place encryption.
 *
 * After each hotzone libcryptsetup commits the header; only afterwards, in a separate
 * step (reencrypt_teardown_ok()), does it finalise it: wipe the plaintext copy of the
 * first data chunk kept at the end of the device ("backup-moved-segment"), drop the
 * backup segments and the online-reencrypt requirement, and destroy the reencryption
 * keyslot. A kill between the commit of the last hotzone and that step leaves a header
 * whose only data segment already is the final crypt segment. libcryptsetup 2.6.1 (the
 * code is the same up to 2.8.6) cannot resume from there: reencrypt_context_init() in
 * lib/luks2/luks2_reencrypt.c takes a lone segment for "the hotzone at offset 0 is still
 * to do" (reencrypt_offset_backward_moved()), sets progress to size - shift, and
 * crypt_reencrypt_run() then finds no segments for that hotzone and fails with "Failed to
 * set device segments for next reencryption hotzone". The cryptsetup program fails the
 * same way, and no public call clears the requirement of such a header.
 *
 * With a detached header (checksum resilience, walked forwards) the same window is worse:
 * _offset_forward() maps a lone segment to offset 0 and progress 0, so a resume encrypts
 * the whole, already encrypted, device a second time and reports success.
 *
 * So the finalising step is done here: the header is recognised field by field, kept
 * aside, the stale plaintext copy is wiped as libcryptsetup would have, and a header
 * holding exactly what the finished conversion would hold replaces it: the
 * "backup-final" segment (same cipher, sector size and data offset), the same UUID and
 * volume key, no requirement. With one keyslot it is made with public calls only (the
 * passphrase again, with the same PBKDF cost); with more (a recovery key, whose secret is
 * not at hand) the keyslots are kept byte for byte and only the JSON is rewritten, as
 * reencrypt_teardown_ok() would. Either way libcryptsetup loads and proves the new
 * header (passphrase, volume key, segment, keyslots) before it is written to the device.
 */
struct final_window {
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

static const char *fw_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool fw_str_is(json_object *o, const char *key, const char *want)
{
	const char *s = fw_str(o, key);

	return s && !strcmp(s, want);
}

/* LUKS2 keeps offsets and sizes as decimal strings. */
static bool fw_u64(json_object *o, const char *key, uint64_t *out)
{
	const char *s = fw_str(o, key);
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end;
}

static bool fw_has_flag(json_object *seg, const char *flag)
{
	json_object *flags;
	size_t i;

	if (!json_object_object_get_ex(seg, "flags", &flags) ||
	    !json_object_is_type(flags, json_type_array))
		return false;
	for (i = 0; i < json_object_array_length(flags); i++) {
		const char *f = json_object_get_string(json_object_array_get_idx(flags, i));

		if (f && !strcmp(f, flag))
			return true;
	}
	return false;
}

static bool fw_requirement_reencrypt(json_object *root)
{
	json_object *cfg, *reqs, *mand;
	size_t i;

	if (!json_object_object_get_ex(root, "config", &cfg) ||
	    !json_object_object_get_ex(cfg, "requirements", &reqs) ||
	    !json_object_object_get_ex(reqs, "mandatory", &mand) ||
	    !json_object_is_type(mand, json_type_array))
		return false;
	for (i = 0; i < json_object_array_length(mand); i++) {
		const char *r = json_object_get_string(json_object_array_get_idx(mand, i));

		if (r && !strncmp(r, "online-reencrypt", 16))
			return true;
	}
	return false;
}

/* The segments: one plain data segment equal to "backup-final", maybe the moved copy. */
static bool fw_segments(json_object *root, struct final_window *fw)
{
	json_object *segs, *data = NULL, *final = NULL, *moved = NULL, *area, *flags;
	const char *enc, *dash;
	int64_t sector;
	int n_data = 0;

	if (!json_object_object_get_ex(root, "segments", &segs) ||
	    !json_object_is_type(segs, json_type_object))
		return false;
	json_object_object_foreach(segs, key, seg) {
		(void)key;
		if (!json_object_is_type(seg, json_type_object))
			return false;
		if (fw_has_flag(seg, "backup-final"))
			final = seg;
		else if (fw_has_flag(seg, "backup-moved-segment"))
			moved = seg;
		else if (fw_has_flag(seg, "backup-previous"))
			continue;
		else if (json_object_object_get_ex(seg, "flags", &flags) &&
			 (!json_object_is_type(flags, json_type_array) ||
			  json_object_array_length(flags) > 0))
			return false;	/* "in-reencryption" or unknown: not this state */
		else {
			data = seg;
			n_data++;
		}
	}
	if (n_data != 1 || !final || !fw_str_is(data, "type", "crypt") ||
	    !fw_u64(data, "offset", &fw->data_offset))
		return false;
	fw->moved = moved != NULL;
	if (moved && (!fw_str_is(moved, "type", "linear") ||
		      !fw_u64(moved, "offset", &fw->moved_offset) ||
		      !fw_u64(moved, "size", &fw->moved_size)))
		return false;
	if (json_object_deep_copy(final, &fw->final, NULL) != 0)
		return false;
	json_object_object_del(fw->final, "flags");
	/* The hotzones are done exactly when the data segment is the final one. */
	if (!json_object_equal(fw->final, data))
		return false;
	enc = fw_str(data, "encryption");
	dash = enc ? strchr(enc, '-') : NULL;
	if (!dash || dash == enc || (size_t)(dash - enc) >= sizeof(fw->cipher) ||
	    strlen(dash + 1) >= sizeof(fw->mode))
		return false;
	snprintf(fw->cipher, sizeof(fw->cipher), "%.*s", (int)(dash - enc), enc);
	snprintf(fw->mode, sizeof(fw->mode), "%s", dash + 1);
	if (!json_object_object_get_ex(data, "sector_size", &area))
		return false;
	sector = json_object_get_int64(area);
	if (sector != 512 && sector != 1024 && sector != 2048 && sector != 4096)
		return false;
	fw->sector_size = (unsigned)sector;
	return true;
}

/* The keyslots: one reencryption keyslot of an encryption, and the others. */
static bool fw_keyslots(json_object *root, struct final_window *fw)
{
	json_object *kss, *area;
	int n_reenc = 0;

	if (!json_object_object_get_ex(root, "keyslots", &kss) ||
	    !json_object_is_type(kss, json_type_object))
		return false;
	json_object_object_foreach(kss, key, ks) {
		(void)key;
		if (!json_object_is_type(ks, json_type_object))
			return false;
		if (fw_str_is(ks, "type", "luks2")) {
			fw->user_keyslots++;
			continue;
		}
		if (!fw_str_is(ks, "type", "reencrypt") || !fw_str_is(ks, "mode", "encrypt") ||
		    !json_object_object_get_ex(ks, "area", &area))
			return false;
		/* Datashift encryption walks backwards; other kinds move no data. */
		fw->datashift = fw_str_is(area, "type", "datashift");
		if (fw->datashift && !fw_str_is(ks, "direction", "backward"))
			return false;
		n_reenc++;
	}
	return n_reenc == 1;
}

static void final_window_release(struct final_window *fw)
{
	json_object_put(fw->final);
	fw->final = NULL;
}

/* Does the LUKS2 JSON text @json describe the end window? 1 (@fw filled), 0, or -ENOMEM. */
static int final_window_parse(const char *json, struct final_window *fw)
{
	json_object *root = json_tokener_parse(json);
	bool found;

	memset(fw, 0, sizeof(*fw));
	if (!root)
		return -ENOMEM;
	/* Every level is checked for its type: json-c's object calls assume an object. */
	found = json_object_is_type(root, json_type_object) && fw_requirement_reencrypt(root) &&
		fw_keyslots(root, fw) && fw_segments(root, fw) && fw->datashift == fw->moved;
	json_object_put(root);
	if (!found)
		final_window_release(fw);
	return found;
}

int fdw_convert_end_window_json(const char *json)
{
	struct final_window fw;
	int rc = final_window_parse(json, &fw);

	final_window_release(&fw);
	return rc;
}

/* Is @cd's header in the end window? 1 (and @fw filled), 0 when not, or -errno. */
static int final_window_detect(struct crypt_device *cd, struct final_window *fw)
{
	const char *json, *uuid;
	int found;

	memset(fw, 0, sizeof(*fw));
	if (crypt_dump_json(cd, &json, 0) < 0)
		return 0;
	found = final_window_parse(json, fw);
	if (found < 0)
		return found;
	uuid = crypt_get_uuid(cd);
	if (found && uuid && strlen(uuid) < sizeof(fw->uuid)) {
		snprintf(fw->uuid, sizeof(fw->uuid), "%s", uuid);
		return 1;
	}
	final_window_release(fw);
	return 0;
}

/* Does the header at @path hold what the finished conversion holds, with key @vk? */
static int final_window_check(const char *path, const char *data_device,
			      const struct final_window *fw, const struct fdw_secret *vk,
			      const struct fdw_secret *pass)
{
	struct fdw_volume v = { .device = path, .header = NULL };
	struct crypt_device *cd = NULL;
	struct fdw_secret *got = NULL;
	json_object *root = NULL, *segs, *seg = NULL, *kss;
	const char *json;
	size_t len;
	int rc, slot;

	if (data_device) {
		v.device = data_device;
		v.header = path;
	}
	rc = load_volume(&cd, &v);
	if (!rc && crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE)
		rc = -EUCLEAN;
	if (!rc && (!crypt_get_uuid(cd) || strcmp(crypt_get_uuid(cd), fw->uuid) ||
		    crypt_get_data_offset(cd) * SECTOR != fw->data_offset))
		rc = -EUCLEAN;
	if (!rc)
		rc = crypt_dump_json(cd, &json, 0) < 0 ? -EIO : 0;
	if (!rc) {
		root = json_tokener_parse(json);
		/* Exactly one segment, equal to the one the conversion meant to end with,
		 * and every keyslot but the reencryption one. */
		if (!root || !json_object_object_get_ex(root, "segments", &segs) ||
		    json_object_object_length(segs) != 1 ||
		    !json_object_object_get_ex(segs, "0", &seg) ||
		    !json_object_equal(seg, fw->final) ||
		    !json_object_object_get_ex(root, "keyslots", &kss) ||
		    json_object_object_length(kss) != fw->user_keyslots)
			rc = -EUCLEAN;
	}
	if (!rc)
		rc = fdw_secret_new(&got, vk->cap);
	if (!rc) {
		len = got->cap;
		slot = crypt_volume_key_get(cd, CRYPT_ANY_SLOT, got->data, &len, pass->data,
					    pass->len);
		got->len = len;
		if (slot < 0)
			rc = slot;
		else if (!fdw_secret_equal(got, vk))
			rc = -EUCLEAN;
	}
	fdw_secret_free(got);
	json_object_put(root);
	crypt_free(cd);
	return rc;
}

/* Write the finished conversion's header for @fw into a new file at @path. */
static int final_window_build(struct crypt_device *cd, const char *path, const char *device,
			      const struct final_window *fw, int slot,
			      const struct fdw_secret *vk, const struct fdw_secret *pass)
{
	struct crypt_params_luks2 luks2 = { .sector_size = fw->sector_size };
	struct crypt_pbkdf_type pbkdf;
	struct crypt_device *nd = NULL;
	uint64_t md_size, ks_size;
	const char *label;
	int fd, rc;

	unlink(path);
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = posix_fallocate(fd, 0, 4096) ? -ENOSPC : 0;
	close(fd);
	/* The same PBKDF and cost as the keyslot the passphrase opened, without a benchmark. */
	if (!rc)
		rc = crypt_keyslot_get_pbkdf(cd, slot, &pbkdf);
	if (!rc)
		rc = crypt_get_metadata_size(cd, &md_size, &ks_size);
	if (!rc)
		rc = crypt_open_device(&nd, path, device);
	if (!rc) {
		pbkdf.flags |= CRYPT_PBKDF_NO_BENCHMARK;
		rc = crypt_set_pbkdf_type(nd, &pbkdf);
	}
	if (!rc)
		rc = crypt_set_metadata_size(nd, md_size, ks_size);
	if (!rc)
		rc = crypt_set_data_offset(nd, fw->data_offset / SECTOR);
	if (!rc)
		rc = crypt_format(nd, CRYPT_LUKS2, fw->cipher, fw->mode, fw->uuid, vk->data,
				  vk->len, &luks2);
	if (!rc) {
		rc = crypt_keyslot_add_by_volume_key(nd, slot, vk->data, vk->len, pass->data,
						     pass->len);
		rc = rc == slot ? 0 : rc < 0 ? rc : -EIO;
	}
	label = crypt_get_label(cd);
	if (!rc && label && *label)
		rc = crypt_set_label(nd, label, crypt_get_subsystem(cd));
	crypt_free(nd);
	if (!rc)
		rc = fdw_sync_path(path);
	return rc;
}

/* LUKS2 binary header fields (big-endian), as the on-disk format defines them. */
#define HDR_SIZE_AT 8
#define HDR_SEQID_AT 16
#define HDR_CSUM_ALG_AT 72
#define HDR_CSUM_AT 448
#define HDR_CSUM_LEN 64

static uint64_t fw_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void fw_put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

/*
 * The window header's JSON turned into the finished one, as reencrypt_teardown_ok()
 * would leave it: only the data segment (as "0"), no reencryption keyslot nor its digest,
 * digests bound to the data segment, no online-reencrypt requirement.
 */
static json_object *fw_final_json(const char *json, uint64_t hdr_size,
				  const struct final_window *fw)
{
	json_object *root = json_tokener_parse(json), *segs, *kss, *digs, *cfg, *reqs, *mand;
	json_object *nsegs = NULL, *nmand, *data = NULL;
	char data_id[16] = "", final_id[16] = "", reenc_id[16] = "", num[32];

	if (!root || !json_object_object_get_ex(root, "segments", &segs) ||
	    !json_object_object_get_ex(root, "keyslots", &kss) ||
	    !json_object_object_get_ex(root, "digests", &digs) ||
	    !json_object_object_get_ex(root, "config", &cfg))
		goto bad;
	json_object_object_foreach(segs, sk, seg) {
		if (fw_has_flag(seg, "backup-final"))
			snprintf(final_id, sizeof(final_id), "%s", sk);
		else if (json_object_equal(seg, fw->final)) {
			snprintf(data_id, sizeof(data_id), "%s", sk);
			data = seg;
		}
	}
	json_object_object_foreach(kss, kk, ks) {
		if (fw_str_is(ks, "type", "reencrypt"))
			snprintf(reenc_id, sizeof(reenc_id), "%s", kk);
	}
	if (!data || !*final_id || !*reenc_id)
		goto bad;
	nsegs = json_object_new_object();
	if (!nsegs || json_object_object_add(nsegs, "0", json_object_get(data)))
		goto bad;
	json_object_object_add(root, "segments", nsegs);
	nsegs = NULL;
	json_object_object_del(kss, reenc_id);
	/* Digests: drop the reencryption keyslot; bind the volume key's to segment "0". */
	for (;;) {
		const char *drop = NULL;

		json_object_object_foreach(digs, dk, dig) {
			json_object *dks, *dss, *nks, *nss;
			bool bound = false;
			size_t i;

			if (!json_object_object_get_ex(dig, "keyslots", &dks) ||
			    !json_object_object_get_ex(dig, "segments", &dss))
				goto bad;
			nks = json_object_new_array();
			nss = json_object_new_array();
			for (i = 0; i < json_object_array_length(dks); i++) {
				json_object *k = json_object_array_get_idx(dks, i);

				if (strcmp(json_object_get_string(k), reenc_id))
					json_object_array_add(nks, json_object_get(k));
			}
			for (i = 0; i < json_object_array_length(dss); i++) {
				const char *sid = json_object_get_string(json_object_array_get_idx(dss, i));

				bound |= !strcmp(sid, data_id) || !strcmp(sid, final_id);
			}
			if (bound)
				json_object_array_add(nss, json_object_new_string("0"));
			json_object_object_add(dig, "keyslots", nks);
			json_object_object_add(dig, "segments", nss);
			if (!json_object_array_length(nks)) {
				drop = dk;
				break;
			}
		}
		if (!drop)
			break;
		json_object_object_del(digs, drop);
	}
	if (json_object_object_get_ex(cfg, "requirements", &reqs) &&
	    json_object_object_get_ex(reqs, "mandatory", &mand)) {
		nmand = json_object_new_array();
		for (size_t i = 0; i < json_object_array_length(mand); i++) {
			json_object *r = json_object_array_get_idx(mand, i);

			if (strncmp(json_object_get_string(r), "online-reencrypt", 16))
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
	/* The keyslot area ends where the data starts, as the library sets it when done. */
	snprintf(num, sizeof(num), "%llu", (unsigned long long)(fw->data_offset - 2 * hdr_size));
	json_object_object_add(cfg, "keyslots_size", json_object_new_string(num));
	return root;
bad:
	json_object_put(nsegs);
	json_object_put(root);
	return NULL;
}

/* Put @json and seqid @seqid into the binary header at @off of @fd, with a new checksum. */
static int fw_write_hdr(int fd, uint64_t off, uint64_t hdr_size, const char *json,
			uint64_t seqid)
{
	unsigned char *buf = calloc(1, hdr_size);
	unsigned int md_len = 0;
	size_t jlen = strlen(json);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	if (pread(fd, buf, 4096, (off_t)off) != 4096 || fw_be64(buf + HDR_SIZE_AT) != hdr_size ||
	    strcmp((const char *)buf + HDR_CSUM_ALG_AT, "sha256") || jlen >= hdr_size - 4096)
		rc = -EINVAL;
	if (!rc) {
		fw_put_be64(buf + HDR_SEQID_AT, seqid);
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

/*
 * The finished header with every keyslot kept byte for byte (a recovery key's too, whose
 * secret is not at hand): a backup of the window header with its JSON rewritten as the
 * library's final step would. No public call edits a header under the online-reencrypt
 * requirement, so both binary headers are written here; libcryptsetup then loads,
 * validates and proves the result before it goes anywhere near the device.
 */
static int final_window_build_keep(struct crypt_device *cd, const char *path,
				   const struct final_window *fw)
{
	unsigned char bin[4096];
	json_object *fin = NULL, *kss, *ks_re = NULL;
	const char *json, *text;
	uint64_t hdr_size, seqid, area_off = 0, area_len = 0;
	int fd = -1, rc;

	unlink(path);
	rc = crypt_header_backup(cd, CRYPT_LUKS2, path);
	if (!rc)
		rc = crypt_dump_json(cd, &json, 0) < 0 ? -EIO : 0;
	if (!rc) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 || pread(fd, bin, sizeof(bin), 0) != (ssize_t)sizeof(bin))
			rc = -EIO;
	}
	if (!rc) {
		hdr_size = fw_be64(bin + HDR_SIZE_AT);
		seqid = fw_be64(bin + HDR_SEQID_AT);
		if (hdr_size < 16384 || hdr_size > 4 * 1024 * 1024 || hdr_size & 4095 ||
		    2 * hdr_size > fw->data_offset)
			rc = -EINVAL;
	}
	/* The reencryption keyslot's area (resilience data) is wiped as destroying it would. */
	if (!rc) {
		json_object *root = json_tokener_parse(json), *area;

		if (root && json_object_object_get_ex(root, "keyslots", &kss)) {
			json_object_object_foreach(kss, kk, ks) {
				(void)kk;
				if (fw_str_is(ks, "type", "reencrypt"))
					ks_re = ks;
			}
		}
		if (!ks_re || !json_object_object_get_ex(ks_re, "area", &area) ||
		    !fw_u64(area, "offset", &area_off) || !fw_u64(area, "size", &area_len) ||
		    area_off < 2 * hdr_size || area_off + area_len > fw->data_offset)
			rc = -EINVAL;
		json_object_put(root);
	}
	if (!rc) {
		fin = fw_final_json(json, hdr_size, fw);
		text = fin ? json_object_to_json_string_ext(fin, JSON_C_TO_STRING_PLAIN) : NULL;
		rc = text ? 0 : -EINVAL;
	}
	if (!rc) {
		void *zero = calloc(1, area_len);

		if (!zero || pwrite(fd, zero, area_len, (off_t)area_off) != (ssize_t)area_len)
			rc = -EIO;
		free(zero);
	}
	if (!rc)
		rc = fw_write_hdr(fd, 0, hdr_size, text, seqid + 1);
	if (!rc)
		rc = fw_write_hdr(fd, hdr_size, hdr_size, text, seqid + 1);
	if (!rc && fsync(fd) != 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	json_object_put(fin);
	return rc;
}

/*
 * Finish a conversion found in the end window: keep the current header, wipe the moved
 * copy, put the final header in place and prove it. Until the last step the header on
 * the device is the one found, so a crash anywhere here is met by the same fix again.
 */
static int final_window_finish(struct crypt_device *cd, const struct fdw_volume *v,
			       const struct fdw_secret *pass, const struct final_window *fw)
{
	char kept[PATH_MAX], fresh[PATH_MAX], building[PATH_MAX + 8], keeping[PATH_MAX + 8];
	struct fdw_secret *vk = NULL;
	size_t len;
	int slot, rc;

	fdw_log(FDW_LOG_WARN, "%s: every hotzone is encrypted but the header was not finalised "
		"(interrupted in libcryptsetup's last step, which it cannot resume); finishing it "
		"here", v->device);
	rc = fdw_state_dir_ensure();
	if (!rc && (snprintf(kept, sizeof(kept), "%s/%s-final-window.hdr", fdw_state_dir(),
			     fw->uuid) >= (int)sizeof(kept) ||
		    snprintf(fresh, sizeof(fresh), "%s/%s-final.hdr", fdw_state_dir(),
			     fw->uuid) >= (int)sizeof(fresh)))
		rc = -ENAMETOOLONG;
	snprintf(building, sizeof(building), "%s.new", fresh);
	snprintf(keeping, sizeof(keeping), "%s.new", kept);
	if (!rc)
		rc = fdw_secret_new(&vk, 512);
	if (rc)
		goto out;
	len = vk->cap;
	slot = crypt_volume_key_get(cd, CRYPT_ANY_SLOT, vk->data, &len, pass->data, pass->len);
	if (slot < 0) {
		rc = slot == -ENOENT ? -EPERM : slot;
		goto out;
	}
	vk->len = len;
	/* 1: the header as found, beside the job's records, before anything changes. */
	unlink(keeping);
	rc = crypt_header_backup(cd, CRYPT_LUKS2, keeping);
	if (!rc && rename(keeping, kept) != 0)
		rc = -errno;
	if (!rc)
		rc = fdw_sync_path(kept);
	if (rc) {
		unlink(keeping);
		fdw_log(FDW_LOG_ERROR, "%s: could not keep the current header in %s: %s; nothing "
			"was changed", v->device, kept, strerror(-rc));
		goto out;
	}
	/* 2: the final header, built and proven in a file; only a proven one gets its name. */
	/*
	 * One keyslot: a new header through the public calls. More (a recovery key): their
	 * secrets are not at hand, so the header is kept and only its JSON rewritten.
	 */
	if (fw->user_keyslots == 1)
		rc = final_window_build(cd, building, v->device, fw, slot, vk, pass);
	else
		rc = final_window_build_keep(cd, building, fw);
	if (!rc)
		rc = final_window_check(building, v->device, fw, vk, pass);
	if (!rc && rename(building, fresh) != 0)
		rc = -errno;
	if (!rc)
		rc = fdw_sync_path(fresh);
	if (rc) {
		unlink(building);
		fdw_log(FDW_LOG_ERROR, "%s: could not build the final header: %s; nothing was "
			"changed", v->device, strerror(-rc));
		goto out;
	}
	/* 3: the plaintext copy of the first chunk is stale; wipe it as libcryptsetup does. */
	if (fw->moved)
		rc = crypt_wipe(cd, NULL, CRYPT_WIPE_RANDOM, fw->moved_offset, fw->moved_size,
				1024 * 1024, 0, NULL, NULL);
	if (!rc && fw->moved)
		rc = fdw_sync_path(v->device);
	if (rc) {
		fdw_log(FDW_LOG_ERROR, "%s: could not wipe the stale copy at %llu: %s; the header "
			"was not changed", v->device, (unsigned long long)fw->moved_offset,
			strerror(-rc));
		goto out;
	}
	/* 4: the commit point. */
	rc = crypt_header_restore(cd, CRYPT_LUKS2, fresh);
	if (!rc)
		rc = fdw_sync_path(v->header ? v->header : v->device);
	if (!rc)
		rc = final_window_check(v->header ? v->header : v->device,
					v->header ? v->device : NULL, fw, vk, pass);
	if (rc)
		fdw_log(FDW_LOG_ERROR, "%s: writing the final header failed: %s. All data is "
			"encrypted; the header as found is in %s, the final one (proven to open "
			"with this passphrase) in %s: put that one back with 'fdewiz "
			"header-restore' if the passphrase no longer opens the volume",
			v->device, strerror(-rc), kept, fresh);
	else
		fdw_log(FDW_LOG_INFO, "%s: final header in place (the header as found is kept in "
			"%s)", v->device, kept);
out:
	fdw_secret_free(vk);
	return rc;
}

int fdw_convert_run(const struct fdw_volume *v, const struct fdw_secret *pass,
		    fdw_convert_progress_fn progress, void *ctx)
{
	struct crypt_params_reencrypt rp = { 0 };
	struct progress_bridge bridge = { progress, ctx };
	struct crypt_device *cd = NULL;
	crypt_reencrypt_info info;
	int rc, stopped = 0;

	rc = load_volume(&cd, v);
	if (rc)
		goto out;
	info = crypt_reencrypt_status(cd, &rp);
	if (info == CRYPT_REENCRYPT_NONE) {
		rc = 0;	/* nothing recorded: already complete */
		goto out;
	}
	if (info == CRYPT_REENCRYPT_INVALID) {
		rc = -EINVAL;
		goto out;
	}
	if (info == CRYPT_REENCRYPT_CRASH) {
		/* Replays the hotzone from the resilience data; needs the volume key. */
		fdw_log(FDW_LOG_INFO, "%s: repairing after an interrupted run", v->device);
		rc = crypt_reencrypt_init_by_passphrase(cd, v->active_name, pass->data, pass->len,
							CRYPT_ANY_SLOT, CRYPT_ANY_SLOT, NULL, NULL,
							&(struct crypt_params_reencrypt){
								.flags = CRYPT_REENCRYPT_RECOVERY });
		if (rc < 0)
			goto out;
		crypt_free(cd);
		rc = load_volume(&cd, v);
		if (rc)
			goto out;
		/* The replayed hotzone may have been the last one: see the end window below. */
		info = crypt_reencrypt_status(cd, NULL);
		if (info == CRYPT_REENCRYPT_NONE)
			goto out;
	}
	/* libcryptsetup cannot resume the end window; it is finished here (see above). */
	if (info == CRYPT_REENCRYPT_CLEAN) {
		struct final_window fw;

		rc = final_window_detect(cd, &fw);
		if (rc == 1) {
			rc = final_window_finish(cd, v, pass, &fw);
			final_window_release(&fw);
			goto out;
		}
		if (rc < 0)
			goto out;
	}
	rp = (struct crypt_params_reencrypt){ .flags = CRYPT_REENCRYPT_RESUME_ONLY };
	rc = crypt_reencrypt_init_by_passphrase(cd, v->active_name, pass->data, pass->len, CRYPT_ANY_SLOT,
						CRYPT_ANY_SLOT, NULL, NULL, &rp);
	if (rc < 0)
		goto out;
	rc = crypt_reencrypt_run(cd, progress_bridge_cb, &bridge);
	if (rc == 0 && crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE)
		stopped = 1;
out:
	crypt_free(cd);
	if (rc == 0 && stopped)
		return -EINTR;
	return rc;
}

int fdw_convert_status(const struct fdw_volume *v, struct fdw_convert_status *st)
{
	struct crypt_params_reencrypt rp = { 0 };
	struct crypt_device *cd = NULL;
	crypt_reencrypt_info info;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (load_volume(&cd, v) != 0)
		return 0;	/* not LUKS2 */
	info = crypt_reencrypt_status(cd, &rp);
	switch (info) {
	case CRYPT_REENCRYPT_NONE:
		st->state = FDW_CONVERT_COMPLETE;
		break;
	case CRYPT_REENCRYPT_CLEAN:
		st->state = FDW_CONVERT_IN_PROGRESS;
		break;
	case CRYPT_REENCRYPT_CRASH:
		st->state = FDW_CONVERT_NEEDS_REPAIR;
		break;
	default:
		rc = -EINVAL;
		break;
	}
	if (info == CRYPT_REENCRYPT_CLEAN || info == CRYPT_REENCRYPT_CRASH)
		snprintf(st->mode, sizeof(st->mode), "%s",
			 rp.mode == CRYPT_REENCRYPT_ENCRYPT ? "encrypt" :
			 rp.mode == CRYPT_REENCRYPT_DECRYPT ? "decrypt" : "reencrypt");
	crypt_free(cd);
	return rc;
}

int fdw_convert_activate(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct crypt_device *cd = NULL;
	int rc = load_volume(&cd, v);

	if (rc)
		return rc;
	rc = crypt_activate_by_passphrase(cd, v->active_name, CRYPT_ANY_SLOT, pass->data,
					  pass->len, 0);
	crypt_free(cd);
	return rc < 0 ? rc : 0;
}

int fdw_convert_deactivate(const char *name)
{
	return crypt_deactivate(NULL, name);
}

/* The kernel lists device-mapper in /proc/misc once dm-mod is loaded; a stale
 * /dev/mapper/control node alone (as in some containers) proves nothing. */
bool fdw_have_device_mapper(void)
{
	FILE *f = fopen("/proc/misc", "re");
	char line[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " device-mapper") != NULL;
	fclose(f);
	return found && access("/dev/mapper/control", F_OK) == 0;
}

int fdw_convert_backup_header(const struct fdw_volume *v, const char *path)
{
	struct crypt_device *cd = NULL;
	char tmp[PATH_MAX];
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	rc = load_volume(&cd, v);
	if (!rc)
		rc = crypt_header_backup(cd, CRYPT_LUKS2, tmp);
	crypt_free(cd);
	if (!rc)
		rc = fdw_sync_path(tmp);
	if (!rc && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	else
		rc = fdw_sync_path(path);
	return rc;
}

/*
 * A power cut while final_window_finish() writes the final header (one write of the
 * headers and the keyslot area) can leave the header as found, with the JSON intact but
 * the keyslot area torn: the passphrase then opens nothing. The final header, proven and
 * kept in the state directory before that write, is the cure when the passphrase opens
 * it and its volume key passes the digest of the header on the device.
 * Returns 0 when the header was rewritten, -EPERM when this does not apply.
 */
static int final_window_salvage(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct fdw_volume copy = { .device = v->device };
	struct crypt_device *cd = NULL, *nd = NULL;
	struct final_window fw = { 0 };
	char fresh[PATH_MAX], torn[PATH_MAX];
	struct fdw_secret *vk = NULL;
	size_t len;
	int rc;

	rc = load_volume(&cd, v);
	if (!rc && final_window_detect(cd, &fw) != 1)
		rc = -EPERM;
	if (!rc && (snprintf(fresh, sizeof(fresh), "%s/%s-final.hdr", fdw_state_dir(),
			     fw.uuid) >= (int)sizeof(fresh) ||
		    snprintf(torn, sizeof(torn), "%s/%s-torn.hdr", fdw_state_dir(),
			     fw.uuid) >= (int)sizeof(torn) || access(fresh, R_OK) != 0))
		rc = -EPERM;
	if (!rc)
		rc = fdw_secret_new(&vk, 512);
	copy.header = fresh;
	if (!rc)
		rc = load_volume(&nd, &copy);
	if (!rc) {
		len = vk->cap;
		rc = crypt_volume_key_get(nd, CRYPT_ANY_SLOT, vk->data, &len, pass->data,
					  pass->len);
		vk->len = len;
	}
	/* The key must be this volume's: the digest on the device survived the tear. */
	if (rc >= 0)
		rc = crypt_volume_key_verify(cd, vk->data, vk->len);
	if (!rc)
		rc = final_window_check(fresh, v->device, &fw, vk, pass);
	crypt_free(nd);
	if (rc) {
		rc = -EPERM;
		goto out;
	}
	fdw_log(FDW_LOG_WARN, "%s: the passphrase opens no keyslot of the header, but it opens "
		"the final header kept in %s for this volume: the last header write was cut "
		"short; writing the final header again", v->device, fresh);
	unlink(torn);
	rc = crypt_header_backup(cd, CRYPT_LUKS2, torn);
	if (!rc)
		rc = fdw_sync_path(torn);
	if (!rc && fw.moved)
		rc = crypt_wipe(cd, NULL, CRYPT_WIPE_RANDOM, fw.moved_offset, fw.moved_size,
				1024 * 1024, 0, NULL, NULL);
	if (!rc)
		rc = crypt_header_restore(cd, CRYPT_LUKS2, fresh);
	if (!rc)
		rc = fdw_sync_path(v->header ? v->header : v->device);
	if (!rc)
		rc = final_window_check(v->header ? v->header : v->device,
					v->header ? v->device : NULL, &fw, vk, pass);
	if (rc)
		fdw_log(FDW_LOG_ERROR, "%s: rewriting the final header failed: %s. The header as "
			"found is in %s, the final one in %s", v->device, strerror(-rc), torn, fresh);
out:
	fdw_secret_free(vk);
	final_window_release(&fw);
	crypt_free(cd);
	return rc;
}

int fdw_convert_check_passphrase(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct crypt_device *cd = NULL;
	int rc = load_volume(&cd, v);

	/* Activation without a name only verifies the passphrase against the keyslots. */
	if (!rc)
		rc = crypt_activate_by_passphrase(cd, NULL, CRYPT_ANY_SLOT, pass->data, pass->len, 0);
	crypt_free(cd);
	if (rc == -ENOENT || rc == -EPERM)
		rc = final_window_salvage(v, pass);
	return rc < 0 ? rc : 0;
}
