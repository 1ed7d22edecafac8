#!/bin/bash
# fdewiz VM tests: boot a throwaway VM on the host's root and run one script in it.
#
# Usage: vm-run.sh [--disk IMG]... [--mem MB] [--timeout SECONDS] [--keep-going-on-kill]
#                  [--efi] [--tpm SOCKET] [--env NAME=VALUE]... SCRIPT [ARGS...]
#
# SCRIPT (a host path) runs with bash as root in the guest, with FDEWIZ_IN_VM=1.  The
# guest sees the host's root read-only (writes land in a tmpfs overlay and vanish), with
# fresh tmpfs on /run and /tmp: host files under /tmp are NOT visible in the guest, except
# this source tree, which is shared at its own path when it lives under /tmp.
# Each IMG becomes /dev/vda, /dev/vdb... in order, with real partition nodes.
# --efi: the firmware is OVMF (installed-lib.sh's vm_ovmf: a fresh copy of its empty
# variables), which starts the same kernel; --tpm: a TPM 2.0 (tpm-crb) whose emulator
# listens on SOCKET (swtpm socket --ctrl type=unixio,path=SOCKET), /dev/tpm0 in the guest.
#
# Exit status: the script's own exit status, or
#   124  the timeout (default 600 s) expired; qemu was killed
#   125  harness failure: bad usage, guest setup failed, guest crashed without a result
#   137  qemu was killed with SIGKILL from outside (a simulated power cut, see
#        FDEWIZ_VM_PIDFILE); with --keep-going-on-kill this is reported and exits 0
#
# Environment:
#   FDEWIZ_VM_PIDFILE  write qemu's pid here (removed on exit) so that a test can kill -9 it
#   FDEWIZ_VM_CACHE    kernel/initramfs cache (see vm-prepare.sh)
#   FDEWIZ_VM_APPEND   extra kernel command line (e.g. fdewiz.verbose to list module errors)
#   FDEWIZ_VM_CPU      qemu CPU model (default EPYC under TCG; max,aes=off: a CPU without AES instructions)
#   FDEWIZ_VM_DISK_CACHE  qemu cache mode for disks (default none: O_DIRECT, so the image
#                      file holds exactly what the guest flushed, like a real disk)
#   FDEWIZ_VM_AIO      how qemu submits their I/O (default io_uring; vm-disk-opts.sh)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
me=vm-run

die()
{
	echo "$me: error: $*" >&2
	exit 125
}

usage()
{
	sed -n '4,5p' "$0" >&2
	exit 125
}

disks=()
envs=()
mem=1024
timeout=600
keep_going_on_kill=0
efi=0
tpm_sock=
while [ $# -gt 0 ]; do
	case "$1" in
	--disk) [ $# -ge 2 ] || usage; disks+=("$2"); shift 2 ;;
	--mem) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
	--env) [ $# -ge 2 ] || usage; envs+=("$2"); shift 2 ;;
	--keep-going-on-kill) keep_going_on_kill=1; shift ;;
	--efi) efi=1; shift ;;
	--tpm) [ $# -ge 2 ] || usage; tpm_sock=$2; shift 2 ;;
	--help|-h) sed -n '2,25p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
