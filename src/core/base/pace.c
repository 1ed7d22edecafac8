/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How a conversion shares the disk with the person at the computer: its priorities, and
 * the waits between two hotzones while someone else uses the disk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "i18n.h"
#include "log.h"
#include "pace.h"

static const char *const names[FDW_PACE__COUNT] = {
	[FDW_PACE_AUTO] = "auto", [FDW_PACE_GENTLE] = "gentle", [FDW_PACE_FULL] = "full",
};

const char *fdw_pace_name(enum fdw_pace pace)
{
	return pace < FDW_PACE__COUNT ? names[pace] : NULL;
}

int fdw_pace_parse(const char *name)
{
	for (int i = 0; name && i < FDW_PACE__COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const char *fdw_pace_text(enum fdw_pace pace)
{
	switch (pace) {
	case FDW_PACE_GENTLE:
		return _("gentle: leaves most of the disk to other work");
	case FDW_PACE_FULL:
		return _("full speed, whatever else runs");
	default:
		return _("auto: full speed on a quiet disk, yields while other work uses it");
	}
}

/* The kernel's ioprio_set(2); glibc has no wrapper. */
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_VALUE(cls, level) (((cls) << 13) | (level))

int fdw_pace_priority(enum fdw_pace pace)
{
	/* What the process had before the first change (a service may start at nice 10):
	 * full goes back to it, and the others never raise it. */
	static int base_nice = INT_MIN, base_io = -1;
	int nice_to, io, rc = 0;

	if (base_nice == INT_MIN) {
		errno = 0;
		base_nice = getpriority(PRIO_PROCESS, 0);
		if (errno)
			base_nice = 0;
		base_io = (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
	}
	nice_to = pace == FDW_PACE_GENTLE ? 19 : pace == FDW_PACE_AUTO ? 10 : base_nice;
	if (nice_to < base_nice)
		nice_to = base_nice;
	/* The idle class for auto and gentle: mq-deadline serves levels within best-effort
	 * alike, so only another class yields in the scheduler; its aging keeps it from
	 * starving. */
	io = pace == FDW_PACE_FULL ? (base_io >= 0 ? base_io : IOPRIO_VALUE(IOPRIO_CLASS_BE, 4)) :
	     IOPRIO_VALUE(IOPRIO_CLASS_IDLE, 0);
	/* Lowering is always allowed; raising back (full after gentle) needs root. */
	if (setpriority(PRIO_PROCESS, 0, nice_to) != 0)
		rc = -errno;
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, io) != 0 && !rc)
		rc = -errno;
	if (rc)
		fdw_log(FDW_LOG_DEBUG, "pace %s: priority not set: %s", fdw_pace_name(pace),
			strerror(-rc));
	return rc;
}

double fdw_pace_wait(enum fdw_pace pace, double others_bps, double step_s)
{
	double w;

	if (pace == FDW_PACE_FULL || step_s <= 0)
		return 0;
	/* The disk in use: a quarter of the time for the conversion (auto), a tenth (gentle).
	 * Quiet: auto runs flat out, gentle still takes only half. */
	if (others_bps > FDW_PACE_BUSY_BPS)
		w = step_s * (pace == FDW_PACE_GENTLE ? 9.0 : 3.0);
	else
		w = pace == FDW_PACE_GENTLE ? step_s : 0;
	return w > FDW_PACE_MAX_WAIT_S ? FDW_PACE_MAX_WAIT_S : w;
}

bool fdw_pace_parse_stat(const char *text, uint64_t *bytes)
{
	unsigned long long f[7];

	/* reads, merged, sectors read, ms, writes, merged, sectors written, ... */
	if (sscanf(text, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
		   &f[4], &f[5], &f[6]) != 7)
		return false;
	*bytes = (uint64_t)(f[2] + f[6]) * 512u;
	return true;
}

static bool disk_bytes(const char *path, uint64_t *bytes)
{
	char buf[512];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return fdw_pace_parse_stat(buf, bytes);
}

/* The device a loop device's backing file lives on (sysfs names the file), or 0. */
static dev_t loop_backing(dev_t loop)
{
	char path[64], file[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file", major(loop),
		 minor(loop));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, file, sizeof(file) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	file[n] = '\0';
	file[strcspn(file, "\n")] = '\0';
	return stat(file, &st) == 0 ? st.st_dev : 0;
}

/* The whole disk of block device @dev: its sysfs stat path; a partition's is its parent's. */
static bool whole_disk_stat(dev_t dev, char *buf, size_t len)
{
	char link[64], real[PATH_MAX], part[PATH_MAX + 16];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (!realpath(link, real))
		return false;
	if ((size_t)snprintf(part, sizeof(part), "%s/partition", real) >= sizeof(part))
		return false;
	if (access(part, F_OK) == 0) {
		char *slash = strrchr(real, '/');

		if (!slash)
			return false;
		*slash = '\0';
	}
	return (size_t)snprintf(buf, len, "%s/stat", real) < len && access(buf, R_OK) == 0;
}

void fdw_pacer_init(struct fdw_pacer *p, const char *device)
{
	struct stat st;
	dev_t dev = 0;

	memset(p, 0, sizeof(*p));
	if (stat(device, &st) != 0)
		return;
	dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	/* Loop devices over files over loop devices: down to a disk, a few levels at most. */
	for (int depth = 0; depth < 4 && major(dev) == 7; depth++) {
		dev_t under = loop_backing(dev);

		if (!under)
			break;
		dev = under;
	}
	if (!whole_disk_stat(dev, p->stat_path, sizeof(p->stat_path)))
		p->stat_path[0] = '\0';
	fdw_log(FDW_LOG_DEBUG, "pace: watching %s", p->stat_path[0] ? p->stat_path : "nothing");
}

double fdw_pacer_step(struct fdw_pacer *p, enum fdw_pace pace, uint64_t done,
		      volatile sig_atomic_t *stop)
{
	double now = fdw_now_s(), wait, waited = 0;
	uint64_t bytes;

	/* Called again with nothing more done (libcryptsetup reports a hotzone's start and
	 * its end): the window goes on, so that its bytes are measured against its work. */
	if (!p->stat_path[0] || (p->primed && done == p->done) ||
	    !disk_bytes(p->stat_path, &bytes))
		return 0;
	if (p->primed && now > p->t && done >= p->done) {
		/* The conversion's own: each byte read once and written once, and the header's
		 * updates after each hotzone (80 KiB measured with the default metadata). */
		uint64_t own = 2 * (done - p->done) + FDW_PACE_STEP_OWN_BYTES,
			 seen = bytes - p->disk_bytes;

		p->others_bps = seen > own ? (double)(seen - own) / (now - p->t) : 0;
		wait = fdw_pace_wait(pace, p->others_bps, now - p->t);
		fdw_log(FDW_LOG_DEBUG, "pace %s: %.3f s, disk %llu, own %llu, others %.0f B/s, "
			"wait %.3f s", fdw_pace_name(pace), now - p->t, (unsigned long long)seen,
			(unsigned long long)own, p->others_bps, wait);
	} else {
		wait = 0;
	}
	p->yielding = wait > 0 && p->others_bps > FDW_PACE_BUSY_BPS;
	while (waited < wait && !(stop && *stop)) {
		double nap = wait - waited > 0.1 ? 0.1 : wait - waited;

		nanosleep(&(struct timespec){ 0, (long)(nap * 1e9) }, NULL);
		waited += nap;
	}
	/* The next step is measured from here: the wait is not the conversion's time. */
	p->primed = true;
	p->t = fdw_now_s();
	p->done = done;
	if (!disk_bytes(p->stat_path, &p->disk_bytes))
		p->primed = false;
	return waited;
}
