/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fixed-endian fields of on-disk formats (LUKS2 binary header, ext4 and XFS superblocks). */
#ifndef FDW_BYTES_H
#define FDW_BYTES_H

#include <stdint.h>

static inline uint16_t fdw_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t fdw_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t fdw_le64(const unsigned char *p)
{
	return (uint64_t)fdw_le32(p) | (uint64_t)fdw_le32(p + 4) << 32;
}

static inline uint16_t fdw_be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t fdw_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t fdw_be64(const unsigned char *p)
{
	return (uint64_t)fdw_be32(p) << 32 | fdw_be32(p + 4);
}

static inline void fdw_put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

#endif
