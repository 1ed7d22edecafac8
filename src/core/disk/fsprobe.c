/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Probes filesystems and LUKS headers with libblkid and the superblocks themselves. */
#include "config.h"

#include <blkid.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "fsprobe.h"
#include "base/bytes.h"
#include "base/log.h"

/* @sb points at the ext2/3/4 superblock (byte 1024 of the filesystem). */
int fdw_ext_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u)
{
	uint64_t blocks, free_blocks;
	uint32_t log_bs;

	if (len < 0x160 || fdw_le16(sb + 56) != 0xEF53)
		return -EINVAL;
	log_bs = fdw_le32(sb + 24);
	if (log_bs > 6)
		return -EINVAL;
	blocks = fdw_le32(sb + 4);
	free_blocks = fdw_le32(sb + 12);
	if (fdw_le32(sb + 96) & 0x80) {	/* INCOMPAT_64BIT */
		blocks |= (uint64_t)fdw_le32(sb + 0x150) << 32;
		free_blocks |= (uint64_t)fdw_le32(sb + 0x158) << 32;
	}
	/* A size past what a signed 64-bit byte count holds is a damaged superblock. */
	if (free_blocks > blocks || blocks > (uint64_t)INT64_MAX >> (10 + log_bs))
		return -EINVAL;
	u->block_size = 1024LL << log_bs;
	u->sector_size = u->block_size;
	u->size = (int64_t)blocks * u->block_size;
	u->free = (int64_t)free_blocks * u->block_size;
	u->used = u->size - u->free;
	return 0;
}

bool fdw_ext_checked_clean(const unsigned char *sb, size_t len)
{
	uint16_t state;

	if (len < 0x160 || fdw_le16(sb + 56) != 0xEF53)
		return false;
	state = fdw_le16(sb + 58);
	/* s_lastcheck (64) against s_mtime (44); s_state VALID (1), not ERROR (2);
	 * INCOMPAT_RECOVER (4) would mean a journal still to replay. */
	return fdw_le32(sb + 64) >= fdw_le32(sb + 44) && (state & 1) && !(state & 2) &&
	       !(fdw_le32(sb + 96) & 4);
}

/* @sb points at the XFS primary superblock (byte 0), big-endian. */
int fdw_xfs_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u)
{
	uint64_t blocks, free_blocks;
	uint32_t bs;

	if (len < 152 || memcmp(sb, "XFSB", 4) != 0)
		return -EINVAL;
	bs = fdw_be32(sb + 4);
	blocks = fdw_be64(sb + 8);
	free_blocks = fdw_be64(sb + 144);
	if (bs < 512 || bs > 65536 || free_blocks > blocks || blocks > (uint64_t)INT64_MAX / bs)
		return -EINVAL;
	u->block_size = bs;
	/* XFS writes its metadata in sector-size units: a larger device sector breaks it. */
	u->sector_size = fdw_be16(sb + 102);
	u->size = (int64_t)(blocks * bs);
	u->free = (int64_t)(free_blocks * bs);
	u->used = u->size - u->free;
	return 0;
}

/* @sb points at the btrfs superblock (byte 64 KiB). */
int fdw_btrfs_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u)
{
	uint64_t total, used;

	if (len < 148 || memcmp(sb + 64, "_BHRfS_M", 8) != 0)
		return -EINVAL;
	total = fdw_le64(sb + 112);
	used = fdw_le64(sb + 120);
	if (used > total || total > (uint64_t)INT64_MAX)
		return -EINVAL;
	/* This device's item (at 201): its size (+8) and the bytes its chunks take (+16). */
	u->devices = (int64_t)(fdw_le64(sb + 136) > 64 ? 64 : fdw_le64(sb + 136));
	if (len >= 225 && fdw_le64(sb + 217) <= fdw_le64(sb + 209))
		u->allocated = (int64_t)(fdw_le64(sb + 217) > (uint64_t)INT64_MAX ?
					 -1 : (int64_t)fdw_le64(sb + 217));
	u->size = (int64_t)total;
	u->used = (int64_t)used;
	u->free = (int64_t)(total - used);
	u->block_size = fdw_le32(sb + 144);
	u->sector_size = u->block_size;
	return 0;
}

/* @sb points at the FAT boot sector; only the cluster size is cheap to know. */
int fdw_vfat_usage(const unsigned char *sb, size_t len, struct fdw_fs_usage *u)
{
	unsigned bps, spc;

	if (len < 512 || sb[510] != 0x55 || sb[511] != 0xAA)
		return -EINVAL;
	bps = fdw_le16(sb + 11);
	spc = sb[13];
	if (bps < 512 || bps > 4096 || !spc)
		return -EINVAL;
	u->block_size = (int64_t)bps * spc;
	u->sector_size = bps;
	u->size = u->used = u->free = -1;
	return 0;
}

static bool json_array_has_prefix(struct json_object *arr, const char *prefix)
{
	size_t n;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return false;
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(arr, i));

		if (s && strncmp(s, prefix, strlen(prefix)) == 0)
			return true;
	}
	return false;
}

int fdw_luks_header_parse(const unsigned char *buf, size_t len, int *version,
			  bool *reencrypt_unfinished)
{
	static const unsigned char magic[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
	struct json_object *root, *config, *reqs, *mandatory;
	struct json_tokener *tok;
	uint64_t hdr_size;
	size_t json_len;

	*reencrypt_unfinished = false;
	if (len < 4096 || memcmp(buf, magic, sizeof(magic)) != 0)
		return -EINVAL;
	*version = (buf[6] << 8) | buf[7];
	if (*version != 2)
		return 0;
	hdr_size = fdw_be64(buf + 8);
	if (hdr_size <= 4096 || hdr_size > len)
		return -EINVAL;
	json_len = strnlen((const char *)buf + 4096, hdr_size - 4096);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, (const char *)buf + 4096, (int)json_len);
	json_tokener_free(tok);
	if (!root)
		return -EINVAL;
	/* An unfinished reencryption is recorded as a mandatory requirement. */
	if (json_object_object_get_ex(root, "config", &config) &&
	    json_object_object_get_ex(config, "requirements", &reqs) &&
	    json_object_object_get_ex(reqs, "mandatory", &mandatory))
		*reencrypt_unfinished = json_array_has_prefix(mandatory, "online-reencrypt");
	json_object_put(root);
	return 0;
}

