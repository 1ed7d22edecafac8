/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fuzz the reader of the restart's stage record (the state folder's restart/stage, and its
 * copy in the initramfs, which the step trusts before the root is mounted). */
#include "fuzz_common.h"

#include <stdbool.h>
#include <string.h>

#include "core/boot/restart_files.h"

/* Is "." or ".." one of @path's '/'-separated elements (it would lead out of a mount)? */
static bool has_dot_element(const char *path)
{
	for (const char *e = path;;) {
		size_t n = strcspn(e, "/");

		if ((n == 1 && e[0] == '.') || (n == 2 && e[0] == '.' && e[1] == '.'))
			return true;
		if (!e[n])
			return false;
		e += n + 1;
	}
}

/* LVM's own characters only, not starting with '-', and not "." or "..". */
static bool lvm_name(const char *s)
{
	return s[0] && s[0] != '-' && !has_dot_element(s) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-") ==
		       strlen(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct fdw_restart_stage st;
	FILE *f;

	/* A real file: the reader refuses a link (O_NOFOLLOW), and fuzz_file's path is one. */
	snprintf(path, sizeof(path), "/tmp/fuzz-restart-stage.%d", (int)getpid());
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	if (fdw_restart_stage_read(path, &st) == 0) {
		/* What it accepts is terminated and free of control characters. */
		const char *fields[] = { st.device, st.address, st.uuid, st.fs_uuid, st.name,
					 st.fstype, st.subvol, st.vg, st.root_lv };
		bool pv = !strcmp(st.fstype, "LVM2_member");
		size_t n = strlen(st.subvol);

		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			for (const char *c = fields[i]; *c; c++)
				if ((unsigned char)*c < 0x20 || *c == 0x7f)
					__builtin_trap();
		if (st.boot_mib > 1u << 20)
			__builtin_trap();
		/* A subvolume is joined to a mount point: never one that leads out of it. */
		if (n && (strcmp(st.fstype, "btrfs") || st.subvol[0] == '/' ||
			  has_dot_element(st.subvol)))
			__builtin_trap();
		if (st.fstype[0] && strcmp(st.fstype, "btrfs") && strcmp(st.fstype, "ext2") &&
		    strcmp(st.fstype, "ext3") && strcmp(st.fstype, "ext4") && !pv)
			__builtin_trap();
		/* A volume group and its root volume on a PV only; the root volume's node under
		 * /dev/mapper, never a path that leads elsewhere. */
		if (pv != (st.vg[0] != '\0') || pv != (st.root_lv[0] != '\0'))
			__builtin_trap();
		if (pv && (!lvm_name(st.vg) || strncmp(st.root_lv, "/dev/mapper/", 12) ||
			   !lvm_name(st.root_lv + 12)))
			__builtin_trap();
	}
	unlink(path);
	return 0;
}
