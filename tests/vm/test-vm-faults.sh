#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fdewiz VM tests: a disk that fails in the middle of a conversion (device-mapper error,
# flakey and delay targets swapped in under the partition while the background worker
# runs): read errors, write errors, the device gone, a slow device. The worker stops with
# a record that says what happened (a slow disk only slows it), nothing is lost, and once
# the disk is healthy `fdewiz resume` finishes; the real kernel then opens every volume and
# every file verifies. A device that slows down after the first hotzone shows an honest
# ETA: status --json sampled every second stays within half and twice the time really left
# once its sliding window can hold only slow steps (the guest half says why that window),
# and does not swing.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-faults
vm_need_pkgs parted cryptsetup-bin e2fsprogs jq dmsetup

vm_find_fdewiz

MiB=$((1024 * 1024))
# Small partitions for the faults that stop the worker early (resume converts the rest);
# larger ones for the slow spell (8 s of it must not reach the end) and the ETA (several
# slow steps to judge). Start and size in MiB.
names=(Read Write Gone Slow Eta) sizes=(128 128 128 224 224) starts=()
img=$VM_WORK/faults.img
at=1 parted_args=()
for n in 0 1 2 3 4; do
	starts+=("$at")
	parted_args+=(mkpart "${names[n]}" ext4 "${at}MiB" "$((at + sizes[n]))MiB")
	at=$((at + sizes[n]))
done
truncate -s $((at + 1))M "$img"
vm_parted "$img" mklabel gpt "${parted_args[@]}"
mkdir -p "$VM_WORK/data/docs" "$VM_WORK/data/media"
for i in $(seq 1 400); do head -c $((i * 53 % 9000 + 1)) /dev/urandom >"$VM_WORK/data/docs/d$i"; done
for i in $(seq 1 4); do head -c $((i * 4 * MiB)) /dev/urandom >"$VM_WORK/data/media/m$i"; done
(cd "$VM_WORK/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$VM_WORK/data.sha256"
for n in 0 1 2 3 4; do
	mkfs.ext4 -q -F -b 4096 -E "offset=$((starts[n] * MiB)),nodiscard" \
		-d "$VM_WORK/data" "$img" "${sizes[n]}M"
done
rm -rf "$VM_WORK/data"
printf 'faults test key' >"$VM_WORK/key"

vm_run --timeout 1500 --disk "$img" "$VM_HERE/guest/faults.sh" "$FDEWIZ" "$VM_WORK"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-FAULTS-OK" grep -q '^FDEWIZ-FAULTS-OK$' "$VM_LOG"
for name in fdw-read fdw-write fdw-gone; do
	vm_check "$name: the worker stopped with a message" grep -q "^STOPPED $name " "$VM_LOG"
done
vm_check "fdw-slow: the conversion went on while the disk was slow" grep -q '^SLOW-SPEED ' "$VM_LOG"
vm_check "fdw-eta: the ETA followed the slowdown within the window" \
	grep -q '^ETA-HONEST fdw-eta ' "$VM_LOG"
vm_finish
