/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one-restart plan in sentences, and whether one is prepared: what both front-ends show. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/i18n.h"
#include "base/keyring.h"
#include "boot/restart_files.h"
#include "boot/restart_initrd.h"
#include "restart.h"
#include "restart_internal.h"

void fdw_restart_plan(const struct fdw_restart_stage *st,
		      char steps[FDW_RESTART_PLAN_STEPS][FDW_RESTART_PLAN_LEN])
{
	snprintf(steps[0], FDW_RESTART_PLAN_LEN,
		 _("Now: the passphrase and a recovery key (shown once, tested); the LUKS2 header "
		   "made in a file; a step added to the initramfs, which is made again."));
	if (st->boot_mib)
		snprintf(steps[1], FDW_RESTART_PLAN_LEN,
			 _("At the next restart, before the system starts: the passphrase at the "
			   "usual prompt; /boot made a partition of its own (%u MiB from the "
			   "root's end: the filesystem checked and shrunk, /boot copied, named in "
			   "fstab, GRUB reinstalled); the header written (the first 16 MiB of data "
			   "move); a few minutes, whatever the disk's size. If anything fails "
			   "before the header is written, the system starts plain, from the old or "
			   "the new /boot, and the step is tried again at the next restart."),
			 st->boot_mib);
	else if (st->vg[0])
		snprintf(steps[1], FDW_RESTART_PLAN_LEN,
			 _("At the next restart, before the system starts: the passphrase at the "
			   "usual prompt; volume group %s deactivated; 32 MiB made free at the end "
			   "of its physical volume (from the swap volume there where no extents "
			   "are free, its swap area made again with its UUID; then pvresize); the "
			   "header written (the "
			   "first 16 MiB of data move); the volume group activated inside the "
			   "encrypted volume; usually under a minute, whatever the disk's size. If "
			   "anything fails before the header is written, the system starts plain."),
			 st->vg);
	else
		snprintf(steps[1], FDW_RESTART_PLAN_LEN,
			 _("At the next restart, before the system starts: the passphrase at the "
			   "usual prompt; the filesystem checked and shrunk by 32 MiB; the header "
			   "written (the first 16 MiB of data move); usually under a minute, "
			   "whatever the disk's size. If anything fails before the header is "
			   "written, the system starts plain, unchanged."));
	snprintf(steps[2], FDW_RESTART_PLAN_LEN,
		 _("In the started system: the conversion runs in the background (fdewiz status; "
		   "pause and resume work on it); at its end crypttab names %s and the initramfs "
		   "is made again without fdewiz's step."), st->name);
	snprintf(steps[3], FDW_RESTART_PLAN_LEN,
		 _("Without a restart nothing happens; 'fdewiz cancel' undoes this preparation."));
}

bool fdw_restart_prepared(struct fdw_restart_stage *st)
{
	return fdw_restart_pending(st) && !fdw_restart_begun(st);
}

bool fdw_restart_can_bench(const struct fdw_restart_stage *st)
{
	return !st->vg[0];
}

/* Does @address name the stage's root partition (by any of its names)? */
static bool names_stage_root(const char *address, const struct fdw_restart_stage *st)
{
	char want[PATH_MAX], dev[PATH_MAX];

	if (!realpath(address, want))
		return false;
	return (realpath(st->device, dev) && !strcmp(dev, want)) ||
	       (st->address[0] && realpath(st->address, dev) && !strcmp(dev, want));
}

enum fdw_restart_phase fdw_restart_phase_of(const char *address, struct fdw_restart_stage *st)
{
	if (!fdw_restart_pending(st))
		return FDW_RESTART_NONE;
	if (address && !names_stage_root(address, st))
		return FDW_RESTART_NONE;
	return fdw_restart_begun(st) ? FDW_RESTART_BEGUN : FDW_RESTART_PREPARED;
}

bool fdw_restart_service_pending(const struct fdw_restart_stage *st)
{
	char desc[128];

	fdw_restart_key_desc(st->uuid, desc, sizeof(desc));
	return fdw_keyring_has(desc);
}

