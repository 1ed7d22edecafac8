#!/bin/sh
# Guest half of test-vm-system-restart.sh, run *inside* the installed Debian at each of its
# boots by its check unit (from the disk labelled fdw-drive, mounted at /run/fdw-drive; its
# output goes to the serial console). The file "phase" on that disk says which boot this
# is: "arm" (fdewiz installed, then 'encrypt --at-restart' of this system's own root),
# "convert" (booted on dm-crypt after the restart: files written while the service
# converts, until it has finished and set up the boot), "final" (booted by Debian's own
# cryptroot: what is left of fdewiz's step). Each boot ends with the check unit's report.
d=/run/fdw-drive
say() { echo "FDW-DRIVE $*"; }
root_src=$(findmnt -no SOURCE /)
say "PHASE $(cat $d/phase) root=$root_src type=$(lsblk -ndo TYPE "$root_src")"
initrd=/boot/initrd.img-$(uname -r)

# write_files N TAG: N files of 1 MiB into /var/lib/fdw-work, each flushed and then its
# sum kept on this disk (flushed too): a file whose sum was kept must survive a power cut.
# Prints MiB/s.
boot=$(cut -c1-8 /proc/sys/kernel/random/boot_id)
write_files()
{
	mkdir -p /var/lib/fdw-work
	t0=$(date +%s%N)
	i=0
	while [ $i -lt "$1" ]; do
		f=var/lib/fdw-work/$2-$boot-$i
		head -c "${3:-1048576}" /dev/urandom >"/$f"
		sync "/$f"
		(cd / && sha256sum "$f") >>$d/work-sums
		sync $d/work-sums
		i=$((i + 1))
	done
	t1=$(date +%s%N)
	echo "$1 $(( (t1 - t0) / 1000000 ))" | awk '{ printf "%.1f", $1 / ($2 / 1000) }'
}

case $(cat $d/phase) in
arm)
	install -m 0755 $d/fdewiz /usr/local/sbin/fdewiz
	fdewiz encrypt --at-restart --dry-run /dev/vda2 2>&1 | sed 's/^/FDW-DRIVE PLAN /'
	t0=$(date +%s)
	rc=0
	fdewiz encrypt --at-restart --yes --fast-pbkdf --key-file $d/key /dev/vda2 \
		>$d/arm.out 2>&1 || rc=$?
	say "ARM rc=$rc seconds=$(($(date +%s) - t0))"
	grep -v '[A-Z0-9]\{6\}-[A-Z0-9]\{6\}-' $d/arm.out | sed 's/^/FDW-DRIVE ARM-OUT /'
	# The recovery key as shown: kept on this disk for the final boot's test.
	grep -o '[A-Z0-9]\{6\}\(-[A-Z0-9]\{6\}\)\{7\}' $d/arm.out | head -n1 >$d/recovery
	say "RECOVERY-SHOWN $(wc -c <$d/recovery)"
	say "INITRD-STEP $(lsinitramfs "$initrd" | grep -c 'fdewiz-restart/stage$\|fdewiz-restart/header$\|sbin/fdewiz$\|local-top/fdewiz-restart$\|sbin/resize2fs$')"
	say "SERVICE $(systemctl is-enabled fdewiz-restart.service 2>&1)"
	# Cancelled and prepared again: cancel must leave an initramfs without the step.
	fdewiz cancel >$d/cancel.out 2>&1 && say "CANCEL rc=0" || say "CANCEL rc=$?"
	say "CANCELLED-INITRD-STEP $(lsinitramfs "$initrd" | grep -c 'fdewiz-restart')"
	say "CANCELLED-FILES $(ls /var/lib/fdewiz/restart /etc/initramfs-tools/hooks/fdewiz-restart 2>/dev/null | wc -l)"
	rc=0
	fdewiz encrypt --at-restart --yes --fast-pbkdf --key-file $d/key /dev/vda2 \
		>$d/arm.out 2>&1 || rc=$?
	say "ARM2 rc=$rc"
	grep -o '[A-Z0-9]\{6\}\(-[A-Z0-9]\{6\}\)\{7\}' $d/arm.out | head -n1 >$d/recovery
	echo convert >$d/phase
	;;
convert)
	# Runs again after each power cut of the test, until the service has finished.
	# Its status every 2 s, for the host's cuts at a point of the conversion (a status
	# takes a good part of a second of the emulated CPU: every second slowed it all).
	(
		while systemctl is-active -q fdewiz-restart.service ||
			[ "$(systemctl show -p ActiveState --value fdewiz-restart.service)" = activating ]; do
			say "STATUS $(fdewiz status /dev/vda2 2>&1 | head -n1)"
			sleep 2
		done
	) &
	poller=$!
	# The person's own I/O while the service converts, then the same once it is done.
	busy=$(write_files 64 busy)
	say "BUSY ${busy}MiB/s, then: $(fdewiz status /dev/vda2 2>&1 | head -n1 | tr -s ' ')"
	n=0
	while systemctl is-active -q fdewiz-restart.service; do
		write_files 1 "during$n" 262144 >/dev/null
		n=$((n + 1))
		sleep 2
	done
	wait $poller
	say "SERVICE-RESULT $(systemctl show -p Result --value fdewiz-restart.service) files-during=$n"
	journalctl -b -u fdewiz-restart.service -o cat | tail -n 30 | sed 's/^/FDW-DRIVE JOURNAL /'
	idle=$(write_files 64 idle)
	say "THROUGHPUT busy=${busy}MiB/s idle=${idle}MiB/s"
	say "STATUS-END $(fdewiz status /dev/vda2 2>&1 | tr '\n' ' ' | tr -s ' ')"
	say "CRYPTTAB $(grep -v '^#' /etc/crypttab | tr '\n' ' ')"
	say "INITRD-AFTER step=$(lsinitramfs "$initrd" | grep -c 'fdewiz-restart') cryptroot=$(lsinitramfs "$initrd" | grep -c 'cryptroot/crypttab$')"
	say "LEFT $(ls /var/lib/fdewiz/restart /etc/initramfs-tools/hooks/fdewiz-restart /etc/systemd/system/fdewiz-restart.service 2>/dev/null | wc -l)"
	# Every file written in these boots (cut or not) is checked by the next boot's unit.
	say "WORK-FILES $(wc -l <$d/work-sums)"
	cat $d/work-sums >>/var/lib/fdw-check/sums
	sync
	echo final >$d/phase
	;;
final)
	say "DMNAME $(dmsetup info -c --noheadings -o name "$root_src" 2>/dev/null)"
	printf '%s' "$(cat $d/recovery)" >/run/rk
	cryptsetup open --test-passphrase --key-file /run/rk /dev/vda2 && say "RECOVERY-OPENS yes" ||
		say "RECOVERY-OPENS no"
	rm -f /run/rk
	echo done >$d/phase
	;;
esac
