# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the one-restart encryption leaves on a system, made by hand for the host tests of
# what status and the wizard say of it (the real thing: test-vm-system-restart*.sh).
#
# restart_stage DIR PARTUUID ADDRESS UUID FS_UUID: the stage record 'encrypt --at-restart'
# writes in the state folder DIR (restart_files.c's format), naming the root by its
# PARTUUID link (a loop device has none) and as the person named it (ADDRESS).
restart_stage()
{
	mkdir -p "$1/restart"
	chmod 0700 "$1" "$1/restart"
	printf '# fdewiz: the root to encrypt at the next restart\ndevice=%s\naddress=%s\nuuid=%s\nfs_uuid=%s\nname=root_crypt\nboot_mib=0\nfstype=ext4\n' \
		"/dev/disk/by-partuuid/$2" "$3" "$4" "$5" >"$1/restart/stage"
	chmod 0600 "$1/restart/stage"
}

# restart_interrupted ADDRESS DIR: fdewiz's own offline conversion of ADDRESS killed at
# 30 % (as a power cut during the service's conversion leaves it: recorded, interrupted),
# the passphrase "restart passphrase" in DIR/key, its output in DIR/enc.out (its last
# lines printed unless it was killed). Returns its exit status: 137 when killed.
restart_interrupted()
{
	local rc=0
	printf 'restart passphrase' >"$2/key"
	FDEWIZ_TEST_KILL_AT=progress=30 "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf \
		--no-bench --key-file "$2/key" "$1" >"$2/enc.out" 2>&1 || rc=$?
	[ "$rc" = 137 ] || tail -n 5 "$2/enc.out"
	return "$rc"
}

# restart_key put|drop UUID: the passphrase the step at a restart leaves in root's user
# keyring for the service ("fdewiz-restart:UUID"), put there or taken away with the
# keyring's system calls (add_key, keyctl; x86-64 numbers), as the service takes it.
restart_key()
{
	python3 - "$1" "fdewiz-restart:$2" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
user = ctypes.c_long(-4)  # KEY_SPEC_USER_KEYRING
desc = sys.argv[2].encode()
if sys.argv[1] == "put":
    sys.exit(0 if libc.syscall(248, b"user", desc, b"restart passphrase", 18, user) > 0 else 1)
key = libc.syscall(250, 10, user, b"user", desc, 0)  # KEYCTL_SEARCH
if key > 0:
    libc.syscall(250, 3, ctypes.c_long(key), 0, 0, 0)  # KEYCTL_REVOKE
    libc.syscall(250, 9, ctypes.c_long(key), user, 0, 0)  # KEYCTL_UNLINK
PY
}
