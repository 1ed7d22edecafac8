#!/bin/bash
# Guest half of test-vm-system-lvm.sh, the "live" system: /dev/vda is an installed Debian
# laid out as its installer's guided LVM on EFI (ESP on 1, /boot on 2, an LVM physical
# volume on 3 holding volume group fdw-installed-vg with root and swap_1, no free extents),
# /dev/vdb a persistent disk for fdewiz's state. MODE:
#   cut     list and the plan, then encrypt, killed inside the room-making at the PV's end
#           right after the swap volume shrank and before that step was recorded; the host
#           then cuts the power.
#   finish  'resume' finishes the room (no passphrase), the volume group is checked, then
#           the wizard, driven in tmux, converts the PV and sets up the system's boot (its
#           screens printed between marker lines for the host); checked from here.
set -euo pipefail
fdewiz=$1
work=$2
mode=$3
srcdir=$4
vg=fdw-installed-vg
say() { echo "system-lvm: $*"; }
die() { echo "system-lvm: FAIL: $*"; exit 1; }
t0=$(date +%s)
phase() { say "PHASE $1 $(($(date +%s) - t0))s"; t0=$(date +%s); }

mkdir -p /mnt/state /mnt/check
mount /dev/vdb /mnt/state
export FDEWIZ_STATE_DIR=/mnt/state/fdewiz
# The live system's LVM, without udev: nodes made by LVM itself.
mkdir -p /run/lvm

lvs_line() { lvs --noheadings --units m --nosuffix -o lv_name,lv_size "$vg" 2>/dev/null | tr -s ' \n' ' '; }
pv_line() { pvs --noheadings --units m --nosuffix -o pv_name,pv_size,pv_free "$@" 2>/dev/null | tr -s ' \n' ' '; }
record() { jq -r .step /mnt/state/fdewiz/lvm-room-*.json 2>/dev/null || echo none; }

# The step at a restart, run on this PV as an initramfs that still carries it after
# 'fdewiz cancel' runs it (the stage record and a prepared header beside it, none in the
# root volume): it refuses, says why, and the PV's first and last 64 MiB are unchanged.
pv_ends()
{
	local mib=$(($(blockdev --getsize64 /dev/vda3) / 1048576))
	{ dd if=/dev/vda3 bs=1M count=64 status=none
	  dd if=/dev/vda3 bs=1M skip=$((mib - 64)) status=none; } | sha256sum | cut -c1-16
}
stale_step()
{
	local d=/run/stale rc=0 before
	mkdir -p $d
	printf 'device=/dev/vda3\naddress=/dev/vda3\nuuid=%s\nfs_uuid=%s\nname=vda3_crypt\n' \
		0b7e3a55-1f2d-4c8e-9a61-5d2f8e4c7b10 "$(blkid -p -s UUID -o value /dev/vda3)" >$d/stage
	printf 'boot_mib=0\nhome=/var/lib/fdewiz/restart\nfstype=LVM2_member\nvg=%s\n' "$vg" >>$d/stage
	printf 'root_lv=/dev/mapper/fdw--installed--vg-root\n' >>$d/stage
	truncate -s 16M $d/header
	cryptsetup luksFormat --type luks2 --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--header $d/header --key-file "$work/key" /dev/vda3
	before=$(pv_ends)
	"$fdewiz" restart-step $d/stage <"$work/key" >$d/out 2>$d/err || rc=$?
	vgchange -a n "$vg" >/dev/null 2>&1 || true
	sed 's/^/system-lvm: stale: /' $d/err
	say "STALE rc=$rc out=$(wc -c <$d/out) type=$(blkid -p -s TYPE -o value /dev/vda3) ends=$([ "$(pv_ends)" = "$before" ] && echo same || echo changed)"
	rm -rf $d /run/fdewiz-restart
}

if [ "$mode" = cut ]; then
	stale_step
	say "LVS-BEFORE $(lvs_line)"
	"$fdewiz" list --json /dev/vda >/run/list.json
	say "VERDICT $(jq -c '.disks[0].partitions[] | select(.number == 3) | [.verdict.eligible, .verdict.reason, .verdict.strategy, .installed_system.boot_separate, .installed_system.boot_loader]' /run/list.json)"
	say "MESSAGE $(jq -r '.disks[0].partitions[] | select(.number == 3) | .verdict.message' /run/list.json)"
	"$fdewiz" list /dev/vda >/run/list.txt 2>&1
	sed 's/^/system-lvm: list: /' /run/list.txt
	"$fdewiz" encrypt --dry-run /dev/vda3 >/run/plan.txt 2>&1 || { cat /run/plan.txt; die "dry run"; }
	sed 's/^/system-lvm: plan: /' /run/plan.txt
	phase listed
	rc=0
	FDEWIZ_TEST_KILL_AT=lvm-room-reduced "$fdewiz" --verbose encrypt --yes --fast-pbkdf \
		--no-bench --foreground --header-backup /mnt/state/pv.hdr --key-file /dev/stdin \
		/dev/vda3 <"$work/key" >/run/encrypt.log 2>&1 || rc=$?
	sed 's/^/system-lvm: cut: /' /run/encrypt.log
	grep -q "test hook: killed at 'lvm-room-reduced'" /run/encrypt.log ||
		die "encrypt was not stopped at lvm-room-reduced (exit $rc)"
	say "RECORD $(record)"
	say "LVS-CUT $(lvs_line)"
	phase cut
	echo "system-lvm: POWERCUT-NOW"
	sleep 600
	die "still running after the power cut"