bool fdw_restart_goes_on_with(struct fdw_restart_begun *b, const struct fdw_job *job,
			      bool recorded, const struct fdw_progress *p)
{
	struct fdw_restart_stage st;

	/* A recorded conversion is the service's again only once a power cut stopped it. */
	if (recorded && p->state != FDW_JOB_INTERRUPTED)
		return false;
	if (!b->looked) {
		bool begun = fdw_restart_phase_of(NULL, &st) == FDW_RESTART_BEGUN;

		snprintf(b->id, sizeof(b->id), "%s", begun ? st.uuid : "");
		b->service_pending = begun && fdw_restart_service_pending(&st);
		b->looked = true;
	}
	if (!b->id[0] || strcmp(b->id, job->id))
		return false;
	return !recorded || b->service_pending;
}

bool fdw_restart_step_failed(char *buf, size_t len)
{
	char *text = NULL, *c;
	size_t n;

	if (fdw_read_file(FDW_RESTART_STEP_FAILED, 2048,
			  FDW_READ_NOFOLLOW | FDW_READ_TEXT | FDW_READ_PREFIX, &text, &n, NULL) != 0)
		return false;
	for (c = text; *c; c++)
		if (*c == '\n')
			*c = ' ';
	snprintf(buf, len, "%s", text);
	free(text);
	return n > 0;
}

void fdw_restart_phase_text(enum fdw_restart_phase phase, const struct fdw_restart_stage *st,
			    char *buf, size_t len)
{
	char failed[1024];
	size_t n;

	if (phase == FDW_RESTART_PREPARED) {
		char with[512] = "", without[512] = "";

		if (st->home[0])
			fdw_restart_initrd_carriers(st->home, with, sizeof(with), without,
						    sizeof(without));
		if (with[0])
			snprintf(buf, len, _("prepared: encrypted at the next restart (its step is "
					     "in the initramfs of %s; the passphrase is asked "
					     "before the system starts, then it converts in the "
					     "background as %s); 'fdewiz cancel' undoes the "
					     "preparation"), with, st->name);
		else
			snprintf(buf, len, _("prepared: encrypted at the next restart (the "
					     "passphrase is asked before the system starts, then "
					     "it converts in the background as %s); 'fdewiz "
					     "cancel' undoes the preparation"), st->name);
		/* A kernel whose initramfs was made without the step starts the system plain. */
		n = strlen(buf);
		if (with[0] && without[0] && n < len)
			snprintf(buf + n, len - n, _(". Started with %s, whose initramfs does not "
						     "carry the step, the system starts plain and "
						     "stays prepared (update-initramfs -u -k all "
						     "puts the step in)"), without);
		/* A restart whose step gave up: this start is plain, and why. */
		n = strlen(buf);
		if (fdw_restart_step_failed(failed, sizeof(failed)) && n < len)
			snprintf(buf + n, len - n, _(". At this start its step did not begin: %s"),
				 failed);
		return;
	}
	if (phase == FDW_RESTART_BEGUN)
		snprintf(buf, len, _("its service (fdewiz-restart) goes on with it in the "
				     "background once the system has started; nothing to do"));
	else if (len)
		buf[0] = '\0';
}

void fdw_restart_kernels_text(char *buf, size_t len)
{
	char dir[PATH_MAX], stage[PATH_MAX + 16], header[PATH_MAX + 16];
	char with[512] = "", without[512] = "";
	size_t n;

	if (!len)
		return;
	buf[0] = '\0';
	fdw_restart_stage_paths(dir, sizeof(dir), stage, header, sizeof(stage));
	fdw_restart_initrd_carriers(dir, with, sizeof(with), without, sizeof(without));
	if (!with[0])
		return;
	snprintf(buf, len, _("Its step is in the initramfs of %s."), with);
	n = strlen(buf);
	if (without[0] && n < len)
		snprintf(buf + n, len - n, _(" Started with %s, whose initramfs does not carry "
					     "it, the system starts plain and stays prepared "
					     "(update-initramfs -u -k all puts the step in)."),
			 without);
}
