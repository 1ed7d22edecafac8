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
moddir=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	fdewiz.verbose) verbose=1 ;;
	fdewiz.moddir=*) moddir=${arg#fdewiz.moddir=} ;;
	esac
done

# Dependency order, as "modprobe --show-depends" printed it.  E: essential, P: preload,
# L: left for on-demand loading.
while read -r kind path; do
	[ -n "$path" ] && [ "$kind" != L ] || continue
	out=$(insmod "/$path" 2>&1) && continue
	case "$out" in
	*"File exists"*) continue ;;
	esac
	if [ "$kind" = E ]; then
		fail "insmod $path: $out"
	fi
	[ "$verbose" = 1 ] && echo "fdewiz-vm: optional module $path not loaded: $out"
done < /modules.list
[ "$verbose" = 1 ] && echo "fdewiz-vm: modules loaded at $(cut -d' ' -f1 /proc/uptime)s"

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
# devtmpfs lacks the links that udev or systemd would add; bash's <(...) needs /dev/fd.
ln -sf /proc/self/fd /newroot/dev/fd
ln -sf /proc/self/fd/0 /newroot/dev/stdin
ln -sf /proc/self/fd/1 /newroot/dev/stdout
ln -sf /proc/self/fd/2 /newroot/dev/stderr
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /newroot/dev/shm
ip link set lo up 2>/dev/null

# Modules for this kernel at the usual place: the full tree from the host's cache when
# the guest can see it, else the small one packed in the initramfs.
kver=$(uname -r)
mods=/lib/modules/$kver
[ -n "$moddir" ] && [ -f "/newroot$moddir/modules.dep" ] && mods=/newroot$moddir
mkdir -p "/newroot/lib/modules/$kver" &&
	mount --bind "$mods" "/newroot/lib/modules/$kver" || fail "cannot bind $mods"
# Kernel autoload (fs types, crypto templates, dm targets) runs its helper in this root,
# not in the chroot: point it at the chroot's kmod, which sees the tree above.
if chroot /newroot /sbin/modprobe --version >/dev/null 2>&1; then
	printf '#!/bin/sh\nexec chroot /newroot /sbin/modprobe "$@"\n' >/sbin/fdewiz-modprobe
	chmod 0755 /sbin/fdewiz-modprobe
	echo /sbin/fdewiz-modprobe >/newroot/proc/sys/kernel/modprobe
fi

cp /job.sh /newroot/run/fdewiz-vm-job.sh || fail "cannot copy the job"

[ "$verbose" = 1 ] && echo "fdewiz-vm: root ready at $(cut -d' ' -f1 /newroot/proc/uptime)s"
# The job runs as a child so that PID 1 stays here to report and power off.
chroot /newroot /bin/bash /run/fdewiz-vm-job.sh </dev/null
rc=$?

sync
echo
echo "FDEWIZ-VM-EXIT=$rc"
poweroff -f
exit "$rc"
