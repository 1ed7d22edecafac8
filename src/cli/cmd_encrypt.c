/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `fdewiz encrypt` and `fdewiz resume`: convert a partition in place, in the foreground. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_restart.h"
#include "core/bench/bench_api.h"
#include "core/boot/boot_api.h"
#include "core/convert/convert_api.h"
#include "core/base/base_api.h"
#include "core/disk/disk_api.h"
#include "conversion.h"
#include "events.h"
#include "passphrase.h"

static void print_plan(const struct fdw_target *t, const struct fdw_plan *pl,
		       const char *cipher_why)
{
	char a[32], b[32], c[32];

	printf(_("Plan for %s:\n"), t->part->address);
	printf(_("  strategy:        %s\n"), fdw_strategy_name(pl->strategy));
	printf(_("  partition:       %s\n"), fdw_format_size(pl->partition_size, a, sizeof(a)));
	printf(_("  filesystem:      %s, %s now, at most %s before encryption\n"),
	       t->part->fstype, pl->fs_size_before >= 0 ?
	       fdw_format_size((uint64_t)pl->fs_size_before, b, sizeof(b)) : "?",
	       fdw_format_size(pl->fs_size_max, c, sizeof(c)));
	if (pl->detached_header)
		printf(_("  LUKS2 header:    in the file %s (the data does not move; keep that "
			 "file safe and off this disk)\n"), pl->detached_header);
	else
		printf(_("  LUKS2 header:    %s at the start (data moves by the same amount)\n"),
		       fdw_format_size(pl->header_bytes, a, sizeof(a)));
	if (t->part->verdict.lvm_system)
		printf(_("  resize:          no filesystem; the physical volume is made to end %s "
			 "earlier first (below)\n"), fdw_format_size(pl->shift_bytes, a, sizeof(a)));
	else if (pl->strategy == FDW_STRATEGY_FREE_TAIL)
		printf(_("  resize:          none; the filesystem already ends before the last %s "
			 "(nothing grows back afterwards)\n"),
		       fdw_format_size(pl->shift_bytes, a, sizeof(a)));
	if (pl->grow_bytes)
		printf(_("  partition grows: by %s into the free space after it\n"),
		       fdw_format_size(pl->grow_bytes, a, sizeof(a)));
	printf(_("  encrypted volume: %s\n"), fdw_format_size(pl->volume_size, a, sizeof(a)));
	printf(_("  cipher:          %s-%s, %u-bit key\n"), pl->cipher, pl->cipher_mode,
	       pl->key_bits);
	if (cipher_why[0])
		printf(_("                   advised for this CPU: %s\n"), cipher_why);
	if (t->part->fs_block_size > 0)
		printf(_("  sector size:     %u bytes (filesystem block: %lld)\n"),
		       pl->sector_size, (long long)t->part->fs_block_size);
	else
		printf(_("  sector size:     %u bytes\n"), pl->sector_size);
	if (t->part->os.found) {
		char os[192], name[64], steps[4096];

		fdw_installed_os_describe(&t->part->os, os, sizeof(os));
		fdw_system_boot_name(t, name, sizeof(name));
		fdw_system_boot_steps(t, name, steps, sizeof(steps));
		if (t->part->verdict.carve_boot || t->part->verdict.lvm_system)
			printf(_("  installed system: %s; before and after the conversion, in "
				 "that system:\n"), cli_safe(os));
		else
			printf(_("  installed system: %s; after the conversion, in that system:\n"),
			       cli_safe(os));
		for (char *line = steps, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			printf("    - %s\n", cli_safe(line));
		}
	}
	{
		char note[1024];

		if (fdw_system_data_unseen_note(&t->disk, t->part, note, sizeof(note)))
			printf(_("  note:            %s\n"), cli_safe(note));
	}
	if (fdw_system_data_applies(t->part)) {
		char steps[4096];

		fdw_system_data_steps(t->part, steps, sizeof(steps));
		printf(_("  another system:  after the conversion:\n"));
		for (char *line = steps, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			printf("    - %s\n", cli_safe(line));
		}
	}
}