static char *blkid_value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) != 0 || !v || !*v)
		return NULL;
	return strdup(v);
}

/*
 * How small a single-device btrfs can be made, from its superblock: the chunks it has
 * allocated, the first MiB it never uses, and room to move one more chunk while it
 * shrinks (btrfs moves each chunk that lies past the new end into free space: a data
 * chunk is a tenth of the filesystem, at most 1 GiB), and never below the kernel's floor.
 * An estimate for the verdict; the
 * resize itself has the last word, and refuses without changing anything.
 */
static int64_t btrfs_min_size(const struct fdw_fs_usage *u)
{
	int64_t slack = u->size / 10, min;

	slack = slack < 32 * (int64_t)FDW_MIB ? 32 * (int64_t)FDW_MIB :
		slack > 1024 * (int64_t)FDW_MIB ? 1024 * (int64_t)FDW_MIB : slack;
	min = u->allocated + (int64_t)FDW_MIB + slack;
	if (u->block_size > 0)
		min = (min + u->block_size - 1) / u->block_size * u->block_size;
	/* The kernel resizes no btrfs device below 256 MiB (EINVAL), however empty. */
	return min < FDW_BTRFS_MIN_RESIZE ? FDW_BTRFS_MIN_RESIZE : min;
}

/* Read the superblock of a recognised filesystem for size, usage and block size. */
static void probe_usage(int fd, uint64_t offset, uint64_t size, struct fdw_partition *part)
{
	struct fdw_fs_usage u = { -1, -1, -1, -1, -1, -1, -1 };
	const char *t = part->fstype;
	unsigned char sb[4096];
	uint64_t sb_off;
	int (*parse)(const unsigned char *, size_t, struct fdw_fs_usage *);

	if (fdw_fstype_is_ext(t)) {
		sb_off = 1024;
		parse = fdw_ext_usage;
	} else if (!strcmp(t, "xfs")) {
		sb_off = 0;
		parse = fdw_xfs_usage;
	} else if (!strcmp(t, "btrfs")) {
		sb_off = 65536;
		parse = fdw_btrfs_usage;
	} else if (!strcmp(t, "vfat")) {
		sb_off = 0;
		parse = fdw_vfat_usage;
	} else {
		return;
	}
	if (sb_off + sizeof(sb) > size ||
	    fdw_pread_full(fd, sb, sizeof(sb), offset + sb_off) != (ssize_t)sizeof(sb))
		return;
	if (parse(sb, sizeof(sb), &u) != 0) {
		fdw_log(FDW_LOG_DEBUG, "%s superblock at %llu not understood", t,
			(unsigned long long)(offset + sb_off));
		return;
	}
	part->fs_size = u.size;
	part->fs_used = u.used;
	part->fs_free = u.free;
	part->fs_block_size = u.block_size;
	part->fs_sector_size = u.sector_size;
	/* A btrfs of several devices is not shrunk by fdewiz: its minimum stays unknown. */
	if (u.devices == 1 && u.allocated >= 0)
		part->fs_min_size = btrfs_min_size(&u);
}

/* LUKS2 keeps its JSON metadata in the first header area; 4 MiB bounds the largest. */
#define LUKS2_MAX_HDR (4 * FDW_MIB)

static void probe_luks(int fd, uint64_t offset, uint64_t size, struct fdw_partition *part)
{
	size_t len = size < LUKS2_MAX_HDR ? (size_t)size : LUKS2_MAX_HDR;
	unsigned char *buf = malloc(len);
	ssize_t got;

	if (!buf)
		return;
	got = fdw_pread_full(fd, buf, len, offset);
	if (got > 0 && fdw_luks_header_parse(buf, (size_t)got, &part->luks_version,
					     &part->luks_reencrypt_unfinished) != 0)
		fdw_log(FDW_LOG_WARN, "LUKS header at %llu could not be parsed",
			(unsigned long long)offset);
	free(buf);
}

bool fdw_fstype_is_ext(const char *fstype)
{
	return fstype && (!strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") ||
			  !strcmp(fstype, "ext4"));
}

int fdw_fsprobe(int fd, uint64_t offset, uint64_t size, struct fdw_partition *part)
{
	blkid_probe pr = blkid_new_probe();
	int rc;

	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)offset, (blkid_loff_t)size) != 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_TYPE | BLKID_SUBLKS_VERSION);
	blkid_probe_enable_partitions(pr, 0);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		part->fstype = blkid_value(pr, "TYPE");
		part->fsversion = blkid_value(pr, "VERSION");
		part->label = blkid_value(pr, "LABEL");
		part->uuid = blkid_value(pr, "UUID");
	} else if (rc == -2) {
		fdw_log(FDW_LOG_WARN, "ambivalent filesystem signatures at %llu",
			(unsigned long long)offset);
		part->fstype = strdup("ambivalent");
	}
	blkid_free_probe(pr);
	if (!part->fstype)
		return 0;
	if (!strcmp(part->fstype, "crypto_LUKS"))
		probe_luks(fd, offset, size, part);
	else
		probe_usage(fd, offset, size, part);
	return 0;
}
