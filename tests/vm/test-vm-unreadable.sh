#!/bin/bash
# fdewiz VM test: a machine where one disk cannot be read. A device-mapper "error" target
# fails every read, as a dying disk does. The wizard on all disks and `fdewiz list` both
# name that disk and say why, in the same words, while the readable disk is still listed.
# The wizard's screen is printed.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-unreadable
vm_need_pkgs parted dmsetup e2fsprogs jq tmux ncurses-base

vm_find_fdewiz
srcdir=$(realpath -m "${FDEWIZ_SRCDIR:-$VM_HERE/../..}")

img=$VM_WORK/good.img
truncate -s 200M "$img"
vm_parted "$img" mklabel gpt mkpart Data ext4 1MiB 199MiB
mkfs.ext4 -q -F -b 4096 -E "offset=1048576,nodiscard" -L data "$img" 198M

# A sanitizer build needs libparted's strchr left alone; leaks are not this test's subject
# (libparted's own probe leak would change list's exit status).
envs=(--env "ASAN_OPTIONS=intercept_strchr=0:detect_leaks=0")

vm_run --timeout 900 "${envs[@]}" --disk "$img" "$VM_HERE/guest/unreadable.sh" "$FDEWIZ" \
	"$VM_WORK" "$srcdir"
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-UNREADABLE-OK" grep -q '^FDEWIZ-UNREADABLE-OK$' "$VM_LOG"
screen=$(sed -n '/^CAPTURE-DISKS-BEGIN/,/^CAPTURE-DISKS-END/p' "$VM_LOG" | sed '1d;$d' | tr -d '\r')
words=$(sed -n 's/^unreadable: list said: //p' "$VM_LOG" | tr -d '\r')
vm_check "the wizard lists the readable disk" grep -qE '1 Data .*ext4' <<<"$screen"
vm_check "list named the unreadable disk ($words)" [ -n "$words" ]
vm_check "the wizard names it in the same words" grep -qF "$words" <<<"$(tr -s ' \n' ' ' <<<"$screen")"
echo "disks screen in the VM:"
printf '%s\n' "$screen"
vm_finish
