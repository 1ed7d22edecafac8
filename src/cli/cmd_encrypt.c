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
#include "core/convert.h"
#include "core/fsresize.h"
#include "core/partgrow.h"
#include "core/i18n.h"
#include "core/plan.h"
#include "core/target.h"
#include "core/units.h"
#include "conversion.h"
#include "core/job.h"
#include "passphrase.h"

static void print_plan(const struct fdw_target *t, const struct fdw_plan *pl)
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
	if (pl->grow_bytes)
		printf(_("  partition grows: by %s into the free space after it\n"),
		       fdw_format_size(pl->grow_bytes, a, sizeof(a)));
	printf(_("  encrypted volume: %s\n"), fdw_format_size(pl->volume_size, a, sizeof(a)));
	printf(_("  cipher:          %s-%s, %u-bit key\n"), pl->cipher, pl->cipher_mode,
	       pl->key_bits);
	printf(_("  sector size:     %u bytes (filesystem block: %lld)\n"), pl->sector_size,
	       (long long)t->part->fs_block_size);
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
	bool dry_run, yes, fast_pbkdf, foreground, offline;
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
	else if (!strncmp(s, "detached-header=", 16) && s[16])
		*out = FDW_STRATEGY_DETACHED;
	else
		return -EINVAL;
	return 0;
}

static void encrypt_usage(FILE *out)
{
	fprintf(out, _("Usage: %s encrypt [OPTIONS] DEVICE|IMAGE:N\n"
		       "Encrypt a partition in place with LUKS2, keeping its data.\n"
		       "  --key-file FILE|-     read the passphrase from FILE (or stdin)\n"
		       "  --strategy auto|shrink|grow|detached-header=FILE\n"
		       "  --cipher SPEC         default aes-xts-plain64\n"
		       "  --key-size BITS       default 512\n"
		       "  --sector-size BYTES   default: 4096 when the filesystem allows it\n"
		       "  --header-backup FILE  default %s/ADDRESS-TIME.header\n"
		       "  --dry-run             print the plan and change nothing\n"
		       "  --foreground          convert in this process with a progress line\n"
		       "  --yes                 do not ask for the typed confirmation\n"
		       "  --offline             do not open the volume while it converts\n"
		       "  --mount DIR           online: mount the opened volume at DIR\n"
		       "  --fast-pbkdf          weak key derivation, for tests only\n"),
		fdw_progname, fdw_state_dir());
}

/* @path made absolute against the current directory (the file need not exist yet). */
static char *absolute_path(const char *path)
{
	char cwd[PATH_MAX], *abs;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, path) < 0)
		return NULL;
	return abs;
}

/* A file name for the header backup derived from the address ("/dev/sda2" -> "sda2"). */
static char *default_backup_path(const char *address)
{
	const char *base = strrchr(address, '/');
	char *path;

	base = base ? base + 1 : address;
	if (asprintf(&path, "%s/%s-%ld.header", fdw_state_dir(), base, (long)time(NULL)) < 0)
		return NULL;
	/* "disk.img:2" -> "disk.img-2": a colon confuses scp and some shells. */
	for (char *c = strrchr(path, '/'); c && *c; c++)
		if (*c == ':')
			*c = '-';
	return path;
}

/* Can a new file be made at @path? Its directory must exist and be writable. */
static int dir_writable_for(const char *path)
{
	char *copy = strdup(path), *slash;
	int rc;

	if (!copy)
		return -ENOMEM;
	slash = strrchr(copy, '/');
	if (slash == copy)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	rc = access(slash ? copy : ".", W_OK | X_OK) == 0 ? 0 : -errno;
	free(copy);
	return rc;
}

/*
 * Every path a run will write is checked before anything changes: a missing directory
 * found after the filesystem was shrunk would leave a half-done job behind.
 */