static bool confirm_typed(const char *address)
{
	char answer[32] = "";
	/* TRANSLATORS: the word the user types to confirm; keep it short. */
	const char *word = _("YES");

	printf(_("Type %s to encrypt %s in place: "), word, address);
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	answer[strcspn(answer, "\n")] = '\0';
	return strcmp(answer, word) == 0;
}

struct encrypt_opts {
	const char *key_file;
	const char *header_backup;
	const char *work_dir;
	struct fdw_plan_request rq;
	const char *mount_at;
	const char *bench_scale;
	struct fdw_boot_request boot;	/* --crypttab: root, name, discard */
	bool crypttab, recovery_key;
	bool dry_run, yes, fast_pbkdf, foreground, offline, no_bench, accept_weak;
	bool allow_low_battery, at_restart;
	const char *tpm_pcrs;		/* --tpm (with --pcrs): unlock the root with the TPM */
	enum fdw_pace pace;		/* --pace */
	struct fdw_escrow escrow;	/* --escrow-command, --escrow-dir */
	bool events;			/* --events json */
};

/* A positive decimal number and nothing else ("4096x" and "0" are mistakes). */
static int parse_count(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v || v > 65536 || s[0] == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_strategy(const char *s, enum fdw_strategy *out)
{
	if (!strcmp(s, "auto"))
		*out = FDW_STRATEGY_NONE;
	else if (!strcmp(s, "shrink"))
		*out = FDW_STRATEGY_SHRINK;
	else if (!strcmp(s, "grow"))
		*out = FDW_STRATEGY_GROW;
	else if (!strcmp(s, "free-tail"))
		*out = FDW_STRATEGY_FREE_TAIL;
	else if (!strncmp(s, "detached-header=", 16) && s[16])
		*out = FDW_STRATEGY_DETACHED;
	else
		return -EINVAL;
	return 0;
}

static void encrypt_usage(FILE *out)
{
	fprintf(out, _("Usage: %s encrypt [OPTIONS] DEVICE|IMAGE:N\n"
		       "Encrypt a partition in place with LUKS2, keeping its data. An installed\n"
		       "system's root (run from another system) also gets its crypttab and a new\n"
		       "initramfs, listed in the plan, so that it asks for the passphrase at boot.\n"
		       "  --key-file FILE|-     read the passphrase from FILE (or stdin)\n"
		       "  --strategy auto|free-tail|shrink|grow|detached-header=FILE\n"
		       "  --cipher SPEC         default: as advised for this CPU, aes-xts-plain64\n"
		       "                        with AES instructions, else\n"
		       "                        xchacha12,aes-adiantum-plain64\n"
		       "  --key-size BITS       default 512 (256 for Adiantum)\n"
		       "  --sector-size BYTES   default: 4096 when the filesystem allows it\n"
		       "  --header-backup FILE  default %s/ADDRESS-TIME.header\n"
		       "  --dry-run             print the plan and change nothing\n"
		       "  --foreground          convert in this process with a progress line\n"
		       "  --yes                 do not ask for the typed confirmation\n"
		       "  --accept-weak-passphrase  use a passphrase rated weak (not implied "
		       "by --yes)\n"
		       "  --offline             do not open the volume while it converts\n"
		       "  --allow-low-battery   start even on a battery below %d %%, and do not\n"
		       "                        pause when it runs low\n"
		       "  --mount DIR           online: mount the opened volume at DIR\n"
		       "  --no-bench            skip the benchmark before and after\n"
		       "  --bench-scale SCALE   tiny, quick (default), normal or full\n"
		       "  --recovery-key        also add a generated recovery key (shown once)\n"
		       "  --escrow-command CMD  hand the recovery key to CMD (run by sh, a JSON\n"
		       "                        document on its standard input) before anything\n"
		       "                        changes; it must exit 0 (implies --recovery-key)\n"
		       "  --escrow-dir DIR      the same document written as DIR/LUKS-UUID.json\n"
		       "  --events json         what happens as JSON lines on standard output\n"
		       "                        (the words for a person on standard error)\n"
		       "  --crypttab            add an /etc/crypttab entry (and fix fstab)\n"
		       "  --root DIR            with --crypttab: the system's root (default /)\n"
		       "  --name NAME           with --crypttab: the /dev/mapper name\n"
		       "  --discard             with --crypttab: pass TRIM through\n"
		       "  --work-dir DIR        where the temporary header lives (default: %s)\n"
		       "  --at-restart          the running system's root: prepared now, begun\n"
		       "                        at the next restart before the system starts,\n"
		       "                        converted in the background after it\n"
		       "  --tpm                 an installed system's root: also unlock it with\n"
		       "                        this computer's TPM 2.0 at its start (clevis)\n"
		       "  --pcrs LIST           with --tpm: the PCRs to seal to (default 7)\n"
		       "  --pace MODE           how it shares the disk: auto (default: full speed\n"
		       "                        on a quiet disk, yields while other work uses\n"
		       "                        it), gentle or full; 'fdewiz pace' changes it\n"
		       "  --fast-pbkdf          weak key derivation, for tests only\n"),
		fdw_progname, fdw_state_dir(), FDW_BATTERY_START_PERCENT, fdw_state_dir());
}

/* The CLI's voice for each step the engine takes. */
static void say_phase(enum fdw_phase phase, void *ctx)
{
	const struct fdw_encrypt *e = ctx;

	switch (phase) {
	case FDW_PHASE_GROWING_PARTITION:
		printf(_("Growing the partition into the free space after it...\n"));
		break;
	case FDW_PHASE_SHRINKING:
		printf(_("Shrinking the filesystem...\n"));
		break;
	case FDW_PHASE_MOVING_BOOT:
		printf(_("Making /boot a partition of its own (root shrunk, partition made, "
			 "/boot copied, fstab, GRUB)...\n"));
		break;
	case FDW_PHASE_LVM_ROOM:
		printf(_("Making room for the header at the end of the physical volume (volume "
			 "group deactivated, swap volume shrunk, pvresize)...\n"));
		break;
	case FDW_PHASE_BENCHMARKING:
		printf(_("Benchmarking the plain filesystem (--no-bench skips it)...\n"));
		break;
	case FDW_PHASE_INITIALISING:
		printf(_("Writing the LUKS2 header (backup: %s)...\n"),
		       fdw_encrypt_header_backup(e));
		break;
	default:
		break;
	}
	fflush(stdout);
}

/* What the start did: the tested recovery key (once), the boot entries, online or not. */
static void say_started(const char *address, const struct encrypt_opts *o,
			const struct fdw_encrypt *e, struct fdw_start_result *res)
{
	/* Only a key that opened the volume in its test is shown, with the keyslot it opened. */
	if (res->recovery)
		cli_show_recovery_key(address, res->recovery_slot, res->recovery);
	else if (res->recovery_why[0])
		fprintf(stderr, _("%s: warning: %s\n"), fdw_progname, cli_safe(res->recovery_why));
	fdw_start_result_wipe(res);
	if (res->boot_tried) {
		struct fdw_boot_request rq = o->boot;

		rq.root = res->boot_root;
		cli_boot_report(address, &rq, res->boot_rc, &res->boot, res->boot_why);
	}
	const struct fdw_job *job = fdw_encrypt_job(e);

	if (job->active_name[0])
		printf(_("Online conversion: the volume is open as /dev/mapper/%s and usable "
			 "while it converts.\n"), job->active_name);
	else
		printf(_("Offline conversion: %s; keep %s unmounted until it is done.\n"),
		       o->offline ? _("as asked") : _("this system has no device-mapper"),
		       address);
}

/* A refusal or failure: said to the person, and as an event. */
static void failed(const char *address, const char *why)
{
	cli_event("failed", "device", address, "reason", why, NULL);
	fprintf(stderr, "%s: %s\n", fdw_progname, cli_safe(why));
}

/* The end of a conversion run here, or of its start when a worker goes on with it. */
static void ended(const char *address, const struct encrypt_opts *o, int exit_code)
{
	if (!o->foreground)
		return;
	if (exit_code == FDW_EXIT_OK)
		cli_event("done", "device", address, NULL);
	else
		cli_event("failed", "device", address, "reason",
			  "the conversion stopped; its messages say why and what to do", NULL);
}

/* The plan, with what is measured and what unlocks it; as the event "planned" too. */
static void show_plan(const char *address, const struct encrypt_opts *o,
		      const struct fdw_encrypt *e)
{
	print_plan(fdw_encrypt_target(e), fdw_encrypt_plan(e), fdw_encrypt_cipher_why(e));
	if (!fdw_encrypt_can_bench(e))
		printf(_("  benchmark:       none: an LVM physical volume holds no filesystem "
			 "fdewiz mounts\n"));
	else if (o->no_bench)
		printf(_("  benchmark:       off\n"));
	else
		printf(_("  benchmark:       I/O and build benchmark (%s) of the plain filesystem "
			 "now, and of the encrypted volume when done\n"),
		       o->bench_scale ? o->bench_scale : "quick");
	if (o->tpm_pcrs) {
		char tpm[1024];

		fdw_tpm_plan_text(o->tpm_pcrs, tpm, sizeof(tpm));
		printf(_("  TPM unlock:      %s\n"), tpm);
	}
	cli_event("planned", "device", address, "cipher", fdw_encrypt_plan(e)->cipher,
		  "dry_run", o->dry_run ? "yes" : "no", NULL);
}

static int do_encrypt(const char *address, const struct encrypt_opts *o)
{
	struct fdw_encrypt_options eo = {
		.rq = o->rq, .header_backup = o->header_backup, .work_dir = o->work_dir,
		.offline = o->offline, .fast_pbkdf = o->fast_pbkdf, .dry_run = o->dry_run,
		.bench_baseline = !o->no_bench, .bench_scale = o->bench_scale,
		.allow_low_battery = o->allow_low_battery, .tpm_pcrs = o->tpm_pcrs,
		.pace = o->pace,
	};
	struct fdw_start_options so = {
		.recovery_key = o->recovery_key, .boot_entries = o->crypttab, .boot = o->boot,
		.phase = say_phase, .escrow = &o->escrow,
	};
	struct fdw_start_result res = { .recovery = NULL };
	struct fdw_secret *pass = NULL;
	struct fdw_encrypt *e = fdw_encrypt_new();
	const char *no_boot;
	char why[2560];
	int rc, exit_code = FDW_EXIT_ERROR;

	if (!e) {
		fprintf(stderr, "%s: %s\n", fdw_progname, strerror(ENOMEM));
		return FDW_EXIT_ERROR;
	}
	rc = fdw_encrypt_prepare(e, address, &eo, why, sizeof(why));
	/* A refused plan is shown after the reason: the user sees what was asked. */
	if (rc) {
		failed(address, why);
		goto out;
	}
	no_boot = o->crypttab ? fdw_encrypt_boot_unavailable(e, o->boot.root) : NULL;
	if (no_boot) {
		snprintf(why, sizeof(why), _("--crypttab: %s Nothing was changed."), no_boot);
		failed(address, why);
		goto out;
	}
	show_plan(address, o, e);
	if (o->dry_run) {
		printf(_("Dry run: nothing was changed.\n"));
		exit_code = FDW_EXIT_OK;
		goto out;
	}
	if (!o->yes && !confirm_typed(address)) {
		printf(_("Not confirmed. Nothing was changed.\n"));
		cli_event("failed", "device", address, "reason", "not confirmed", NULL);
		goto out;
	}
	pass = passphrase_get(o->key_file, true);
	if (!pass || passphrase_check_new(pass, o->accept_weak, !o->yes && isatty(STDIN_FILENO))) {
		cli_event("failed", "device", address, "reason",
			  "no passphrase that can be used (its messages say why)", NULL);
		goto out;
	}
	/* Held until the conversion runs, where a stop request means "at a safe point". */
	fdw_stop_signals_defer();
	so.ctx = e;
	rc = fdw_encrypt_start(e, pass, &so, &res, why, sizeof(why));
	if (rc < 0) {
		failed(address, why);
		goto out;
	}
	if (rc > 0)
		fprintf(stderr, _("%s: warning: %s\n"), fdw_progname, cli_safe(why));
	/* Never the key itself: only whether one was made, tested and escrowed. */
	cli_event("started", "device", address, "luks_uuid", fdw_encrypt_job(e)->id,
		  "recovery_key", res.recovery ? "made and tested" : "none",
		  "escrowed", res.recovery && fdw_escrow_wanted(&o->escrow) ? "yes" : "no", NULL);
	say_started(address, o, e, &res);
	if (o->foreground)
		exit_code = conversion_foreground_started(e, pass, o->mount_at);
	else
		exit_code = conversion_launch(e, pass, o->mount_at);
	ended(address, o, exit_code);
out:
	fdw_start_result_wipe(&res);
	fdw_secret_free(pass);
	fdw_encrypt_free(e);
	return exit_code;
}

enum encrypt_option { OPT_KEY_FILE = 256, OPT_STRATEGY, OPT_CIPHER, OPT_KEY_SIZE, OPT_SECTOR,
       OPT_BACKUP, OPT_DRY_RUN, OPT_FOREGROUND, OPT_YES, OPT_FAST, OPT_WORK,
       OPT_OFFLINE, OPT_MOUNT, OPT_NO_BENCH,
       OPT_BENCH_SCALE, OPT_CRYPTTAB, OPT_ROOT, OPT_NAME, OPT_DISCARD, OPT_AT_RESTART,
       OPT_RECOVERY_KEY, OPT_ACCEPT_WEAK, OPT_LOW_BATTERY, OPT_TPM, OPT_PCRS, OPT_PACE,
       OPT_ESCROW_COMMAND, OPT_ESCROW_DIR, OPT_EVENTS };

/* Take option @c of encrypt into @o: -1, or the exit code when the command ends here. */
static int take_option(int c, struct encrypt_opts *o)
{
	switch (c) {
	case OPT_KEY_FILE: o->key_file = optarg; break;
	case OPT_STRATEGY:
		if (parse_strategy(optarg, &o->rq.strategy)) {
			fprintf(stderr, _("%s: unknown strategy '%s'.\n"), fdw_progname,
				optarg);
			cli_usage_error("encrypt");
			return FDW_EXIT_USAGE;
		}
		if (o->rq.strategy == FDW_STRATEGY_DETACHED)
			o->rq.detached_header = optarg + 16;
		break;
	case OPT_CIPHER: o->rq.cipher_spec = optarg; break;
	case OPT_KEY_SIZE:
	case OPT_SECTOR:
		if (parse_count(optarg, c == OPT_SECTOR ? &o->rq.sector_size :
				&o->rq.key_bits) != 0) {
			fprintf(stderr, _("%s: '%s' is not a valid number for --%s.\n"),
				fdw_progname, optarg, c == OPT_SECTOR ? "sector-size" :
				"key-size");
			cli_usage_error("encrypt");
			return FDW_EXIT_USAGE;
		}
		break;
	case OPT_BACKUP: o->header_backup = optarg; break;
	case OPT_WORK: o->work_dir = optarg; break;
	case OPT_DRY_RUN: o->dry_run = true; break;
	case OPT_FOREGROUND: o->foreground = true; break;
	case OPT_YES: o->yes = true; break;
	case OPT_ACCEPT_WEAK: o->accept_weak = true; break;
	case OPT_LOW_BATTERY: o->allow_low_battery = true; break;
	case OPT_FAST: o->fast_pbkdf = true; break;
	case OPT_OFFLINE: o->offline = true; break;
	case OPT_MOUNT: o->mount_at = optarg; break;
	case OPT_NO_BENCH: o->no_bench = true; break;
	case OPT_CRYPTTAB: o->crypttab = true; break;
	case OPT_RECOVERY_KEY: o->recovery_key = true; break;
	/* Escrow is of the recovery key: asking for it asks for the key. */
	case OPT_ESCROW_COMMAND: o->escrow.command = optarg; o->recovery_key = true; break;
	case OPT_ESCROW_DIR: o->escrow.dir = optarg; o->recovery_key = true; break;
	case OPT_EVENTS:
		if (strcmp(optarg, "json")) {
			fprintf(stderr, _("%s: unknown event format '%s': json.\n"), fdw_progname,
				optarg);
			cli_usage_error("encrypt");
			return FDW_EXIT_USAGE;
		}
		o->events = true;
		break;
	case OPT_ROOT: o->boot.root = optarg; break;
	case OPT_NAME: o->boot.name = optarg; break;
	case OPT_DISCARD: o->boot.discard = true; break;
	case OPT_AT_RESTART: o->at_restart = true; break;
	case OPT_TPM:
		if (!o->tpm_pcrs)
			o->tpm_pcrs = FDW_TPM_DEFAULT_PCRS;
		break;
	case OPT_PCRS: o->tpm_pcrs = optarg; break;
	case OPT_PACE:
		if (fdw_pace_parse(optarg) < 0) {
			fprintf(stderr, _("%s: unknown pace '%s': auto, gentle or full.\n"),
				fdw_progname, optarg);
			cli_usage_error("encrypt");
			return FDW_EXIT_USAGE;
		}
		o->pace = (enum fdw_pace)fdw_pace_parse(optarg);
		break;
	case OPT_BENCH_SCALE: {
		enum fdw_bench_scale scale;

		if (fdw_bench_scale_parse(optarg, &scale) != 0) {
			fprintf(stderr, _("%s: unknown benchmark scale '%s'.\n"),
				fdw_progname, optarg);
			cli_usage_error("encrypt");
			return FDW_EXIT_USAGE;
		}
		o->bench_scale = optarg;
		break;
	}
	case 'h': encrypt_usage(stdout); return FDW_EXIT_OK;
	default: cli_usage_error("encrypt"); return FDW_EXIT_USAGE;
	}
	return -1;
}

/* The options together: -1 when they make sense, else the exit code (nothing changed). */
static int check_options(struct encrypt_opts *o)
{
	/* Both would read stdin: the confirmation could swallow part of the key. */
	if (o->key_file && !strcmp(o->key_file, "-") && !o->yes && !o->dry_run) {
		fprintf(stderr, _("%s: --key-file - reads the key from stdin, where the typed "
				  "confirmation is read too; add --yes. Nothing was changed.\n"),
			fdw_progname);
		return FDW_EXIT_USAGE;
	}
	if (!o->crypttab && (o->boot.root || o->boot.name || o->boot.discard)) {
		fprintf(stderr, _("%s: --root, --name and --discard go with --crypttab. Nothing "
				  "was changed.\n"), fdw_progname);
		return FDW_EXIT_USAGE;
	}
	if (o->boot.name && !fdw_crypttab_name_valid(o->boot.name)) {
		fprintf(stderr, _("%s: --name %s: use letters, digits, '-', '_' and '.' (at most "
				  "127). Nothing was changed.\n"), fdw_progname, o->boot.name);
		return FDW_EXIT_USAGE;
	}
	if (!o->boot.root)
		o->boot.root = "/";
	o->boot.fstab = true;
	if (o->crypttab) {
		char etc[PATH_MAX];

		/* Checked now: finding out after the header went on would be too late to ask. */
		snprintf(etc, sizeof(etc), "%s/etc", o->boot.root);
		if (access(etc, W_OK | X_OK) != 0) {
			fprintf(stderr, _("%s: --crypttab: %s cannot be written (%s). Nothing was "
					  "changed; check --root.\n"), fdw_progname, etc,
				strerror(errno));
			return FDW_EXIT_ERROR;
		}
	}
	return -1;
}

int cmd_encrypt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, OPT_KEY_FILE },
		{ "strategy", required_argument, NULL, OPT_STRATEGY },
		{ "cipher", required_argument, NULL, OPT_CIPHER },
		{ "key-size", required_argument, NULL, OPT_KEY_SIZE },
		{ "sector-size", required_argument, NULL, OPT_SECTOR },
		{ "header-backup", required_argument, NULL, OPT_BACKUP },
		{ "work-dir", required_argument, NULL, OPT_WORK },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "foreground", no_argument, NULL, OPT_FOREGROUND },
		{ "yes", no_argument, NULL, OPT_YES },
		{ "accept-weak-passphrase", no_argument, NULL, OPT_ACCEPT_WEAK },
		{ "allow-low-battery", no_argument, NULL, OPT_LOW_BATTERY },
		{ "fast-pbkdf", no_argument, NULL, OPT_FAST },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "mount", required_argument, NULL, OPT_MOUNT },
		{ "no-bench", no_argument, NULL, OPT_NO_BENCH },
		{ "bench-scale", required_argument, NULL, OPT_BENCH_SCALE },
		{ "pace", required_argument, NULL, OPT_PACE },
		{ "crypttab", no_argument, NULL, OPT_CRYPTTAB },
		{ "recovery-key", no_argument, NULL, OPT_RECOVERY_KEY },
		{ "escrow-command", required_argument, NULL, OPT_ESCROW_COMMAND },
		{ "escrow-dir", required_argument, NULL, OPT_ESCROW_DIR },
		{ "events", required_argument, NULL, OPT_EVENTS },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "discard", no_argument, NULL, OPT_DISCARD },
		{ "at-restart", no_argument, NULL, OPT_AT_RESTART },
		{ "tpm", no_argument, NULL, OPT_TPM },
		{ "pcrs", required_argument, NULL, OPT_PCRS },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct encrypt_opts o = { 0 };
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		rc = take_option(c, &o);
		if (rc >= 0)
			return rc;
	}
	if (optind != argc - 1) {
		encrypt_usage(stderr);
		return FDW_EXIT_USAGE;
	}
	fdw_secret_harden_process();
	if (o.events && cli_events_begin() != 0) {
		fprintf(stderr, _("%s: --events: standard output cannot carry them (%s). "
				  "Nothing was changed.\n"), fdw_progname, strerror(errno));
		return FDW_EXIT_ERROR;
	}
	if (o.at_restart && o.tpm_pcrs) {
		fprintf(stderr, _("%s: --tpm does not go with --at-restart yet: encrypt at the "
				  "restart, then 'fdewiz tpm enrol' once it is done. Nothing was "
				  "changed.\n"), fdw_progname);
		return FDW_EXIT_USAGE;
	}
	if (o.at_restart) {
		struct cli_restart_opts ro = { .key_file = o.key_file, .yes = o.yes,
					       .accept_weak = o.accept_weak,
					       .fast_pbkdf = o.fast_pbkdf, .dry_run = o.dry_run,
					       .no_bench = o.no_bench,
					       .bench_scale = o.bench_scale,
					       .escrow = o.escrow };

		return cli_encrypt_at_restart(argv[optind], &ro);
	}
	rc = check_options(&o);
	if (rc >= 0)
		return rc;
	return do_encrypt(argv[optind], &o);
}
