/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Starting an encryption after the plan: header, recovery key added and tested, boot entries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_cipher.h"
#include "encrypt_flow.h"
#include "encrypt_settings.h"
#include "encrypt_start.h"
#include "launch.h"
#include "encrypt_internal.h"
#include "base/i18n.h"
#include "base/log.h"
#include "luks2/recovery.h"
#include "boot/system_data.h"
#include "base/testhook.h"

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
	if (fdw_escrow_wanted(so->escrow) && !so->recovery_key) {
		snprintf(why, len, _("escrow is for a recovery key, and none is to be made. "
				     "Nothing was changed."));
		return -EINVAL;
	}
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
	e->escrow = so->escrow;
	e->bench_status = so->bench;
	e->bench_ctx = so->ctx;
	rc = fdw_encrypt_begin(e, pass, so->phase, so->ctx, why, len);
	e->recovery_key = NULL;
	e->escrow = NULL;
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

int fdw_encrypt_foreground(struct fdw_encrypt *e, struct fdw_secret *pass,
			   const char *mount_at, const struct fdw_foreground_ops *ops)
{
	return fdw_conversion_foreground(&e->job, &e->target, pass, mount_at, ops);
}