static int check_paths(const struct fdw_plan *plan, const struct encrypt_opts *o)
{
	const struct { const char *path, *what; bool is_dir; } paths[] = {
		{ o->work_dir, "--work-dir", true },
		{ o->header_backup, "--header-backup", false },
		{ plan->detached_header, "--strategy detached-header", false },
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *p = paths[i].path;
		int rc;

		if (!p)
			continue;
		rc = paths[i].is_dir ? (access(p, W_OK | X_OK) == 0 ? 0 : -errno)
				     : dir_writable_for(p);
		if (!rc && !paths[i].is_dir && access(p, F_OK) == 0)
			rc = -EEXIST;
		if (rc == -EEXIST) {
			fprintf(stderr, _("%s: %s %s already exists; fdewiz never overwrites it. "
					  "Choose another name. Nothing was changed.\n"), fdw_progname,
				paths[i].what, p);
			return rc;
		}
		if (rc) {
			fprintf(stderr, _("%s: %s %s: its directory cannot be written (%s). Choose "
					  "a writable place. Nothing was changed.\n"), fdw_progname,
				paths[i].what, p, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Size of a block device as the kernel sees it, or 0. */
static uint64_t kernel_size(const char *node)
{
	uint64_t bytes = 0;
	int fd = open(node, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
		bytes = 0;
	close(fd);
	return bytes;
}

/*
 * Give the header its room (shrink the filesystem or grow the partition; nothing for a
 * detached header) and leave @t attached to a device covering the partition. Prints
 * its own message, saying what changed, on failure.
 */
static int make_room(struct fdw_target *t, const struct fdw_plan *plan, const char *address)
{
	int rc;

	if (plan->strategy == FDW_STRATEGY_GROW) {
		printf(_("Growing the partition into the free space after it...\n"));
		rc = fdw_partition_grow(t->disk.path, t->part->number, plan->grow_bytes);
		if (rc) {
			fprintf(stderr, _("%s: the partition could not grow (%s). Nothing was "
					  "changed.\n"), fdw_progname, strerror(-rc));
			return rc;
		}
		/* Sizes and offsets changed: look at the partition again. */
		fdw_target_close(t);
		rc = fdw_target_open(address, t);
		if (!rc && t->part->node && kernel_size(t->part->node) != plan->partition_size) {
			/* libparted may have failed to tell the kernel; the header would then
			 * land on the old, smaller partition's live data. */
			fprintf(stderr, _("%s: the partition table now says %s is %llu bytes, but the "
					  "kernel still sees the old size. Nothing else was changed; "
					  "run partprobe (or reboot), then run fdewiz again.\n"),
				fdw_progname, t->part->node,
				(unsigned long long)plan->partition_size);
			return -EIO;
		}
		if (rc || t->part->size != plan->partition_size) {
			fprintf(stderr, _("%s: the partition table was changed (partition grown by "
					  "%llu bytes) but the new size cannot be confirmed. The data is "
					  "intact and not encrypted.\n"), fdw_progname,
				(unsigned long long)plan->grow_bytes);
			return rc ? rc : -EIO;
		}
	}
	rc = fdw_target_attach(t);
	if (rc) {
		fprintf(stderr, _("%s: cannot attach a loop device for %s: %s. %s\n"),
			fdw_progname, address, strerror(-rc), plan->grow_bytes ?
			_("The partition was grown; its data is intact and not encrypted.") :
			_("Nothing was changed."));
		return rc;
	}
	if (plan->strategy != FDW_STRATEGY_SHRINK)
		return 0;
	printf(_("Shrinking the filesystem...\n"));
	rc = fdw_ext_shrink(t->device, plan->fs_size_max);
	if (rc)
		fprintf(stderr, _("%s: the filesystem could not be shrunk (%s). The data is "
				  "intact and not encrypted; check it with e2fsck -f.\n"),
			fdw_progname, strerror(-rc));
	return rc;
}

static int do_encrypt(const char *address, const struct encrypt_opts *o)
{
	struct fdw_convert_params cp = { 0 };
	struct fdw_job job = { 0 };
	struct fdw_secret *pass = NULL;
	struct fdw_target t;
	struct fdw_plan plan;
	const char *why;
	char *backup = NULL;
	int rc, lock = -1, exit_code = FDW_EXIT_ERROR;

	if (!o->dry_run && geteuid() != 0) {
		fprintf(stderr, _("%s: encrypting needs root; run it with sudo (or try --dry-run). "
				  "Nothing was changed.\n"), fdw_progname);
		return FDW_EXIT_ERROR;
	}
	rc = fdw_target_open(address, &t);
	if (!rc && !o->dry_run) {
		/* Lock, then look again: a run that held the lock may have just changed it. */
		lock = conversion_lock(&t, address);
		fdw_target_close(&t);
		if (lock < 0)
			return FDW_EXIT_ERROR;
		rc = fdw_target_open(address, &t);
	}
	if (rc) {
		if (lock >= 0)
			close(lock);
		cli_report_scan_error(address, rc);
		return FDW_EXIT_ERROR;
	}
	rc = fdw_plan_make(t.part, &o->rq, &plan, &why);
	if (rc) {
		char detail[512];

		/* The verdict's own sentence names the mountpoint or holder. */
		if (rc == -EPERM)
			fdw_verdict_explain(t.part, detail, sizeof(detail));
		fprintf(stderr, _("%s: %s cannot be encrypted: %s Nothing was changed.\n"),
			fdw_progname, address, rc == -EPERM ? detail : why);
		goto out;
	}
	print_plan(&t, &plan);
	if (o->dry_run) {
		printf(_("Dry run: nothing was changed.\n"));
		exit_code = FDW_EXIT_OK;
		goto out;
	}
	if (check_paths(&plan, o) != 0)
		goto out;
	if (!o->yes && !confirm_typed(address)) {
		printf(_("Not confirmed. Nothing was changed.\n"));
		goto out;
	}
	pass = passphrase_get(o->key_file, true);
	if (!pass)
		goto out;
	/* The worker runs in "/": a relative path would later point somewhere else. */
	backup = o->header_backup ? absolute_path(o->header_backup) :
				    default_backup_path(address);
	rc = fdw_state_dir_ensure();
	if (!backup || rc) {
		fprintf(stderr, _("%s: cannot create %s: %s. Nothing was changed.\n"),
			fdw_progname, fdw_state_dir(), strerror(rc ? -rc : ENOMEM));
		goto out;
	}
	/* Checked before anything changes: libcryptsetup refuses to overwrite a backup. */
	if (access(backup, F_OK) == 0) {
		fprintf(stderr, _("%s: the header backup %s already exists; choose another "
				  "--header-backup. Nothing was changed.\n"), fdw_progname, backup);
		goto out;
	}

	if (fdw_new_uuid(job.id, sizeof(job.id)) != 0) {
		fprintf(stderr, _("%s: cannot make a UUID. Nothing was changed.\n"), fdw_progname);
		goto out;
	}
	conversion_defer_signals();
	if (make_room(&t, &plan, address) != 0)
		goto out;
	cp.device = t.device;
	cp.detached_header = plan.detached_header;
	cp.uuid = job.id;
	cp.cipher = plan.cipher;
	cp.cipher_mode = plan.cipher_mode;
	cp.key_bits = plan.key_bits;
	cp.sector_size = plan.sector_size;
	cp.work_dir = o->work_dir ? o->work_dir : fdw_state_dir();
	cp.header_backup = backup;
	cp.fast_pbkdf = o->fast_pbkdf;
	printf(_("Writing the LUKS2 header (backup: %s)...\n"), backup);
	rc = fdw_convert_init(&cp, pass);
	if (rc) {
		fprintf(stderr, _("%s: the LUKS2 header could not be written: %s. The data was "
				  "not moved and is not encrypted%s.\n"), fdw_progname, strerror(-rc),
			plan.strategy == FDW_STRATEGY_SHRINK ? _("; the filesystem was shrunk") :
			plan.strategy == FDW_STRATEGY_GROW ? _("; the partition was grown") : "");
		goto out;
	}
	snprintf(job.address, sizeof(job.address), "%s", t.part->address);
	snprintf(job.header_backup, sizeof(job.header_backup), "%s", backup);
	if (plan.detached_header && !realpath(plan.detached_header, job.detached_header))
		snprintf(job.detached_header, sizeof(job.detached_header), "%s",
			 plan.detached_header);
	if (plan.strategy == FDW_STRATEGY_SHRINK)
		snprintf(job.fs_to_grow, sizeof(job.fs_to_grow), "%s", t.part->fstype);
	if (fdw_have_device_mapper() && !o->offline)
		snprintf(job.active_name, sizeof(job.active_name), "fdewiz-%.8s", job.id);
	job.created = (int64_t)time(NULL);
	rc = fdw_job_save(&job);
	if (rc)
		fprintf(stderr, _("%s: warning: the job record could not be saved (%s); 'status' "
				  "will read the header only.\n"), fdw_progname, strerror(-rc));
	if (job.active_name[0])
		printf(_("Online conversion: the volume is open as /dev/mapper/%s and usable "
			 "while it converts.\n"), job.active_name);
	else
		printf(_("Offline conversion: %s; keep %s unmounted until it is done.\n"),
		       o->offline ? _("as asked") : _("this system has no device-mapper"),
		       address);
	exit_code = conversion_start(&job, &t, pass, o->foreground, o->mount_at);
out:
	if (lock >= 0)
		close(lock);
	free(backup);
	fdw_secret_free(pass);
	fdw_target_close(&t);
	return exit_code;
}

int cmd_encrypt(int argc, char **argv)
{
	enum { OPT_KEY_FILE = 256, OPT_STRATEGY, OPT_CIPHER, OPT_KEY_SIZE, OPT_SECTOR,
	       OPT_BACKUP, OPT_DRY_RUN, OPT_FOREGROUND, OPT_YES, OPT_FAST, OPT_WORK,
	       OPT_OFFLINE, OPT_MOUNT };
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
		{ "fast-pbkdf", no_argument, NULL, OPT_FAST },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "mount", required_argument, NULL, OPT_MOUNT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct encrypt_opts o = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_KEY_FILE: o.key_file = optarg; break;
		case OPT_STRATEGY:
			if (parse_strategy(optarg, &o.rq.strategy)) {
				fprintf(stderr, _("%s: unknown strategy '%s'.\n"), fdw_progname,
					optarg);
				cli_usage_error("encrypt");
				return FDW_EXIT_USAGE;
			}
			if (o.rq.strategy == FDW_STRATEGY_DETACHED)
				o.rq.detached_header = optarg + 16;
			break;
		case OPT_CIPHER: o.rq.cipher_spec = optarg; break;
		case OPT_KEY_SIZE:
		case OPT_SECTOR:
			if (parse_count(optarg, c == OPT_SECTOR ? &o.rq.sector_size :
					&o.rq.key_bits) != 0) {
				fprintf(stderr, _("%s: '%s' is not a valid number for --%s.\n"),
					fdw_progname, optarg, c == OPT_SECTOR ? "sector-size" :
					"key-size");
				cli_usage_error("encrypt");
				return FDW_EXIT_USAGE;
			}
			break;
		case OPT_BACKUP: o.header_backup = optarg; break;
		case OPT_WORK: o.work_dir = optarg; break;
		case OPT_DRY_RUN: o.dry_run = true; break;
		case OPT_FOREGROUND: o.foreground = true; break;
		case OPT_YES: o.yes = true; break;
		case OPT_FAST: o.fast_pbkdf = true; break;
		case OPT_OFFLINE: o.offline = true; break;
		case OPT_MOUNT: o.mount_at = optarg; break;
		case 'h': encrypt_usage(stdout); return FDW_EXIT_OK;
		default: cli_usage_error("encrypt"); return FDW_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		encrypt_usage(stderr);
		return FDW_EXIT_USAGE;
	}
	/* Both would read stdin: the confirmation could swallow part of the key. */
	if (o.key_file && !strcmp(o.key_file, "-") && !o.yes && !o.dry_run) {
		fprintf(stderr, _("%s: --key-file - reads the key from stdin, where the typed "
				  "confirmation is read too; add --yes. Nothing was changed.\n"),
			fdw_progname);
		return FDW_EXIT_USAGE;
	}
	fdw_secret_harden_process();
	return do_encrypt(argv[optind], &o);
}
