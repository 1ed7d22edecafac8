/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finishes a conversion interrupted after its last hotzone, which libcryptsetup cannot resume. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bytes.h"
#include "cryptglue.h"
#include "base/durable.h"
#include "final_window.h"
#include "state/job.h"
#include "base/log.h"
#include "luks2_copy.h"
#include "luks2_final.h"
#include "luks2_json.h"
#include "base/uuid.h"

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
/* Is @cd's header in the end window? 1 (and @fw filled), 0 when not, or -errno. */
static int final_window_detect(struct crypt_device *cd, struct fdw_final_window *fw)
{
	const char *json, *uuid;
	int found;

	memset(fw, 0, sizeof(*fw));
	if (crypt_dump_json(cd, &json, 0) < 0)
		return 0;
	found = fdw_final_window_parse(json, fw);
	if (found <= 0)
		return found;
	uuid = crypt_get_uuid(cd);
	if (uuid && strlen(uuid) < sizeof(fw->uuid)) {
		snprintf(fw->uuid, sizeof(fw->uuid), "%s", uuid);
		return 1;
	}
	fdw_final_window_release(fw);
	return 0;
}

/* Does the header at @path hold what the finished conversion holds, with key @vk? */
static int final_window_check(const char *path, const char *data_device,
			      const struct fdw_final_window *fw, const struct fdw_secret *vk,
			      const struct fdw_secret *pass)
{
	struct crypt_device *cd = NULL;
	struct fdw_secret *got = NULL;
	struct fdw_luks2_segment segs[FDW_LUKS2_MAX_SEGMENTS];
	json_object *root = NULL, *kss;
	const char *json;
	size_t len, n_segs;
	int rc, slot;

	/* With a data device, @path is a detached header; else the volume itself. */
	rc = data_device ? fdw_crypt_load(&cd, data_device, path) : fdw_crypt_load(&cd, path, NULL);
	if (!rc && crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_NONE)
		rc = -EUCLEAN;
	if (!rc && (!crypt_get_uuid(cd) || strcmp(crypt_get_uuid(cd), fw->uuid) ||
		    crypt_get_data_offset(cd) * FDW_CRYPT_SECTOR != fw->data_offset))
		rc = -EUCLEAN;
	if (!rc)
		rc = crypt_dump_json(cd, &json, 0) < 0 ? -EIO : 0;
	if (!rc) {
		root = json_tokener_parse(json);
		/* Exactly one segment, equal to the one the conversion meant to end with,
		 * and every keyslot but the reencryption one. */
		if (!root || fdw_luks2_segments(root, segs, FDW_LUKS2_MAX_SEGMENTS, &n_segs) ||
		    n_segs != 1 || strcmp(segs[0].key, "0") ||
		    !json_object_equal(segs[0].obj, fw->final) ||
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
			      const struct fdw_final_window *fw, int slot,
			      const struct fdw_secret *vk, const struct fdw_secret *pass)
{
	struct crypt_params_luks2 luks2 = { .sector_size = fw->sector_size };
	struct crypt_pbkdf_type pbkdf;
	struct crypt_device *nd = NULL;
	uint64_t md_size, ks_size;
	const char *label;
	int rc;

	unlink(path);
	rc = fdw_crypt_header_file_new(path);
	/* The same PBKDF and cost as the keyslot the passphrase opened, without a benchmark. */
	if (!rc)
		rc = crypt_keyslot_get_pbkdf(cd, slot, &pbkdf);
	if (!rc)
		rc = crypt_get_metadata_size(cd, &md_size, &ks_size);
	if (!rc)
		rc = fdw_crypt_init(&nd, device, path);
	if (!rc) {
		pbkdf.flags |= CRYPT_PBKDF_NO_BENCHMARK;
		rc = crypt_set_pbkdf_type(nd, &pbkdf);
	}
	if (!rc)
		rc = crypt_set_metadata_size(nd, md_size, ks_size);
	if (!rc)
		rc = crypt_set_data_offset(nd, fw->data_offset / FDW_CRYPT_SECTOR);
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

/*
 * The finished header with every keyslot kept byte for byte (a recovery key's too, whose
 * secret is not at hand): a backup of the window header with its JSON rewritten as the
 * library's final step would. No public call edits a header under the online-reencrypt
 * requirement, so both binary headers are written here; libcryptsetup then loads,
 * validates and proves the result before it goes anywhere near the device.
 */
static int final_window_build_keep(struct crypt_device *cd, const char *path,
				   const struct fdw_final_window *fw)
{
	unsigned char bin[4096];
	json_object *fin = NULL;
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
		hdr_size = fdw_be64(bin + FDW_LUKS2_HDR_SIZE_AT);
		seqid = fdw_be64(bin + FDW_LUKS2_HDR_SEQID_AT);
		/* On the device the data must start after both headers; a detached one
		 * has the data elsewhere. */
		if (hdr_size < 16384 || hdr_size > 4 * 1024 * 1024 || hdr_size & 4095 ||
		    (fw->datashift && 2 * hdr_size > fw->data_offset))
			rc = -EINVAL;
	}
	/* The reencryption keyslot's area (resilience data) is wiped as destroying it would. */
	if (!rc && !fdw_final_window_reencrypt_area(json, hdr_size, fw, &area_off, &area_len))
		rc = -EINVAL;
	if (!rc) {
		fin = fdw_final_window_json(json, hdr_size, fw);
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
		rc = fdw_luks2_write_hdr(fd, 0, hdr_size, text, seqid + 1);
	if (!rc)
		rc = fdw_luks2_write_hdr(fd, hdr_size, hdr_size, text, seqid + 1);
	if (!rc && fsync(fd) != 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	json_object_put(fin);
	return rc;
}

/* The end window's files in the state folder, named after the volume's UUID. */
struct fw_files {
	char kept[PATH_MAX];		/* the header as found */
	char fresh[PATH_MAX];		/* the final header, once proven */
	char building[PATH_MAX + 8];	/* @fresh while it is built */
	char keeping[PATH_MAX + 8];	/* @kept while it is written */
};

/* Name @f (the state folder made first); -ENAMETOOLONG when a name does not fit. */
static int fw_files_name(struct fw_files *f, const struct fdw_final_window *fw)
{
	int rc = fdw_state_dir_ensure();

	/* Every name empty until all are known: no step may run on half a set. */
	memset(f, 0, sizeof(*f));
	if (!rc && (snprintf(f->kept, sizeof(f->kept), "%s/%s-final-window.hdr", fdw_state_dir(),
			     fw->uuid) >= (int)sizeof(f->kept) ||
		    snprintf(f->fresh, sizeof(f->fresh), "%s/%s-final.hdr", fdw_state_dir(),
			     fw->uuid) >= (int)sizeof(f->fresh)))
		rc = -ENAMETOOLONG;
	if (rc)
		return rc;
	snprintf(f->building, sizeof(f->building), "%s.new", f->fresh);
	snprintf(f->keeping, sizeof(f->keeping), "%s.new", f->kept);
	return 0;
}

int fdw_final_window_forget(const char *uuid)
{
	struct fdw_final_window fw;
	const char *names[4];
	struct fw_files f;
	int n = 0;

	memset(&fw, 0, sizeof(fw));
	if (!fdw_uuid_valid(uuid))
		return 0;
	snprintf(fw.uuid, sizeof(fw.uuid), "%s", uuid);
	if (fw_files_name(&f, &fw) != 0)
		return 0;
	names[0] = f.kept;
	names[1] = f.keeping;
	names[2] = f.fresh;
	names[3] = f.building;
	for (size_t i = 0; i < 4; i++)
		if (unlink(names[i]) == 0) {
			fdw_log(FDW_LOG_INFO, "removed %s: the end-window repair's copy, no longer "
				"needed", names[i]);
			n++;
		}
	if (n)
		fdw_sync_path(fdw_state_dir());
	return n;
}

/* The volume key into @vk, and the keyslot @pass opened it from; -EPERM for no keyslot. */
static int fw_volume_key(struct crypt_device *cd, const struct fdw_secret *pass,
			 struct fdw_secret *vk, int *slot)
{
	size_t len = vk->cap;

	*slot = crypt_volume_key_get(cd, CRYPT_ANY_SLOT, vk->data, &len, pass->data, pass->len);
	if (*slot < 0)
		return *slot == -ENOENT ? -EPERM : *slot;
	vk->len = len;
	return 0;
}

/* 1: the header as found, beside the job's records, before anything changes. */
static int fw_keep_found(struct crypt_device *cd, const struct fdw_volume *v,
			 const struct fw_files *f)
{
	int rc;

	unlink(f->keeping);
	rc = crypt_header_backup(cd, CRYPT_LUKS2, f->keeping);
	if (!rc && rename(f->keeping, f->kept) != 0)
		rc = -errno;
	if (!rc)
		rc = fdw_sync_path(f->kept);
	if (rc) {
		unlink(f->keeping);
		fdw_log(FDW_LOG_ERROR, "%s: could not keep the current header in %s: %s; nothing "
			"was changed", v->device, f->kept, strerror(-rc));
	}
	return rc;
}

/* 2: the final header, built and proven in a file; only a proven one gets its name. */
static int fw_build_final(struct crypt_device *cd, const struct fdw_volume *v,
			  const struct fdw_final_window *fw, int slot,
			  const struct fdw_secret *vk, const struct fdw_secret *pass,
			  const struct fw_files *f)
{
	int rc;

	/*
	 * One keyslot: a new header through the public calls. More (a recovery key): their
	 * secrets are not at hand, so the header is kept and only its JSON rewritten.
	 */
	if (fw->user_keyslots == 1)
		rc = final_window_build(cd, f->building, v->device, fw, slot, vk, pass);
	else
		rc = final_window_build_keep(cd, f->building, fw);
	if (!rc)
		rc = final_window_check(f->building, v->device, fw, vk, pass);
	if (!rc && rename(f->building, f->fresh) != 0)
		rc = -errno;
	if (!rc)
		rc = fdw_sync_path(f->fresh);
	if (rc) {
		unlink(f->building);
		fdw_log(FDW_LOG_ERROR, "%s: could not build the final header: %s; nothing was "
			"changed", v->device, strerror(-rc));
	}
	return rc;
}

/* 3: the plaintext copy of the first chunk is stale; wipe it as libcryptsetup does. */
static int fw_wipe_moved(struct crypt_device *cd, const struct fdw_volume *v,
			 const struct fdw_final_window *fw)
{
	int rc = 0;

	if (fw->moved)
		rc = crypt_wipe(cd, NULL, CRYPT_WIPE_RANDOM, fw->moved_offset, fw->moved_size,
				1024 * 1024, 0, NULL, NULL);
	if (!rc && fw->moved)
		rc = fdw_sync_path(v->device);
	if (rc)
		fdw_log(FDW_LOG_ERROR, "%s: could not wipe the stale copy at %llu: %s; the header "
			"was not changed", v->device, (unsigned long long)fw->moved_offset,
			strerror(-rc));
	return rc;
}

/* 4: the commit point: the final header over the one found, then proven where it is. */
static int fw_commit_final(struct crypt_device *cd, const struct fdw_volume *v,
			   const struct fdw_final_window *fw, const struct fdw_secret *vk,
			   const struct fdw_secret *pass, const struct fw_files *f)
{
	int rc = crypt_header_restore(cd, CRYPT_LUKS2, f->fresh);

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
			v->device, strerror(-rc), f->kept, f->fresh);
	else
		fdw_log(FDW_LOG_INFO, "%s: final header in place (the header as found is kept in "
			"%s)", v->device, f->kept);
	return rc;
}

/*
 * Finish a conversion found in the end window: keep the current header, wipe the moved
 * copy, put the final header in place and prove it. Until the last step the header on
 * the device is the one found, so a crash anywhere here is met by the same fix again.
 * Each step stops the ones after it when it fails.
 */
static int final_window_finish(struct crypt_device *cd, const struct fdw_volume *v,
			       const struct fdw_secret *pass, const struct fdw_final_window *fw)
{
	struct fdw_secret *vk = NULL;
	struct fw_files f;
	int slot, rc;

	fdw_log(FDW_LOG_WARN, "%s: every hotzone is encrypted but the header was not finalised "
		"(interrupted in libcryptsetup's last step, which it cannot resume); finishing it "
		"here", v->device);
	rc = fw_files_name(&f, fw);
	if (!rc)
		rc = fdw_secret_new(&vk, 512);
	if (!rc)
		rc = fw_volume_key(cd, pass, vk, &slot);
	if (!rc)
		rc = fw_keep_found(cd, v, &f);
	if (!rc)
		rc = fw_build_final(cd, v, fw, slot, vk, pass, &f);
	if (!rc)
		rc = fw_wipe_moved(cd, v, fw);
	if (!rc)
		rc = fw_commit_final(cd, v, fw, vk, pass, &f);
	fdw_secret_free(vk);
	return rc;
}

int fdw_final_window_resume(struct crypt_device *cd, const struct fdw_volume *v,
			    const struct fdw_secret *pass)
{
	struct fdw_final_window fw;
	int rc = final_window_detect(cd, &fw);

	if (rc <= 0)
		return rc == 0 ? 1 : rc;
	rc = final_window_finish(cd, v, pass, &fw);
	fdw_final_window_release(&fw);
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
int fdw_final_window_salvage(const struct fdw_volume *v, const struct fdw_secret *pass)
{
	struct fdw_volume copy = { .device = v->device };
	struct crypt_device *cd = NULL, *nd = NULL;
	struct fdw_final_window fw = { 0 };
	char fresh[PATH_MAX], torn[PATH_MAX];
	struct fdw_secret *vk = NULL;
	char asked[64];
	int rc, fd;
	size_t len;

	/*
	 * Whether this applies is asked of a private copy of the header (luks2_copy.h): the
	 * load repairs copies that disagree in place, and a wrong passphrase changes nothing.
	 * The header on the device is loaded only to write the final one over it.
	 */
	fd = fdw_luks2_copy_open(v->device, v->header, asked, sizeof(asked));
	rc = fdw_crypt_load(&cd, v->device, fd >= 0 ? asked : v->header);
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
		rc = fdw_crypt_load(&nd, copy.device, copy.header);
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
	if (fd >= 0) {
		crypt_free(cd);
		cd = NULL;
		rc = fdw_crypt_load(&cd, v->device, v->header);
		if (rc)
			goto out;
	}
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
	fdw_final_window_release(&fw);
	crypt_free(cd);
	if (fd >= 0)
		close(fd);
	return rc;
}
