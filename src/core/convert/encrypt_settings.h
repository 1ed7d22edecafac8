/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a front-end may change of an encryption after fdw_encrypt_prepare() (encrypt_flow.h)
 * and before it starts: the benchmark, the cipher, the prediction kept, TPM unlock; and
 * what it may offer (boot entries, the TPM, an open volume).
 */
#ifndef FDW_ENCRYPT_SETTINGS_H
#define FDW_ENCRYPT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "encrypt_flow.h"

/*
 * Change, after prepare, whether the plain filesystem is benchmarked first (and the
 * encrypted one after), and at what scale (NULL: keep it). -EINVAL for an unknown scale.
 */
int fdw_encrypt_set_bench(struct fdw_encrypt *e, bool baseline, const char *scale);

/*
 * Change, after prepare, the plan's cipher to @spec ("aes-xts-plain64",
 * "xchacha12,aes-adiantum-plain64") with a @key_bits key; the rest of the plan stays.
 * The advisor's sentence (cipher_why) is kept only when @spec and @key_bits are its
 * advice. 0, or -EINVAL with @why (the plan is unchanged).
 */
int fdw_encrypt_set_cipher(struct fdw_encrypt *e, const char *spec, unsigned key_bits,
			   char *why, size_t len);

/*
 * Keep a copy of @pred (src/core/convert/predict.h; NULL: none) to be saved with the job when it
 * begins, so the results can show predicted beside measured. 0 or -ENOMEM.
 */
struct fdw_bench_run;
int fdw_encrypt_set_prediction(struct fdw_encrypt *e, const struct fdw_bench_run *pred);

/*
 * Why the volume will not be open while it converts, nor when it is done (so the worker
 * cannot measure the encrypted filesystem after the baseline, nor grow a shrunk one),
 * as one translated phrase; NULL when it will be open. Decided by what begin records.
 */
const char *fdw_encrypt_closed_why(const struct fdw_encrypt *e);

/*
 * Why boot entries cannot be offered for the planned partition when written under
 * @root (NULL: "/"), as one translated sentence; NULL when they can.
 */
const char *fdw_encrypt_boot_unavailable(const struct fdw_encrypt *e, const char *root);

/* Unlocking an installed system's root at its start with this computer's TPM. */
enum fdw_tpm_offer {
	FDW_TPM_OFFER_NONE,		/* not an installed system's root on a disk: not offered */
	FDW_TPM_OFFER_UNAVAILABLE,	/* offered, but @why says what is missing */
	FDW_TPM_OFFER_READY,		/* can be chosen */
};
enum fdw_tpm_offer fdw_encrypt_tpm_offer(const struct fdw_encrypt *e, char *why, size_t len);

/*
 * After prepare: also seal to the TPM (to @pcrs, like "7"; NULL: not) once the conversion
 * and the boot step are done. 0, or -errno with @why (then not); checked as begin would.
 */
int fdw_encrypt_set_tpm(struct fdw_encrypt *e, const char *pcrs, char *why, size_t len);
/* The PCRs chosen, or NULL when TPM unlock is not. */
const char *fdw_encrypt_tpm_pcrs(const struct fdw_encrypt *e);

#endif
