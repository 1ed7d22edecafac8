#!/bin/bash
# Guest half of test-vm-system-carve-efi.sh, the "live" system: /dev/vda is an installed
# Debian laid out as its installer does on an EFI machine with "all files in one
# partition" (ESP on 1, / with /boot inside on 2, swap on 3), /dev/vdb a persistent disk
# for fdewiz's state; the machine has a TPM 2.0 (swtpm) and OVMF, as the installed system
# will when it boots. One 'encrypt --tpm --recovery-key': the move of /boot (a partition of
# its own, GRUB for EFI reinstalled in the ESP), the conversion, the boot step, the key
# sealed to the TPM; then checked from here.
set -euo pipefail
fdewiz=$1
work=$2
srcdir=$3
say() { echo "system-carve-efi: $*"; }
die() { echo "system-carve-efi: FAIL: $*"; exit 1; }
t0=$(date +%s)
phase() { say "PHASE $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

mkdir -p /mnt/state /mnt/check /mnt/esp
mount /dev/vdb /mnt/state
export FDEWIZ_STATE_DIR=/mnt/state/fdewiz
# Booted since its last check: resize2fs wants a fresh e2fsck to measure the root.
e2fsck -f -p /dev/vda2 >/run/fsck0.log 2>&1 || [ $? -le 1 ] || { cat /run/fsck0.log; die "e2fsck"; }
"$fdewiz" list --json /dev/vda >/run/list.json
say "VERDICT $(jq -c '.disks[0].partitions[] | select(.number == 2) | [.verdict.eligible, .verdict.reason, .verdict.strategy, .installed_system.boot_separate, .installed_system.boot_loader]' /run/list.json)"
mount -o ro /dev/vda1 /mnt/esp
esp_before=$(sha256sum /mnt/esp/EFI/debian/grubx64.efi /mnt/esp/EFI/BOOT/BOOTX64.EFI | cut -d' ' -f1)
umount /mnt/esp
# No udev here to load the TPM's driver as a booted system would.
modprobe tpm_crb 2>/dev/null || true
[ -e /dev/tpmrm0 ] || die "no TPM in the live VM"
say "TPM version=$(cat /sys/class/tpm/tpm0/tpm_version_major) $(tpm2_pcrread sha256:7 2>&1 | grep -o '7 : 0x[0-9A-F]*')"

# The wizard's plan for that root, on this machine, offers TPM unlock; ticked, it says what
# it protects against. Left with Esc and q, nothing changed: the encryption below is the
# command line's.
export TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/tmux /run/cryptsetup
# shellcheck disable=SC1091 # the source tree is an argument
. "$srcdir/tests/lib/tmux.sh"
srv=fdewiz-vm-tpm-plan
trap 'tmux_stop "$srv"' EXIT
tui_wait() { tmux_wait_for "$srv" "$1" "$2" || { tmux_capture "$srv"; die "'$1' did not appear"; }; }
tmux_start "$srv" 120 45 env FDEWIZ_STATE_DIR=/mnt/state/fdewiz DM_DISABLE_UDEV=1 "$fdewiz" /dev/vda
tui_wait "Choose a partition" 180
tmux_select "$srv" ' 2 .*yes \(' || die "partition 2 is not offered in the wizard"
tmux_send "$srv" Enter
tui_wait "Plan for /dev/vda2" 300
tui_wait "[ ] Unlock it at each start with this computer's TPM" 60
tmux_send "$srv" Tab
tmux_send "$srv" Space
tui_wait "[x] Unlock it at each start with this computer's TPM" 30
say "WIZARD-TPM $(tmux_capture "$srv" -J | tr '\n' ' ' | tr -s ' ' | grep -o 'once it is encrypted, a key sealed[^;]*stays locked' | head -n1)"
tmux_send "$srv" Escape
tui_wait "Choose a partition" 60
tmux_send "$srv" q
tmux_wait_exit "$srv" 30 || die "the wizard did not quit"
tmux_stop "$srv"
phase listed
# stamp_lines LOG TIMES: its input into LOG as it is, and into TIMES each line after the
# seconds since it began: where the emulated machine's time goes (bash's own clock: no
# program started per line).
stamp_lines()
{
	local l
	SECONDS=0
	while IFS= read -r l; do
		printf '%s\n' "$l" >&3
		printf '%4d %s\n' "$SECONDS" "$l" >&4
	done 3>"$1" 4>"$2"
}
rc=0
"$fdewiz" --verbose encrypt --yes --fast-pbkdf --no-bench --foreground --recovery-key --tpm \
	--header-backup /mnt/state/root.hdr --key-file /dev/stdin /dev/vda2 \
	<"$work/key" 2>&1 | stamp_lines /run/encrypt.log /run/encrypt.times || rc=$?
sed 's/^/system-carve-efi: encrypt: /' /run/encrypt.log
say "ENCRYPT rc=$rc"
# Its steps' times: the verbose log's info lines and the plain output's (no debug lines).
grep -E '^ *[0-9]+ (fdewiz: info:|[A-Z])' /run/encrypt.times |
	sed 's/^/system-carve-efi: ENCRYPT-AT /' || true
[ "$rc" = 0 ] || die "encrypt"
phase encrypted
# The recovery key as shown, for the host's boot with a TPM that refuses (a test's key).
say "RECOVERY $(grep -o '[A-Z0-9]\{6\}\(-[A-Z0-9]\{6\}\)\{7\}' /run/encrypt.log | head -n1)"
# dump WHEN: the keyslots and clevis tokens, as luksDump shows them.
dump()
{
	cryptsetup luksDump /dev/vda2 >/run/dump.txt
	say "LUKSDUMP $1 keyslots=$(sed -n '/^Keyslots:/,/^Tokens:/p' /run/dump.txt | grep -c '^  [0-9]*: luks2') tokens=$(sed -n '/^Tokens:/,/^Digests:/p' /run/dump.txt | grep -c '^  [0-9]*: clevis') slots=$(sed -n '/^Keyslots:/,/^Tokens:/p' /run/dump.txt | sed -n 's/^  \([0-9]*\): luks2/\1/p' | tr '\n' ,)"
}
dump encrypted
clevis luks list -d /dev/vda2 | sed 's/^/system-carve-efi: CLEVIS /'
# (tpm remove and enrol on an encrypted volume, with real clevis and a real software TPM:
# tests/root/test-tpm.sh; the binding that encrypt made is the one the boots below use.)
"$fdewiz" tpm status /dev/vda2 2>&1 | sed 's/^/system-carve-efi: tpm-status: /'
say "RECORD $(jq -r .step /mnt/state/fdewiz/boot-move-*.json)"
say "TABLE $(parted -s -m /dev/vda unit MiB print | tail -n +3 | tr '\n' ' ')"
boot_uuid=$(jq -r .boot_uuid /mnt/state/fdewiz/boot-move-*.json)
say "NEWBOOT $(blkid -p -o value -s TYPE /dev/vda4) uuid-matches=$([ "$(blkid -p -o value -s UUID /dev/vda4)" = "$boot_uuid" ] && echo yes || echo no)"
# GRUB for EFI in the ESP was made again (its own name and the fallback), and its menu on
# the new /boot names the root by the filesystem's UUID.
mount -o ro /dev/vda1 /mnt/esp
esp_after=$(sha256sum /mnt/esp/EFI/debian/grubx64.efi /mnt/esp/EFI/BOOT/BOOTX64.EFI | cut -d' ' -f1)
say "ESP-LOADERS changed=$(diff <(echo "$esp_before") <(echo "$esp_after") | grep -c '^>' || true)"
umount /mnt/esp
mount -o ro /dev/vda4 /mnt/check
root_uuid=$(jq -r .fs_uuid /mnt/state/fdewiz/boot-move-*.json)
say "GRUBCFG linux=$(grep -c '^[[:space:]]*linux[[:space:]]*/vmlinuz-' /mnt/check/grub/grub.cfg) root-by-uuid=$(grep -c "linux[[:space:]].* root=UUID=$root_uuid " /mnt/check/grub/grub.cfg)"
umount /mnt/check
for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
	cryptsetup close "$m" || die "cannot close $m"
done
cryptsetup open --key-file "$work/key" /dev/vda2 check || die "cryptsetup open"
rc=0
e2fsck -fn /dev/mapper/check >/run/fsck.log 2>&1 || rc=$?
say "FSCK rc=$rc"
[ "$rc" = 0 ] || { cat /run/fsck.log; die "fsck"; }
mount -o ro /dev/mapper/check /mnt/check
grep -v '^#' /mnt/check/etc/crypttab | grep . | tr -s ' \t' ' ' | sed 's/^/system-carve-efi: CRYPTTAB /'
say "FSTAB $(grep -v '^#' /mnt/check/etc/fstab | awk '{ print $2 }' | tr '\n' ' ')"
umount /mnt/check
cryptsetup close check
phase checked
umount /mnt/state
echo FDEWIZ-SYSTEM-CARVE-EFI-OK
