#!/bin/bash
# fdewiz VM tests: the wizard encrypts an installed system's root in place and sets up its
# boot, with its /home encrypted from outside first, and the system then asks for one
# passphrase at boot. The real Debian 12 (installed-image.sh: GRUB for BIOS, /boot, /, swap;
# cached) gets a /home partition of its own (vm_add_home), which fdewiz converts first in
# the live VM with the command line (that system's crypttab and fstab); a third disk holds
# another LUKS volume that the system's crypttab names, with another passphrase (nofail:
# absent at its boot). In the live VM the wizard, driven in tmux, shows on the disks pane
# what system the root partition holds, lists the boot steps (the key file for /home among
# them) on the plan before the typed confirmation, converts with the same passphrase as
# /home's, and says on the results screen that the boot is set up. The live VM then checks
# the volume (cryptsetup, e2fsck), the crypttab, the swap, /home's key file (inside the
# encrypted root, in a slot of its own tried first) and the other volume (untouched, still
# asking). The image then boots from its own disk: one passphrase typed (the initramfs's,
# for the root), /home opened with its key file and mounted from dm-crypt, and every one
# of its 300 + 30 files checks out. The refusals on this system: test-vm-system-boot.sh.
# Each phase's time is printed. FDEWIZ_TUI_CAPTURES=DIR saves the screens (system-*.txt).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/installed-lib.sh"
vm_init test-vm-system-wizard
vm_need_pkgs parted cryptsetup-bin cryptsetup e2fsprogs jq mmdebstrap tmux ncurses-base
vm_find_fdewiz
srcdir=$(realpath -m "${FDEWIZ_SRCDIR:-$VM_HERE/../..}")

vm_installed_copy image installed.img
root_uuid=$(vm_prep root_uuid)
printf 'wizard system passphrase, long enough 12' >"$VM_WORK/key"
state=$VM_WORK/state.img
truncate -s 128M "$state"
mkfs.ext4 -q -F -L fdw-state "$state"
other=$VM_WORK/other.img
truncate -s 32M "$other"
# Its /data on a disk of its own: converted after its root, with the root unlocked.
datadisk=$VM_WORK/data.img
truncate -s 100M "$datadisk"
vm_parted "$datadisk" mklabel gpt mkpart data ext4 1MiB 99MiB
mkdir -p "$VM_WORK/data-tree/www"
for i in $(seq 1 20); do head -c $((i * 1499)) /dev/urandom >"$VM_WORK/data-tree/www/s$i"; done
mkfs.ext4 -q -F -b 4096 -d "$VM_WORK/data-tree" -E "offset=$((1024 * 1024)),nodiscard" \
	"$datadisk" 98M

# 1. Its /home on a partition of its own (converted in the live VM, below).
vm_add_home "$img" || vm_fail "adding a /home partition to the image"
plain_sum=$(sha256sum <"$img")

# 2. The wizard in the live VM; then the checks of system-boot.sh on what it did.
envs=(--env "ASAN_OPTIONS=${ASAN_OPTIONS:-intercept_strchr=0:detect_leaks=0}")
[ -z "${LSAN_OPTIONS:-}" ] || envs+=(--env "LSAN_OPTIONS=$LSAN_OPTIONS")
vm_run --timeout 3600 --mem 1024 "${envs[@]}" --disk "$img" --disk "$state" --disk "$datadisk" --disk "$other" \
	"$VM_HERE/guest/system-wizard.sh" "$FDEWIZ" "$VM_WORK" "$srcdir"
phase "home-then-wizard-in-live-vm (two conversions, boot steps, checks)"
tr -d '\r' <"$VM_LOG" | grep -a '^system-wizard: \[\|^system-boot: PHASE' || true
vm_check "guest half exits 0 (got $VM_RC)" [ "$VM_RC" = 0 ]
vm_check "guest printed FDEWIZ-SYSTEM-BOOT-OK" grep -q '^FDEWIZ-SYSTEM-BOOT-OK' "$VM_LOG"
vm_check "its /home is converted from the live VM first (exit 0)" \
	grep -q '^system-wizard: HOME rc=0$' "$VM_LOG"
vm_check "that system's crypttab got /home" \
	grep -qF "its etc/crypttab has 'home_crypt UUID=" "$VM_LOG"
