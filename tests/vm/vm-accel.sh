#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fdewiz VM tests: which QEMU accelerator works here, and how many CPUs the guest gets.
# Prints "-accel kvm -cpu host -smp 2" where /dev/kvm really runs a guest, else
# "-accel tcg -cpu EPYC -smp 1" (FDEWIZ_VM_CPU replaces the CPU model and forces TCG:
# test-vm-adiantum needs max,aes=off; FDEWIZ_VM_SMP the CPU count).
#
# EPYC rather than max under TCG: the same installed Debian (disk.img, alone on the
# machine) reached its check unit 21-22 s after power-on with EPYC, 32-33 s with max
# (systemd's start from its first line to its default target: 5 s against 13 s), and
# sha256 of 64 MiB took 1.2 s against 1.7 s; fork and exec (300 of them, 7 s) and
# update-initramfs (63 s) cost the same. Westmere (no AVX) was slower at both. The features
# of EPYC that TCG cannot emulate are turned off by name, as QEMU would drop them anyway
# with a warning on every start.
#
# One CPU under TCG: the suite runs the host tests on the other core, and a second emulated
# CPU only competes with them. Measured with one core kept busy, as the suite keeps it:
# update-initramfs in the installed system's chroot 113 s with one CPU, 132 s with two; the
# installed Debian's boot to its check 61 s against 68 s; the host tests get their core.
#
# /dev/kvm can exist and still fail at the first instruction ("KVM internal error.
# Suberror: 1" on the development machines), so the probe boots the test kernel with no init
# under KVM: it must reach its panic and QEMU exit within 30 s. The answer is cached per host
# boot (/proc/sys/kernel/random/boot_id) in the VM cache; a probe costs at most those 30 s.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cache=${FDEWIZ_VM_CACHE:-/var/cache/fdewiz-tests/vm}
epyc=EPYC,rdseed=off,sha-ni=off,fxsr-opt=off,misalignsse=off,3dnowprefetch=off,osvw=off
epyc=$epyc,topoext=off,nrip-save=off,xsavec=off
tcg="-accel tcg -cpu ${FDEWIZ_VM_CPU:-$epyc} -smp ${FDEWIZ_VM_SMP:-1}"
kvm="-accel kvm -cpu host -smp ${FDEWIZ_VM_SMP:-2}"
if [ -n "${FDEWIZ_VM_CPU:-}" ]; then
	echo "$tcg"
	exit 0
fi
if [ ! -w /dev/kvm ]; then
	echo "$tcg"
	exit 0
fi
boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
answer=$cache/accel.$boot_id
if [ ! -s "$answer" ]; then
	prep=$("$here/vm-prepare.sh" --quiet) || { echo "$tcg"; exit 0; }
	kernel=$(sed -n 's/^kernel=//p' <<<"$prep")
	log=$(mktemp)
	timeout 30 qemu-system-x86_64 -accel kvm -cpu host -m 256 -no-reboot -nodefaults \
		-no-user-config -display none -kernel "$kernel" \
		-append "console=ttyS0 panic=-1 rdinit=/fdewiz-no-init init=/fdewiz-no-init" \
		-serial "file:$log" </dev/null >/dev/null 2>&1
	if grep -aq 'Kernel panic' "$log"; then
		echo kvm >"$answer.tmp"
	else
		echo tcg >"$answer.tmp"
	fi
	rm -f "$log"
	mkdir -p "$cache" && mv -f "$answer.tmp" "$answer"
fi
if [ "$(cat "$answer")" = kvm ]; then
	echo "$kvm"
else
	echo "$tcg"
fi