[[ "$mem" =~ ^[0-9]+$ ]] || die "--mem wants megabytes, got '$mem'"
[[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout wants seconds, got '$timeout'"

script=$(realpath -e "$1") || die "no such script: $1"
shift
# The guest's /tmp is a fresh tmpfs.  A tree cloned under /tmp is shared on its own (9p,
# then a tmpfs overlay at the same path), so its build and scripts are there; nothing
# else under /tmp is.
tree=$(cd "$here/../.." && pwd -P)
share_tree=0
case "$tree" in /tmp/*) share_tree=1 ;; esac
[[ "$tree" =~ ^[A-Za-z0-9/._+-]+$ ]] || share_tree=0
# Does the guest see this host path?
guest_sees()
{
	case "$1" in
	"$tree"|"$tree"/*) [ "$share_tree" = 1 ] || [[ "$1" != /tmp/* ]] ;;
	/tmp|/tmp/*) return 1 ;;
	esac
}
guest_sees "$script" || die "$script is under /tmp, which the guest replaces by an empty tmpfs"

for d in "${disks[@]}"; do
	[ -f "$d" ] || [ -b "$d" ] || die "no such disk image: $d"
done
for e in "${envs[@]}"; do
	[[ "$e" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants NAME=VALUE, got '$e'"
done

prep=$("$here/vm-prepare.sh" --quiet) || die "vm-prepare.sh failed"
kernel=$(sed -n 's/^kernel=//p' <<<"$prep")
initrd=$(sed -n 's/^initrd=//p' <<<"$prep")
moddir=$(sed -n 's/^moddir=//p' <<<"$prep")
# OVMF starts a kernel through its EFI stub: the bzImage, not the ELF vmlinux (PVH).
[ "$efi" = 0 ] || kernel=${kernel%/vmlinux}/vmlinuz
# The guest binds this (the full module tree) if it can see it; no spaces on a cmdline.
case "$moddir" in *" "*|/tmp/*) moddir= ;; esac

work=$(mktemp -d /tmp/fdewiz-vm.XXXXXX)
qpid=
wpid=
# shellcheck disable=SC2317 # called through the EXIT trap
cleanup()
{
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	[ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null
	[ -n "${FDEWIZ_VM_PIDFILE:-}" ] && rm -f "$FDEWIZ_VM_PIDFILE"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT
trap 'echo "$me: terminated" >&2; exit 143' TERM

# The job reaches the guest through fw_cfg; vm-init.sh runs it with bash in the chroot.
# No udev runs in the guest.  cryptsetup open/close/reencrypt work anyway: libdevmapper
# finds no /run/udev/control (/run is a fresh tmpfs), skips udev synchronisation and
# makes the /dev/mapper nodes itself.  DM_DISABLE_UDEV=1 asks for exactly that, so it
# stays true even if a test starts a udevd or something creates /run/udev.
cwd=$PWD
guest_sees "$cwd" || cwd=/
{
	echo "# fdewiz VM job, written by vm-run.sh"
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root LANG=C.UTF-8 TERM=dumb FDEWIZ_IN_VM=1 DM_DISABLE_UDEV=1"
	for e in "${envs[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	# libcryptsetup keeps its locks here; it creates the folder itself, but a test
	# that looks at the locks should not depend on that.
	echo "mkdir -p /run/cryptsetup /run/lock"
	if [ "$share_tree" = 1 ]; then
		echo "mkdir -p /run/fdewiz-tree/lower /run/fdewiz-tree/upper /run/fdewiz-tree/work $tree"
		echo "mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose tree /run/fdewiz-tree/lower || { echo 'FDEWIZ-VM-ERROR: cannot mount the source tree'; exit 125; }"
		echo "mount -t overlay -o lowerdir=/run/fdewiz-tree/lower,upperdir=/run/fdewiz-tree/upper,workdir=/run/fdewiz-tree/work overlay $tree || { echo 'FDEWIZ-VM-ERROR: cannot overlay the source tree'; exit 125; }"
	fi
	printf 'cd %q 2>/dev/null || cd /\n' "$cwd"
	printf 'exec bash %q' "$script"
	[ $# -gt 0 ] && printf ' %q' "$@"
	echo
} >"$work/job.sh"

# no_timer_check: under software emulation on a loaded host the kernel's early check of the
# IO-APIC timer can miss its window and panic ("IO-APIC + timer doesn't work"); the emulated
# timer is fine, so the check only makes boots flaky.
# norandmaps: without KVM, QEMU translates the guest's code once per virtual address; with
# address-space randomisation every program's libraries sit at new addresses and are
# translated again at each exec (100 sed and readlink here: 14.2 s randomised, 5.7 s not;
# test-vm-smoke.sh alone 8 s). Nothing fdewiz does depends on where programs are mapped.
# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
# KVM where it really works, else TCG (vm-accel.sh probes once per host boot).
read -r -a accel < <("$here/vm-accel.sh")
qemu=(qemu-system-x86_64 "${accel[@]}" -m "$mem" -no-reboot
	-nodefaults -no-user-config -display none
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 quiet panic=-1 no_timer_check norandmaps fdewiz.moddir=$moddir ${FDEWIZ_VM_APPEND:-}"
	-chardev "stdio,id=con,signal=off,logfile=$work/console.log"
	-serial chardev:con
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=host
	-fw_cfg "name=opt/fdewiz/job,file=$work/job.sh"
	-device virtio-rng-pci)
if [ "$share_tree" = 1 ]; then
	qemu+=(-fsdev "local,id=tree,path=$tree,security_model=none,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=tree,mount_tag=tree)
fi
if [ "$efi" = 1 ]; then
	ovmf_code= ovmf_vars=
	for c in OVMF_CODE_4M OVMF_CODE; do
		[ -e "/usr/share/OVMF/$c.fd" ] || continue
		ovmf_code=/usr/share/OVMF/$c.fd
		ovmf_vars=/usr/share/OVMF/${c/CODE/VARS}.fd
		break
	done
	[ -n "$ovmf_code" ] && [ -e "$ovmf_vars" ] || die "--efi: no OVMF in /usr/share/OVMF (apt-get install ovmf)"
	cp "$ovmf_vars" "$work/ovmf-vars.fd"
	# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
	qemu+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf_code"
		-drive "if=pflash,format=raw,unit=1,file=$work/ovmf-vars.fd")
fi
if [ -n "$tpm_sock" ]; then
	[ -S "$tpm_sock" ] || die "--tpm: no emulator listens on $tpm_sock"
	# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
	qemu+=(-chardev "socket,id=chrtpm,path=$tpm_sock" -tpmdev emulator,id=tpm0,chardev=chrtpm
		-device tpm-crb,tpmdev=tpm0)
fi
disk_opts=$("$here/vm-disk-opts.sh")
for d in "${disks[@]}"; do
	qemu+=(-drive "file=$d,format=raw,if=virtio,$disk_opts")
done

start=$(date +%s)
"${qemu[@]}" </dev/null &
qpid=$!
[ -n "${FDEWIZ_VM_PIDFILE:-}" ] && echo "$qpid" >"$FDEWIZ_VM_PIDFILE"

# Watchdog: polls so that it ends by itself soon after qemu does.
(
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
			touch "$work/timed-out"
			kill -KILL "$qpid" 2>/dev/null
			exit 0
		fi
		sleep 1
	done
) &
wpid=$!

qrc=0
# Braces: bash reports a killed job ("Killed ...") on its stderr, noise here.
{ wait "$qpid"; } 2>/dev/null || qrc=$?
qpid=
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
wpid=
elapsed=$(($(date +%s) - start))

# The last marker wins: init prints it after the script, as the guest's last words.
marker=$(tr -d '\r' <"$work/console.log" | grep -a '^FDEWIZ-VM-EXIT=[0-9]\+$' | tail -n1 || true)
if [ -n "$marker" ]; then
	rc=${marker#FDEWIZ-VM-EXIT=}
	echo "$me: script exited $rc after ${elapsed}s" >&2
	exit "$rc"
fi
if [ -e "$work/timed-out" ]; then
	echo "$me: error: timed out after ${timeout}s; qemu killed (raise --timeout?)" >&2
	exit 124
fi
if [ "$qrc" = 137 ]; then
	if [ "$keep_going_on_kill" = 1 ]; then
		echo "$me: qemu was killed after ${elapsed}s (power cut), going on" >&2
		exit 0
	fi
	echo "$me: qemu was killed with SIGKILL after ${elapsed}s (power cut?)" >&2
	exit 137
fi
err=$(tr -d '\r' <"$work/console.log" | grep -a '^FDEWIZ-VM-ERROR:' | tail -n1 || true)
if [ -n "$err" ]; then
	die "guest setup failed: ${err#FDEWIZ-VM-ERROR: }"
fi
die "no exit marker from the guest (qemu status $qrc after ${elapsed}s): the guest" \
	"crashed, panicked or qemu failed; see the output above"