vm_check "that system's fstab was changed (with a backup)" grep -qF "/dev/vda2 /etc/fstab (" "$VM_LOG"
vm_check "/home's plan said how one passphrase will do at boot" \
	grep -qF "encrypt its root afterwards with the same passphrase" "$VM_LOG"

capture()
{
	sed -n "/^CAPTURE-$1-BEGIN/,/^CAPTURE-$1-END/p" "$VM_LOG" | sed '1d;$d' | tr -d '\r'
}
disks=$(capture DISKS)
plan=$(capture PLAN)
confirm=$(capture CONFIRM)
bootstep=$(capture BOOTSTEP)
results=$(capture RESULTS)
# The pane wraps: join its lines before looking for a sentence.
joined() { tr '\n' ' ' | tr -s ' '; }
vm_check "disks pane: the root partition is offered" grep -qE '^>.* 2 .*yes \(' <<<"$disks"
vm_check "disks pane: it says what system the partition holds" \
	grep -qF "Holds Debian GNU/Linux 12 (bookworm) (/; /boot on another partition)" \
	<(joined <<<"$disks")
vm_check "plan: the title" grep -qF "Plan for /dev/vda2" <<<"$plan"
vm_check "plan: the boot setup is listed" grep -qF "Boot setup" <<<"$plan"
vm_check "plan: the crypttab step" grep -qF "to its etc/crypttab" <(joined <<<"$plan")
vm_check "plan: the initramfs step" grep -qF "rebuild its initramfs in a chroot" <(joined <<<"$plan")
vm_check "plan: the swap step" grep -qF "swap: a new random key at every boot" <(joined <<<"$plan")
vm_check "plan: the key file for its other encrypted partitions" \
	grep -qF "get a key file inside the encrypted root" <(joined <<<"$plan")
vm_check "plan: TPM unlock is offered for the root, greyed out: this VM has no TPM" \
	grep -qF "[-] Unlock it at each start with this computer's TPM" <<<"$plan"
vm_check "plan: the greyed TPM box says what is missing" \
	grep -qF "this computer has no TPM" <(joined <<<"$plan")
vm_check "plan: no typed confirmation yet" test -z "$(grep -F "Type YES" <<<"$plan")"
vm_check "the typed confirmation came after the plan" grep -qF "Type YES" <<<"$confirm"
vm_check "progress: the boot step's phase is shown" grep -qF "setting up the boot" <<<"$bootstep"
vm_check "results: the title" grep -qF "Results for /dev/vda2" <<<"$results"
vm_check "results: it is encrypted" grep -qF "/dev/vda2 is encrypted (LUKS2" <<<"$results"
vm_check "results: the boot setup was done" \
	grep -qF "The installed system's boot is set up" <(joined <<<"$results")
vm_check "results: the files changed are named" grep -qF "/etc/crypttab (" <(joined <<<"$results")
vm_check "results: /home's key file is named" \
	grep -qF "/etc/cryptsetup-keys.d/home_crypt.key" <(joined <<<"$results")

# What the live VM found on the converted system (system-boot.sh, mode check).
luks=$(tr -d '\r' <"$VM_LOG" | sed -n 's/^system-boot: LUKSUUID //p')
vm_check "crypttab names the volume by its LUKS UUID" \
	grep -q "^system-boot: CRYPTTAB vda2_crypt UUID=$luks none luks" "$VM_LOG"
vm_check "e2fsck of the encrypted root is clean" grep -q '^system-boot: FSCK rc=0' "$VM_LOG"
vm_check "crypttab gives the swap a random key by PARTUUID" \
	grep -q '^system-boot: CRYPTTAB cryptswap1 PARTUUID=[0-9a-f]*-03 /dev/urandom swap,' "$VM_LOG"
vm_check "the old swap signature is gone" grep -q '^system-boot: OLD-SWAP-SIGNATURE none$' "$VM_LOG"
vm_check "the image changed" [ "$(sha256sum <"$img")" != "$plain_sum" ]
vm_check "the system's crypttab opens /home with the key file" \
	grep -q '^system-boot: CRYPTTAB home_crypt UUID=[0-9a-f-]* /etc/cryptsetup-keys.d/home_crypt.key luks$' "$VM_LOG"
vm_check "/home's key file: 64 bytes, root's only, folder 700; opens /home in a slot tried first" \
	grep -q '^system-boot: KEYFILE home_crypt 400 64 dir 700 opens slots=2 prefer=1$' "$VM_LOG"
