/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Locked, non-dumpable, wiped memory for passphrases and keys. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"
#include "secret.h"

int fdw_secret_new(struct fdw_secret **out, size_t cap)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t map_len = (cap + 1 + (size_t)page - 1) & ~((size_t)page - 1);
	struct fdw_secret *s = calloc(1, sizeof(*s));
	void *mem;

	if (!s)
		return -ENOMEM;
	mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		free(s);
		return -ENOMEM;
	}
	/* A secret that cannot be locked could land in swap: refuse rather than risk it. */
	if (mlock(mem, map_len) != 0) {
		int err = errno;

		munmap(mem, map_len);
		free(s);
		return -err;
	}
	madvise(mem, map_len, MADV_DONTDUMP);
	s->data = mem;
	s->cap = cap;
	s->map_len = map_len;
	s->len = 0;
	*out = s;
	return 0;
}

int fdw_secret_relock(struct fdw_secret *s)
{
	return mlock(s->data, s->map_len) == 0 ? 0 : -errno;
}

void fdw_secret_free(struct fdw_secret *s)
{
	if (!s)
		return;
	explicit_bzero(s->data, s->map_len);
	munlock(s->data, s->map_len);
	munmap(s->data, s->map_len);
	free(s);
}

int fdw_secret_read_file(struct fdw_secret *s, const char *path)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	size_t len = 0;
	int rc = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (len == s->cap) {
			char extra;

			/* Full: anything more means the key does not fit. */
			r = read(fd, &extra, 1);
			if (r > 0)
				rc = -EFBIG;
			break;
		}
		r = read(fd, s->data + len, s->cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (!rc && !len)
		rc = -ENODATA;
	if (rc) {
		explicit_bzero(s->data, s->map_len);
		s->len = 0;
		return rc;
	}
	s->data[len] = '\0';
	s->len = len;
	return 0;
}

void fdw_secret_wipe(struct fdw_secret *s)
{
	if (!s || !s->data)
		return;
	explicit_bzero(s->data, s->map_len);
	s->len = 0;
}

int fdw_secret_equal(const struct fdw_secret *a, const struct fdw_secret *b)
{
	unsigned char diff = (unsigned char)(a->len != b->len);
	size_t n = a->len < b->len ? a->len : b->len;

	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(a->data[i] ^ b->data[i]);
	return diff == 0;
}

int fdw_secret_harden_process(void)
{
	struct rlimit none = { 0, 0 };

	if (setrlimit(RLIMIT_CORE, &none) != 0)
		return -errno;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

void fdw_process_lock_pages(void)
{
	if (mlockall(MCL_CURRENT) != 0)
		fdw_log(FDW_LOG_WARN, "mlockall: %s; a page fault could stall the conversion",
			strerror(errno));
}