fi

say "RECORD-AFTER-CUT $(record)"
say "LVS-AFTER-CUT $(lvs_line)"
rc=0
"$fdewiz" --verbose resume /dev/vda3 </dev/null >/run/resume.log 2>&1 || rc=$?
sed 's/^/system-lvm: resume: /' /run/resume.log
say "RESUME rc=$rc"
[ "$rc" = 0 ] || die "resume"
phase resumed
say "RECORD-AFTER-RESUME $(record)"
say "LVS-AFTER $(lvs_line)"
say "PV-AFTER $(pv_line /dev/vda3) dev=$(($(blockdev --getsize64 /dev/vda3) / 1048576))"
vgchange -a y "$vg" >/dev/null 2>&1 || die "vgchange -ay"
say "SWAP-AFTER $(blkid -p -o value -s TYPE /dev/mapper/fdw--installed--vg-swap_1) $(blkid -p -o value -s UUID /dev/mapper/fdw--installed--vg-swap_1)"
vgchange -a n "$vg" >/dev/null 2>&1 || die "vgchange -an"

# The wizard converts the PV: the disks pane, the plan, the passphrase, the typed YES, the
# progress and the results, as a person would see them.
export TMUX_TMPDIR=/run/tmux TUI_TERM=xterm-256color LANG=C.UTF-8
mkdir -p /run/tmux
# shellcheck disable=SC1091 # the source tree is an argument
. "$srcdir/tests/lib/tmux.sh"
srv=fdewiz-vm-system-lvm
wait_for()
{
	tmux_wait_for "$srv" "$1" "$2" && return 0
	tmux_capture "$srv" | sed 's/^/    | /'
	tail -n 30 /mnt/state/fdewiz/jobs/*.log 2>/dev/null || true
	die "'$1' did not appear within $2 s"
}
shows() { tmux_capture "$srv" -J | grep -qF -- "$1"; }
print_capture() { echo "CAPTURE-$1-BEGIN"; tmux_capture "$srv"; echo "CAPTURE-$1-END"; }
trap 'tmux_stop "$srv"' EXIT
pass=$(cat "$work/key")
tmux_start "$srv" 120 40 env FDEWIZ_STATE_DIR=/mnt/state/fdewiz FDEWIZ_TEST_FAST_PBKDF=1 \
	"$fdewiz" /dev/vda
wait_for "Choose a partition" 180
tmux_select "$srv" ' 3 .*yes \(' || die "partition 3 is not offered"
wait_for "Holds Debian GNU/Linux 12" 30
print_capture DISKS
tmux_send "$srv" Enter
wait_for "Plan for /dev/vda3" 300
wait_for "Boot setup" 30
print_capture PLAN
tmux_send "$srv" Enter
wait_for "Choose the passphrase" 60
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Tab
tmux_send "$srv" -l "$pass"
tmux_send "$srv" Enter
wait_for "Type YES" 60
tmux_send "$srv" -l "YES"
tmux_send "$srv" Enter
wait_for "Results for /dev/vda3" 2400
sleep 1
print_capture RESULTS
tmux_send "$srv" q
tmux_wait_exit "$srv" 60 || die "q did not quit"
tmux_stop "$srv"
say "WIZARD state=$(FDEWIZ_STATE_DIR=/mnt/state/fdewiz "$fdewiz" status --json /dev/vda3 |
	jq -r '.conversions[0].state')"
phase encrypted

# Checked from outside: the PV inside the LUKS volume, its root clean, its tables.
for m in $(dmsetup ls --target crypt | awk '$2 ~ /^\(/ { print $1 }'); do
	cryptsetup close "$m" || die "cannot close $m"
done
say "LUKS $(cryptsetup luksDump /dev/vda3 | grep -c '^LUKS header information')"
cryptsetup open --key-file "$work/key" /dev/vda3 check || die "cryptsetup open"
vgchange -a y "$vg" >/dev/null 2>&1 || die "vgchange -ay on the encrypted volume"
say "PV-INSIDE $(pv_line /dev/mapper/check)"
rc=0
e2fsck -fn "/dev/mapper/fdw--installed--vg-root" >/run/fsck.log 2>&1 || rc=$?
say "FSCK rc=$rc"
[ "$rc" = 0 ] || { cat /run/fsck.log; die "fsck"; }
say "SWAP-INSIDE $(blkid -p -o value -s TYPE /dev/mapper/fdw--installed--vg-swap_1) $(blkid -p -o value -s UUID /dev/mapper/fdw--installed--vg-swap_1)"
mount -o ro "/dev/mapper/fdw--installed--vg-root" /mnt/check
grep -v '^#' /mnt/check/etc/crypttab | grep . | tr -s ' \t' ' ' | sed 's/^/system-lvm: CRYPTTAB /'
say "FSTAB $(grep -v '^#' /mnt/check/etc/fstab | awk '{ print $1 "=" $2 }' | tr '\n' ' ')"
say "RESUMECONF $(cat /mnt/check/etc/initramfs-tools/conf.d/resume)"
umount /mnt/check
vgchange -a n "$vg" >/dev/null 2>&1 || die "vgchange -an"
cryptsetup close check
phase checked
umount /mnt/state
echo FDEWIZ-SYSTEM-LVM-OK
