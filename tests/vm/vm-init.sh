#!/bin/busybox sh
# fdewiz VM tests: PID 1 of the guest; mounts the host root read-only and runs one job.
#
# Runs from the initramfs built by vm-prepare.sh.  The job (a bash script written by
# vm-run.sh) arrives through QEMU's fw_cfg, so no host path needs to be writable or
# visible for it.  The job's exit code is printed as "FDEWIZ-VM-EXIT=<rc>" on the
# console, which vm-run.sh parses; setup problems print "FDEWIZ-VM-ERROR: ..." and no
# exit marker, so the host never mistakes a broken guest for a passing test.

/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /proc /sys /dev /host /ovl /newroot
/bin/busybox --install -s
export PATH=/sbin:/bin:/usr/sbin:/usr/bin

fail()
{
	echo "FDEWIZ-VM-ERROR: $*"
	sync
	poweroff -f
	# poweroff should not return; make the kernel stop us if it does.
	exit 1
}

mount -t proc proc /proc || fail "cannot mount /proc"
mount -t sysfs sysfs /sys || fail "cannot mount /sys"
# devtmpfs gives /dev/vda1... and, once dm-mod is loaded, /dev/mapper/control.
mount -t devtmpfs devtmpfs /dev || fail "cannot mount devtmpfs"
# Plain LF on the console keeps host logs free of CR characters.
stty -F /dev/console -onlcr 2>/dev/null

verbose=0
grep -qw fdewiz.verbose /proc/cmdline && verbose=1

# Dependency order, as "modprobe --show-depends" printed it; E = essential.
while read -r kind path; do
	[ -n "$path" ] || continue
	out=$(insmod "/$path" 2>&1) && continue
	case "$out" in
	*"File exists"*) continue ;;
	esac
	if [ "$kind" = E ]; then
		fail "insmod $path: $out"
	fi
	[ "$verbose" = 1 ] && echo "fdewiz-vm: optional module $path not loaded: $out"
done < /modules.list

cp /sys/firmware/qemu_fw_cfg/by_name/opt/fdewiz/job/raw /job.sh ||
	fail "no job in fw_cfg (opt/fdewiz/job)"

# msize: the 8 KiB default makes every read of the host tree slow.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host ||
	fail "cannot mount the host root over 9p"
mount -t tmpfs -o mode=0755 tmpfs /ovl || fail "cannot mount tmpfs for the overlay"
mkdir -p /ovl/upper /ovl/work
mount -t overlay -o lowerdir=/host,upperdir=/ovl/upper,workdir=/ovl/work overlay /newroot ||
	fail "cannot mount the overlay root"

for d in proc sys dev; do
	mount --move "/$d" "/newroot/$d" || fail "cannot move /$d into the new root"
done
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run || fail "cannot mount /run"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /newroot/tmp || fail "cannot mount /tmp"
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /newroot/dev/shm
ip link set lo up 2>/dev/null

cp /job.sh /newroot/run/fdewiz-vm-job.sh || fail "cannot copy the job"

# The job runs as a child so that PID 1 stays here to report and power off.
chroot /newroot /bin/bash /run/fdewiz-vm-job.sh </dev/null
rc=$?

sync
echo
echo "FDEWIZ-VM-EXIT=$rc"
poweroff -f
exit "$rc"
