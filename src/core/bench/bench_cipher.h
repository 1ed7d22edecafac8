/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Cipher choice: which dm-crypt cipher suits this CPU, and the userspace XTS measurement. */
#ifndef FDW_BENCH_CIPHER_H
#define FDW_BENCH_CIPHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

struct fdw_cipher_advice {
	char cipher[16];	/* "aes", "xchacha12,aes" */
	char mode[24];		/* "xts-plain64", "adiantum-plain64" */
	unsigned key_bits;	/* 512, 256 */
	bool cpu_has_aes;
	char why[256];		/* one translated sentence */
};

/* Recommend a cipher for this machine from /proc/cpuinfo. 0, or -errno with @a still filled. */
int fdw_cipher_recommend(struct fdw_cipher_advice *a);

/* The same from captured /proc/cpuinfo text (NULL: unknown CPU). */
void fdw_cipher_recommend_text(const char *cpuinfo, struct fdw_cipher_advice *a);

/*
 * Refine the recommendation with measured figures from @r (the "cipher.*" tests of
 * fdw_bench_cipher()): keeps the choice from the CPU flags, unless the numbers clearly
 * disagree (Adiantum measured at least 1.5 times faster than AES-XTS 512). Returns 1 when
 * the numbers were used, 0 when @r had none (advice from the flags only).
 */
int fdw_cipher_recommend_measured(const struct fdw_bench_run *r, struct fdw_cipher_advice *a);

/*
 * Encrypt or decrypt @len bytes (a multiple of @sector_size) as dm-crypt's aes-xts-plain64
 * does, in userspace with OpenSSL: each sector with its own IV, the little-endian sector
 * number starting at @sector. @key_len is 32 (AES-128) or 64 (AES-256) bytes.
 * 0 or -errno.
 */
int fdw_cipher_xts_userspace(const unsigned char *key, size_t key_len, uint64_t sector,
			     size_t sector_size, const unsigned char *in, unsigned char *out,
			     size_t len, bool encrypt);

#endif
