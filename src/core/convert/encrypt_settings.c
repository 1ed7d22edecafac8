/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The plan's choices on an opened encryption (benchmark, cipher, prediction), why a target
 * cannot go on, and what a front-end reads of it; below both the opening (encrypt_flow.c)
 * and the start. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_cipher.h"
#include "encrypt_flow.h"
#include "encrypt_settings.h"
#include "encrypt_internal.h"
#include "base/i18n.h"
#include "base/log.h"
#include "boot/system_boot.h"
#include "boot/system_data.h"
#include "boot/tpm.h"

const char *fdw_encrypt_boot_unavailable(const struct fdw_encrypt *e, const char *root)
{
	const struct fdw_target *tg = &e->target;

	if (!e->target_open || !tg->part)
		return _("No partition is planned.");
	/* Another system's partition: its crypttab is that system's, written after. */
	if (fdw_system_data_applies(tg->part))
		return _("Not for a partition of another installed system: fdewiz writes THAT "
			 "system's crypttab after the conversion (see above), never this one's.");
	/* This system never opens an image's partition at boot; a system inside it may. */
	if ((tg->disk.kind == FDW_DISK_IMAGE || !tg->part->node) && (!root || !strcmp(root, "/")))
		return _("Not for a partition of an image file: this system does not open it "
			 "at boot (for a system inside the image, run fdewiz crypttab --root "
			 "later).");
	/* Its own crypttab is written by the boot step, in it; this system never opens it. */
	if (tg->part->os.found && (!root || !strcmp(root, "/")))
		return _("Not for an installed system's root: fdewiz writes that system's own "
			 "crypttab after the conversion (the boot setup above).");
	return NULL;
}

const char *fdw_encrypt_closed_why(const struct fdw_encrypt *e)
{
	if (e->offline)
		return _("the volume stays closed while it converts, as asked (offline)");
	if (!fdw_have_device_mapper())
		return _("this system has no device-mapper, so the encrypted volume cannot be "
			 "opened");
	return NULL;
}

int fdw_encrypt_set_bench(struct fdw_encrypt *e, bool baseline, const char *scale)
{
	enum fdw_bench_scale parsed;

	if (scale && fdw_bench_scale_parse(scale, &parsed) != 0)
		return -EINVAL;
	e->bench_baseline = baseline;
	if (scale)
		snprintf(e->bench_scale, sizeof(e->bench_scale), "%s", scale);
	return 0;
}

int fdw_encrypt_set_cipher(struct fdw_encrypt *e, const char *spec, unsigned key_bits,
			   char *why, size_t len)
{
	struct fdw_plan_request rq = {
		.strategy = e->plan.strategy,
		.sector_size = e->plan.sector_size,
		.cipher_spec = spec,
		.key_bits = key_bits,
		.detached_header = e->plan.detached_header,
	};
	struct fdw_cipher_advice a;
	const char *plan_why = "";
	struct fdw_plan plan;
	char advised[48];
	int rc;

	if (!e->target_open || !e->target.part) {
		snprintf(why, len, "%s", _("No partition is planned."));
		return -EINVAL;
	}
	rc = fdw_plan_make(e->target.part, &rq, &plan, &plan_why);
	if (rc) {
		snprintf(why, len, _("That cipher cannot be used here: %s The plan is unchanged."),
			 plan_why);
		return rc;
	}
	e->plan = plan;
	fdw_cipher_recommend(&a);
	snprintf(advised, sizeof(advised), "%s-%s", a.cipher, a.mode);
	if (strcmp(advised, spec) != 0 || a.key_bits != key_bits)
		e->cipher_why[0] = '\0';
	fdw_log(FDW_LOG_INFO, "cipher changed to %s (%u-bit key)", spec, key_bits);
	return 0;
}

int fdw_encrypt_set_prediction(struct fdw_encrypt *e, const struct fdw_bench_run *pred)
{
	free(e->predicted);
	e->predicted = NULL;
	if (!pred)
		return 0;
	e->predicted = malloc(sizeof(*pred));
	if (!e->predicted)
		return -ENOMEM;
	memcpy(e->predicted, pred, sizeof(*pred));
	return 0;
}

/*
 * Test hook: one character of the key to be shown is changed after the header was
 * written, as if the key shown were not the one in the keyslot. The test must catch it.
 */

const struct fdw_target *fdw_encrypt_target(const struct fdw_encrypt *e)
{
	return &e->target;
}

const struct fdw_plan *fdw_encrypt_plan(const struct fdw_encrypt *e)
{
	return &e->plan;
}

bool fdw_encrypt_can_bench(const struct fdw_encrypt *e)
{
	return !e->target.part || !e->target.part->verdict.lvm_system;
}

const char *fdw_encrypt_cipher_why(const struct fdw_encrypt *e)
{
	return e->cipher_why;
}

const char *fdw_encrypt_header_backup(const struct fdw_encrypt *e)
{
	return e->header_backup;
}

const char *fdw_encrypt_bench_scale(const struct fdw_encrypt *e)
{
	return e->bench_scale;
}

const struct fdw_bench_run *fdw_encrypt_prediction(const struct fdw_encrypt *e)
{
	return e->predicted;
}

const struct fdw_job *fdw_encrypt_job(const struct fdw_encrypt *e)
{
	return &e->job;
}

enum fdw_tpm_offer fdw_encrypt_tpm_offer(const struct fdw_encrypt *e, char *why, size_t len)
{
	const struct fdw_target *tg = &e->target;

	why[0] = '\0';
	/* Only a root whose boot fdewiz sets up, on a disk of this computer. */
	if (!e->target_open || !tg->part || !tg->part->os.found || !tg->part->node ||
	    tg->disk.kind == FDW_DISK_IMAGE)
		return FDW_TPM_OFFER_NONE;
	return fdw_system_boot_tpm_check(tg, FDW_TPM_DEFAULT_PCRS, why, len) == 0 ?
		FDW_TPM_OFFER_READY : FDW_TPM_OFFER_UNAVAILABLE;
}

int fdw_encrypt_set_tpm(struct fdw_encrypt *e, const char *pcrs, char *why, size_t len)
{
	const struct fdw_target *tg = &e->target;
	int rc;

	if (!pcrs) {
		e->tpm_pcrs[0] = '\0';
		return 0;
	}
	if (!e->target_open || !tg->part || !tg->part->os.found) {
		snprintf(why, len, _("unlocking at the start with the TPM is for an installed "
				     "system's root, and %s holds none: encrypt it without, then "
				     "'fdewiz tpm enrol' binds any LUKS2 volume. Nothing was "
				     "changed."), tg->part ? tg->part->address : "");
		return -EINVAL;
	}
	rc = fdw_system_boot_tpm_check(tg, pcrs, why, len);
	if (!rc && pcrs != e->tpm_pcrs)
		snprintf(e->tpm_pcrs, sizeof(e->tpm_pcrs), "%s", pcrs);
	if (rc)
		e->tpm_pcrs[0] = '\0';
	return rc;
}

const char *fdw_encrypt_tpm_pcrs(const struct fdw_encrypt *e)
{
	return e->tpm_pcrs[0] ? e->tpm_pcrs : NULL;
}
