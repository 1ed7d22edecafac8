/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The unused part of a LUKS2 header's keyslot area, zeroed in a header file of our own. */
#ifndef FDW_KEYSLOT_AREA_H
#define FDW_KEYSLOT_AREA_H
#include <stdint.h>
/*
 * libcryptsetup fills a new header's whole keyslot area with random bytes: a prepared
 * header file is 16 MiB that no compressor shrinks, and the initramfs that carries it to the
 * restart (and every boot's load of it) grows by as much. The bytes outside the keyslots'
 * own areas hold nothing; this writes zeros over them in the header file @path, keeping
 * both metadata copies and every keyslot's area byte for byte. Only a header that no
 * conversion has begun in (no reencryption requirement): a reencryption keyslot's area
 * is kept all the same, but there is no reason to write near one. Returns 0 with the
 * number of bytes zeroed in @zeroed, -EINVAL (no LUKS2 header, a keyslot area not as the
 * format writes it, or a conversion begun: nothing written), -E2BIG (more keyslots than
 * LUKS2 allows), or -errno.
 */
int fdw_luks2_zero_unused_keyslot_area(const char *path, uint64_t *zeroed);
#endif
