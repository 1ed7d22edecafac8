/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Starting an encryption after the plan: header, recovery key added and tested, boot entries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_cipher.h"
#include "encrypt_flow.h"
#include "i18n.h"
#include "log.h"
#include "recovery.h"
#include "system_data.h"
#include "testhook.h"

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
static void test_spoil_key(struct fdw_secret *key)
{
	if (!fdw_test_fail("recovery-key-mismatch") || !key->len)
		return;
	key->data[0] = key->data[0] == 'A' ? 'B' : 'A';
}

/*
 * A key is handed out only when it is known to open the volume: one that went wrong
 * would be written down and trusted in vain.
 */
static void recovery_check(struct fdw_encrypt *e, struct fdw_start_result *res)
{
	char why[512] = "";
	int slot = -1, rc;

	test_spoil_key(res->recovery);
	rc = fdw_recovery_key_test(e->target.device, e->plan.detached_header, res->recovery,
				   &slot, why, sizeof(why));
	if (!rc) {
		res->recovery_slot = slot;
		fdw_log(FDW_LOG_INFO, "%s: the recovery key opens keyslot %d",
			e->job.address, slot);
		return;
	}
	fdw_log(FDW_LOG_WARN, "%s: the recovery key was not shown: it did not pass its test "
		"(%s)", e->job.address, strerror(-rc));
	snprintf(res->recovery_why, sizeof(res->recovery_why),
		 _("No recovery key is shown (%s): it could not be trusted. Its keyslot may stay "
		   "in the header, unusable, since that key is wiped. Once the conversion is "
		   "complete, add a new one with: fdewiz recovery-key add %s"),
		 rc == -EPERM ? _("the key made does not open the volume") : why,
		 e->job.address);
	fdw_secret_free(res->recovery);
	res->recovery = NULL;
}

static void boot_step(struct fdw_encrypt *e, const struct fdw_start_options *so,
		      struct fdw_start_result *res)
{
	struct fdw_boot_request rq = so->boot;
	const char *no = fdw_encrypt_boot_unavailable(e, so->boot.root);

	if (!rq.root)
		rq.root = "/";
	if (!rq.name && e->boot_name[0])
		rq.name = e->boot_name;
	res->boot_tried = true;
	snprintf(res->boot_root, sizeof(res->boot_root), "%s", rq.root);
	/* Front-ends ask first; this keeps a forgotten check from writing this system's files. */
	if (no) {
		snprintf(res->boot_why, sizeof(res->boot_why), "%s", no);
		res->boot_rc = -EINVAL;
		return;
	}
	res->boot_rc = fdw_boot_entries_write(e->job.address, &rq, &res->boot, res->boot_why,
					      sizeof(res->boot_why));
}

int fdw_encrypt_start(struct fdw_encrypt *e, const struct fdw_secret *pass,
		      const struct fdw_start_options *so, struct fdw_start_result *res,
		      char *why, size_t len)
{
	int rc;

	memset(res, 0, sizeof(*res));
	res->recovery_slot = -1;
	if (so->recovery_key) {
		rc = fdw_recovery_key_generate(&res->recovery);
		if (rc) {
			res->recovery = NULL;
			snprintf(why, len, _("the recovery key could not be made (%s). Nothing was "
					     "changed; go on without one, or try again."),
				 strerror(-rc));
			return rc;
		}
	}
	/* Added with the header, before any data moves: keyslots are locked after that. */
	e->recovery_key = res->recovery;
	e->bench_status = so->bench;
	e->bench_ctx = so->ctx;
	rc = fdw_encrypt_begin(e, pass, so->phase, so->ctx, why, len);
	e->recovery_key = NULL;
	e->bench_status = NULL;
	e->bench_ctx = NULL;
	if (rc < 0) {
		fdw_start_result_wipe(res);
		return rc;
	}
	if (res->recovery)
		recovery_check(e, res);
	/* The entry is right from now on: the volume opens mid-conversion too. */
	if (so->boot_entries)
		boot_step(e, so, res);
	return rc;
}

void fdw_start_result_wipe(struct fdw_start_result *res)
{
	fdw_secret_free(res->recovery);
	res->recovery = NULL;
}

pid_t fdw_encrypt_launch(struct fdw_encrypt *e, const struct fdw_secret *pass,
			 const char *mount_at, char *why, size_t len)
{
	return fdw_launch_background(&e->job, &e->target, pass, mount_at, why, len);
}