vm_check "its /data is converted after the root, with the root unlocked (exit 0)" \
	grep -q '^system-wizard: DATA rc=0$' "$VM_LOG"
vm_check "/data's plan: whose it is (its root partition, not the open mapping)" \
	grep -q '^system-wizard: data: .*this is /data of Debian GNU/Linux 12 (bookworm) on /dev/vda2:' "$VM_LOG"
vm_check "/data's plan: a key file inside the encrypted root" \
	grep -q '^system-wizard: data: .*its root is encrypted: this partition gets a key file inside' "$VM_LOG"
vm_check "/data's key file was written there, as its result says" \
	grep -q '^system-wizard: data: .*/dev/vda2 /etc/cryptsetup-keys.d/data_crypt.key (new file)' "$VM_LOG"
vm_check "the system's crypttab opens /data with its key file" \
	grep -q '^system-boot: CRYPTTAB data_crypt UUID=[0-9a-f-]* /etc/cryptsetup-keys.d/data_crypt.key luks$' "$VM_LOG"
vm_check "/data's key file: 64 bytes, root's only; opens /data in a slot tried first" \
	grep -q '^system-boot: KEYFILE data_crypt 400 64 dir 700 opens slots=2 prefer=1$' "$VM_LOG"
vm_check "its fstab mounts /data from the mapping" grep -q '^system-boot: FSTAB-DATA /dev/mapper/data_crypt$' "$VM_LOG"
vm_check "the volume with another passphrase keeps asking: its line, no key file, one slot" \
	grep -q '^system-boot: OTHER line=none,nofail keyfile=no slots=1$' "$VM_LOG"
if [ -n "${FDEWIZ_TUI_CAPTURES:-}" ]; then
	for c in disks plan confirm bootstep results; do
		printf '%s\n' "${!c}" >"$FDEWIZ_TUI_CAPTURES/system-$c.txt"
	done
fi
echo "plan screen in the VM:"
printf '%s\n' "$plan"
echo "results screen in the VM:"
printf '%s\n' "$results"

# 3. It boots from its own disk: the passphrase typed once, at the initramfs prompt.
VM_BOOT_DISK2=$datadisk vm_boot_installed "$img" "$VM_WORK/boot.log" "$VM_WORK/key" 1200
res=$(vm_boot_result "$VM_WORK/boot.log")
home=$(vm_home_result "$VM_WORK/boot.log")
data=$(vm_home_result "$VM_WORK/boot.log" DATA)
phase "boot-encrypted (${VM_BOOT_SECONDS}s in qemu)"
echo "$VM_NAME: encrypted boot: $res; $home; $data"
vm_check "one passphrase was asked at boot (the root's; /home and /data opened with key files)" \
	[ "$VM_BOOT_PROMPTS" = 1 ]
vm_check "/home is mounted from dm-crypt and its 30 files check out" \
	grep -q '^FDW-HOME source=/dev/mapper/home_crypt type=crypt sums=ok files=30$' <<<"$home"
vm_check "/data is mounted from dm-crypt (its key file) and its 20 files check out" \
	grep -q '^FDW-DATA source=/dev/mapper/data_crypt type=crypt sums=ok files=20$' <<<"$data"
vm_check "the encrypted system boots and all $VM_DATA_FILES files check out" \
	grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=crypt\$" <<<"$res"
vm_check "its root is /dev/mapper/vda2_crypt" \
	grep -aq '^FDW-ROOT source=/dev/mapper/vda2_crypt type=crypt' <(tr -d '\r' <"$VM_WORK/boot.log")
vm_check "swapon --show lists a dm-crypt swap" \
	grep -aq '^FDW-SWAP name=/dev/dm-[0-9]* type=partition dmtype=crypt' <(tr -d '\r' <"$VM_WORK/boot.log")
vm_check "the kernel still finds the root by the filesystem UUID" \
	grep -aq "^FDW-CMDLINE .*root=UUID=$root_uuid" <(tr -d '\r' <"$VM_WORK/boot.log")
if [ "$VM_FAILED" != 0 ]; then
	echo "--- last lines of the encrypted boot ---"
	tr -d '\r' <"$VM_WORK/boot.log" | tail -n 40
fi
vm_finish
