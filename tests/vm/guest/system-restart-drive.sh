#!/bin/sh
# Guest half of test-vm-system-restart.sh, run *inside* the installed Debian at each of its
# boots by its check unit (from the disk labelled fdw-drive, mounted at /run/fdw-drive; its
# output goes to the serial console). The file "phase" on that disk says which boot this
# is: "arm" (fdewiz installed; the wizard prepares the encryption of this system's own
# root at the next restart, system-restart-wizard.sh; with the file "lean" 'encrypt
# --at-restart' does; with the baseline benchmark when the file "bench" is there),
# "convert" (booted on dm-crypt after the restart: the battery guard, the pause
# and the resume, files written while the service converts, until it has finished and set
# up the boot), "final" (booted by Debian's own cryptroot: what is left of fdewiz's step).
# Each boot ends with the check unit's report. The file "root" names the root partition;
# with the file "lean" (test-vm-system-restart-btrfs.sh) the wizard, the battery guard and
# the pause are left to test-vm-system-restart.sh; with "dryrun" the plan is printed alone
# first ('encrypt --at-restart --dry-run'); with "reboot" the system is restarted cleanly
# ('systemctl reboot') once the service has converted a tenth; with "sleep" it is suspended
# to RAM once it has converted a twentieth; with "stepfail" the first restart was given a
# wrong passphrase (the step did not begin); with a linux-image package on the disk it is
# installed once prepared, and the kernel the preparation was made on removed; with "race"
# an update-initramfs is started just before the service sets up the boot; with "escrow"
# the command line's preparation escrows the recovery key into a folder of this disk.
d=/run/fdw-drive
rootdev=$(cat $d/root)
lean=0
[ ! -e $d/lean ] || lean=1
say() { echo "FDW-DRIVE $*"; }
# The kernel writes its messages to the same console as these lines, unsynchronised with
# them, and one printed while a line goes out cuts it in two: from here on only
# emergencies ("reboot: Restarting system" is one).
dmesg -n 1 2>/dev/null || true
# A btrfs subvolume's source ends in "[/@rootfs]", and btrfs names a mapping /dev/dm-N.
root_src=$(findmnt -no SOURCE / | sed 's/\[.*//')
[ "$(lsblk -ndo TYPE "$root_src")" != crypt ] || root_src=/dev/mapper/$(lsblk -ndo NAME "$root_src")
# The dm-crypt mapping under the root (itself, or under its logical volume).
root_crypt=$(lsblk -nsro NAME,TYPE "$root_src" | awk '$2 == "crypt" { print $1; exit }')
say "KERNEL-RUNNING $(uname -r)"
say "PHASE $(cat $d/phase) root=$root_src type=$(lsblk -ndo TYPE "$root_src") crypt=${root_crypt:-none}"
# What fdewiz's step in the initramfs logged at this start, if it ran.
[ ! -f /run/fdewiz-restart/step.log ] || sed 's/^/FDW-DRIVE STEPLOG /' /run/fdewiz-restart/step.log
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

# The first line of fdewiz status, and its percent.
status1() { fdewiz status $rootdev 2>&1 | head -n1 | tr -s ' '; }
percent() { status1 | grep -o '[0-9.]*%' | head -n1; }
# wait_status PATTERN SECONDS: until the status matches; the last status line.
wait_status()
{
	w=0
	while ! status1 | grep -q "$1" && [ $w -lt "$2" ]; do sleep 2; w=$((w + 2)); done
	status1
}
# Converting: by the service, or by the worker 'fdewiz resume' started (the state word
# itself: a note in brackets may say "the record said running").
converting()
{
	systemctl is-active -q fdewiz-restart.service ||
		[ "$(systemctl show -p ActiveState --value fdewiz-restart.service)" = activating ] ||
		status1 | grep -q "^$rootdev running "
}
# Moving data: running, not paused or setting up the boot once the data is all encrypted
# (judged from the status line given, or from a new one).
converting_data()
{
	printf '%s\n' "${1:-$(status1)}" | grep " running " | grep -vq 'setting up the boot'
}
# wait_moved PERCENT: until the status's percent is no longer PERCENT, at most 120 s.
wait_moved()
{
	w=0
	while [ "$(percent)" = "$1" ] && [ $w -lt 120 ]; do sleep 2; w=$((w + 2)); done
}
# wait_converted PERCENT STEP: until the service converts data and has passed PERCENT,
# looking every STEP seconds, at most 900 s.
wait_converted()
{
	w=0
	until converting_data && [ "$(percent | cut -d. -f1)" -ge "$1" ] 2>/dev/null; do
		[ $w -lt 900 ] || break
		sleep "$2"
		w=$((w + $2))
	done
}
# Until the service has ended (starting or running), at most 120 s.
service_ended()
{
	w=0
	while [ "$(systemctl show -p ActiveState --value fdewiz-restart.service)" = activating ] ||
		systemctl is-active -q fdewiz-restart.service; do
		[ $w -lt 120 ] || break
		sleep 1
		w=$((w + 1))
	done
}
power=/var/lib/fdw-power

case $(cat $d/phase) in
arm)
	install -m 0755 $d/fdewiz /usr/local/sbin/fdewiz
	say "BOOT-BEFORE $(findmnt -no SOURCE /boot || echo inside) parts=$(ls /sys/block/vda | grep -c '^vda[0-9]')"
	[ $lean = 0 ] || touch $d/guarded $d/resumed
	# A laptop on battery at 10 % for the service's first run (the battery guard), via
	# fdewiz's power-supply test folder; the charger is plugged in by the convert phase.
	# Lean: on mains (a charger online, the battery full).
	mkdir -p $power/AC $power/BAT0 /etc/systemd/system/fdewiz-restart.service.d
	echo Mains >$power/AC/type
	echo $lean >$power/AC/online
	echo Battery >$power/BAT0/type
	echo System >$power/BAT0/scope
	echo 1 >$power/BAT0/present
	if [ $lean = 1 ]; then
		echo Full >$power/BAT0/status
		echo 100 >$power/BAT0/capacity
	else
		echo Discharging >$power/BAT0/status
		echo 10 >$power/BAT0/capacity
	fi
	# With the file "reboot" the conversion is restarted cleanly on the way: the journal is
	# kept on disk, for the next start to read what the service said at the shutdown.
	if [ -e $d/reboot ]; then
		mkdir -p /var/log/journal
		journalctl --flush
	fi
	# The benchmarks once each, not three times: seconds of emulated CPU each.
	printf '[Service]\nEnvironment=FDEWIZ_TEST_POWER_SUPPLY=%s FDEWIZ_TEST_BENCH_REPEATS=1\n' \
		$power >/etc/systemd/system/fdewiz-restart.service.d/test.conf
	# The plan alone, when the host asks (the file "dryrun"): the preparation below prints
	# the same plan, so one test runs it (seconds of emulated CPU for its disk scan).
	[ ! -e $d/dryrun ] || fdewiz encrypt --at-restart --dry-run --bench-scale tiny $rootdev 2>&1 |
		sed 's/^/FDW-DRIVE PLAN /'
	# Either way "arm.result" says "EXIT-STATUS SECONDS" of the preparation, and the
	# recovery key as shown is kept in "recovery" for the final boot's test.
	if [ $lean = 0 ]; then
		# The wizard prepares it, with the baseline benchmark when the host asks.
		FDEWIZ_TEST_BENCH_REPEATS=1 FDEWIZ_TEST_BENCH_SCALE=tiny bash $d/wizard.sh
	else
		# The command line prepares it; with the baseline benchmark of the plain root
		# when the host asks (the file "bench": minutes more under emulation, at both
		# ends).
		bench=--no-bench
		[ ! -e $d/bench ] || bench="--bench-scale tiny"
		t0=$(date +%s)
		# The recovery key escrowed into a folder of this disk first (the file "escrow").
		escrow=
		[ ! -e $d/escrow ] || { mkdir -p $d/escrowed; escrow="--escrow-dir $d/escrowed"; }
		rc=0
		# shellcheck disable=SC2086 # $bench and $escrow are words or none
		FDEWIZ_TEST_BENCH_REPEATS=1 fdewiz encrypt --at-restart --yes --fast-pbkdf \
			--key-file $d/key $escrow $bench $rootdev >$d/arm.out 2>&1 || rc=$?
		echo "$rc $(($(date +%s) - t0))" >$d/arm.result
		grep -v '[A-Z0-9]\{6\}-[A-Z0-9]\{6\}-' $d/arm.out | sed 's/^/FDW-DRIVE ARM-OUT /'
		grep -o '[A-Z0-9]\{6\}\(-[A-Z0-9]\{6\}\)\{7\}' $d/arm.out | head -n1 >$d/recovery
	fi
	read -r rc seconds <$d/arm.result
	say "ARM rc=$rc seconds=$seconds baseline=$(ls /var/lib/fdewiz/bench/before-*.json 2>/dev/null | wc -l)"
	say "RECOVERY-SHOWN $(wc -c <$d/recovery)"
	[ ! -d $d/escrowed ] || say "ESCROWED $(cd $d/escrowed && stat -c '%n %a' -- *)"
	# Listed once: each listing takes seconds of the emulated CPU.
	lsinitramfs "$initrd" >/run/initrd.list
	say "INITRD-STEP $(grep -c 'fdewiz-restart/stage$\|fdewiz-restart/header$\|sbin/fdewiz$\|local-top/fdewiz-restart$\|sbin/resize2fs$' /run/initrd.list)"
	# The prepared header's unused keyslot area is zeros, so the initramfs carries little
	# of its 16 MiB (the area libcryptsetup fills with random bytes).
	hdr=/var/lib/fdewiz/restart/header
	say "HEADER-BYTES $(stat -c %s $hdr) nonzero=$(tr -d '\000' <$hdr | wc -c) initrd=$(stat -c %s "$initrd")"
	say "INITRD-MOVE $(grep -c 'fdewiz-restart/boot-move-.*\.json$\|sbin/mke2fs$\|usr/sbin/cp$\|sbin/chroot$' /run/initrd.list)"
	say "INITRD-BTRFS $(grep -c 'sbin/btrfs$\|/btrfs\.ko' /run/initrd.list)"
	say "INITRD-LVM $(grep -c 'sbin/pvresize$\|sbin/lvreduce$\|sbin/mkswap$' /run/initrd.list)"
	say "SERVICE $(systemctl is-enabled fdewiz-restart.service 2>&1)"
	# What status says of the prepared root, still plain (not "no conversion").
	say "STATUS-PREPARED $(fdewiz status $rootdev 2>&1 | head -n1)"
	# A kernel update while it is prepared (a linux-image package on this disk): the new
	# kernel installed with dpkg (its initramfs made with the step's hook), then the one
	# the preparation was made on removed; the restart goes through the new one.
	for deb in $d/linux-image-*.deb; do
		[ -f "$deb" ] || continue
		old=$(uname -r)
		new=$(dpkg-deb -f "$deb" Package | sed 's/^linux-image-//')
		rc=0
		dpkg -i --force-unsafe-io "$deb" >$d/kernel.out 2>&1 || rc=$?
		tail -n 4 $d/kernel.out | sed 's/^/FDW-DRIVE KERNEL-OUT /'
		say "KERNEL-INSTALLED $new rc=$rc initrd=$(ls /boot/initrd.img-$new 2>/dev/null | wc -l)"
		say "STATUS-TWO-KERNELS $(fdewiz status $rootdev 2>&1 | head -n1)"
		# Removing the running kernel asks first; the answer given beforehand.
		echo 'linux-base linux-base/removing-running-kernel boolean false' | debconf-set-selections
		rc=0
		DEBIAN_FRONTEND=noninteractive dpkg -r --force-depends linux-image-amd64 \
			linux-image-$old >$d/kernel.out 2>&1 || rc=$?
		tail -n 2 $d/kernel.out | sed 's/^/FDW-DRIVE KERNEL-OUT /'
		say "KERNEL-REMOVED $old rc=$rc left=$(ls /boot/vmlinuz-* | tr '\n' ' ')"
		say "STATUS-NEW-KERNEL $(fdewiz status $rootdev 2>&1 | head -n1)"
		say "GRUB-KERNELS $(grep -o 'vmlinuz-[^ ]*' /boot/grub/grub.cfg | sort -u | tr '\n' ' ')"
		initrd=/boot/initrd.img-$new
	done
	# What a power cut inside update-initramfs leaves beside the image: no initramfs of a
	# kernel, so the boot set up at the end neither keeps a copy of it nor checks it.
	head -c 65536 /dev/urandom >"$initrd.dpkg-bak"
	echo convert >$d/phase
	sync $d/phase
	;;
convert)
	# A wrong passphrase typed at each of the step's three prompts (the file "stepfail"),
	# once: the step does not begin, the system starts plain (from its volume group for a
	# PV) and stays prepared; status and the service say why. The next start is given the
	# right passphrase.
	if [ -e $d/stepfail ] && [ ! -e $d/stepfailed ] && [ -z "$root_crypt" ]; then
		touch $d/stepfailed
		sync
		service_ended
		say "STEP-NOT-BEGUN $(fdewiz status $rootdev 2>&1 | tr '\n' ' ' | tr -s ' ')"
		say "STEP-SERVICE $(systemctl show -p Result --value fdewiz-restart.service) $(journalctl -b -u fdewiz-restart.service -o cat | tr '\n' ' ')"
		exit 0
	fi
	if [ ! -e $d/guarded ]; then
		# The service's first run: on battery at 10 % it waits for the charger at its
		# first safe point, and nothing moves; plugged in, it goes on.
		say "GUARD-WAIT $(wait_status 'waiting for the charger' 240)"
		p1=$(percent)
		sleep 5
		say "GUARD-HELD $p1 $(percent)"
		echo 1 >$power/AC/online
		echo Charging >$power/BAT0/status
		wait_moved "$p1"
		say "GUARD-GOES-ON $(status1)"
		# Begun at the restart, it cannot be cancelled any more: refused, saying so.
		rc=0
		fdewiz cancel >$d/cancel.out 2>&1 || rc=$?
		say "CANCEL-REFUSED rc=$rc $(tr '\n' ' ' <$d/cancel.out)"
		# Paused by the person: the service ends without a failure, nothing moves.
		rc=0
		fdewiz pause $rootdev >$d/pause.out 2>&1 || rc=$?
		sed 's/^/FDW-DRIVE PAUSE-OUT /' $d/pause.out
		w=0
		while systemctl is-active -q fdewiz-restart.service && [ $w -lt 60 ]; do
			sleep 1
			w=$((w + 1))
		done
		p1=$(percent)
		sleep 3
		say "PAUSED rc=$rc $(status1) held=$p1,$(percent) service=$(systemctl is-active fdewiz-restart.service),$(systemctl show -p Result --value fdewiz-restart.service)"
		touch $d/guarded
		sync
		# The host cuts the power while it is paused.
		say "PAUSED-MARK"
		sleep 600
	fi
	if [ ! -e $d/resumed ]; then
		# Restarted while paused: the initramfs step opened the root, the service left
		# the conversion paused.
		service_ended
		p1=$(percent)
		sleep 3
		say "STILL-PAUSED $(status1) held=$p1,$(percent) service=$(systemctl show -p Result --value fdewiz-restart.service) said=$(journalctl -b -u fdewiz-restart.service -o cat | grep -c 'stays paused')"
		rc=0
		FDEWIZ_TEST_BENCH_REPEATS=1 fdewiz resume --key-file $d/key $rootdev >$d/resume.out 2>&1 || rc=$?
		say "RESUMED rc=$rc $(status1)"
		touch $d/resumed
		sync
	fi
	# A suspend to RAM during the conversion (the file "sleep"): once the service has
	# converted a twentieth, systemd suspends the machine (as a closed lid does) and an RTC
	# alarm wakes it 15 s later. The conversion goes on by itself; its journal and status
	# say how long it slept, and that time is in no speed or time left.
	if [ -e $d/sleep ] && [ ! -e $d/slept ]; then
		wait_converted 5 2
		p1=$(percent)
		touch $d/slept
		sync
		rtcwake -m no -s 15 >/dev/null
		systemctl suspend
		# systemctl returns at once: back once systemd-sleep says so.
		w=0
		until journalctl -b -u systemd-suspend.service -o cat | grep -q 'returned from sleep'; do
			[ $w -lt 300 ] || break
			sleep 1
			w=$((w + 1))
		done
		# Then until the next hotzone has moved it on.
		p2=$(percent)
		wait_moved "$p2"
		say "SLEPT p1=$p1 p2=$(percent) deep=$(dmesg | grep -c 'PM: suspend entry (deep)') noted=$(journalctl -b -u fdewiz-restart.service -o cat | grep -c 'the machine slept') after=$(status1)"
		journalctl -b -u fdewiz-restart.service -o cat | tr '\r' '\n' |
			grep 'the machine slept' | sed 's/^/FDW-DRIVE SLEEP-JOURNAL /'
	fi
	# A shutdown during the conversion (the file "reboot"): 'systemctl reboot' once the
	# service has converted a tenth; at the next start, what the journal kept of its stop.
	if [ -e $d/reboot ] && [ ! -e $d/rebooted ]; then
		wait_converted 10 5
		say "REBOOTING $(status1)"
		touch $d/rebooted
		sync
		systemctl reboot
		sleep 600
	fi
	if [ -e $d/rebooted ] && [ ! -e $d/reboot-read ]; then
		journalctl -b -1 -u fdewiz-restart.service -o short-monotonic | tail -n 6 |
			sed 's/^/FDW-DRIVE PREV-JOURNAL /'
		journalctl -b -1 -u fdewiz-restart.service -o cat >/run/prev-journal
		# "PREV-STOP SAID FAILED": the lines saying where it stopped for the shutdown, and
		# those of a failure, a stop that timed out or a process killed.
		say "PREV-STOP $(grep -c 'Stopped at a safe point at [0-9.]*%, as the system asked' /run/prev-journal) $(grep -c 'Failed with result\|timed out\|Killing process' /run/prev-journal)"
		touch $d/reboot-read
		sync
	fi
	# Runs again after each power cut of the test, until the conversion has finished.
	# Its status every 10 s while it converts, for the host's cuts at a point of the
	# conversion (1 GiB at about 10 MiB/s: some eight looks between 10 and 89 %, the
	# window of the cut during it); every 15 s once it sets up the boot. A status takes
	# 0.3-0.6 s of the emulated CPU (measured alone), taken from the service, which runs
	# at nice 10: every 5 s it was a tenth of the machine.
	(
		i=0
		while converting; do
			line=$(fdewiz status $rootdev 2>&1 | head -n1)
			say "STATUS $line"
			echo "$line" >/run/fdw-status
			# Now and then what the service last said, for a run that hangs.
			if [ $((i % 30)) = 29 ]; then
				journalctl -b -u fdewiz-restart.service -n 3 -o cat | sed 's/^/FDW-DRIVE SVC /'
			fi
			i=$((i + 1))
			case $line in
			*'(setting up the boot)'*) sleep 15 ;;
			*) sleep 10 ;;
			esac
		done
	) &
	poller=$!
	# The person's own I/O while the service converts, then the same once it is done:
	# measured once, in the first boot where the service converted all the while (kept on
	# this disk; a boot cut in the middle of it, or one where the conversion ended or the
	# boot was being set up, measures nothing).
	[ -s $d/busy ] || wait_status ' running ' 120 >/dev/null
	if [ ! -s $d/busy ] && converting_data; then
		busy=$(write_files 32 busy)
		after=$(status1)
		say "BUSY ${busy}MiB/s, then: $after"
		if converting_data "$after"; then
			echo "$busy" >$d/busy
			sync $d/busy
		fi
	fi
	# Files are written while it converts, one every 5 s (each write, flush, sum and look
	# at the service runs six programs on the emulated CPU); not while it sets up the boot,
	# where they would only slow update-initramfs (the service runs at nice 10, this at 0).
	n=0
	while converting; do
		# An initramfs build of the person's (apt's, after an update) that reads the system
		# before the service changes it and ends after the service's own would (the file
		# "race"): begun once half is converted and held by a hook of the test's, after
		# cryptroot's and only in this build (FDW_RACE=1), until the service's journal says
		# it waits for it. Without that wait its initramfs, without the root's crypttab
		# entry, could be the one left.
		if [ -e $d/race ] && [ ! -e $d/raced ] &&
		   [ "$(grep -o '[0-9.]*%' /run/fdw-status 2>/dev/null | head -n1 | cut -d. -f1)" -ge 50 ] 2>/dev/null; then
			touch $d/raced
			sync
			printf '%s\n' '#!/bin/sh' 'case "$1" in prereqs) exit 0 ;; esac' \
				'[ "${FDW_RACE:-}" = 1 ] || exit 0' 'i=0' \
				'while [ ! -e /run/fdw-race-release ] && [ $i -lt 900 ]; do sleep 1; i=$((i + 1)); done' \
				>/etc/initramfs-tools/hooks/zz-fdw-race
			chmod 0755 /etc/initramfs-tools/hooks/zz-fdw-race
			FDW_RACE=1 update-initramfs -u -k all >$d/race.out 2>&1 &
			race=$!
			say "RACE-STARTED $(cat /run/fdw-status)"
		fi
		if [ -n "${race:-}" ] && [ ! -e /run/fdw-race-release ] &&
		   journalctl -b -u fdewiz-restart.service -o cat | grep -q 'waiting for another initramfs build'; then
			touch /run/fdw-race-release
			# The status now: the poller's file can be 15 s old.
			say "RACE-RELEASED $(status1)"
		fi
		case $(cat /run/fdw-status 2>/dev/null) in
		*'(setting up the boot)'*)
			sleep 5
			continue
			;;
		esac
		write_files 1 "during$n" 262144 >/dev/null
		n=$((n + 1))
		sleep 5
	done
	wait $poller
	if [ -n "${race:-}" ]; then
		rc=0
		wait "$race" || rc=$?
		say "RACE-BUILD rc=$rc waited=$(journalctl -b -u fdewiz-restart.service -o cat | grep -c 'waited for another initramfs build to end (pid [0-9]*: update-initramfs)')"
	fi
	say "SERVICE-RESULT $(systemctl show -p Result --value fdewiz-restart.service) files-during=$n"
	journalctl -b -u fdewiz-restart.service -o short-monotonic | tail -n 30 | sed 's/^/FDW-DRIVE JOURNAL /'
	# The same writes on the idle system: measured once, by test-vm-system-restart.sh.
	idle="(not measured here)"
	[ $lean = 1 ] || idle=$(write_files 32 idle)MiB/s
	say "THROUGHPUT busy=$(cat $d/busy 2>/dev/null || echo '(not measured)')MiB/s idle=$idle"
	say "STALE-COPIES $(ls /boot | grep -c '\.dpkg-bak\.fdewiz-bak$')"
	say "STATUS-END $(fdewiz status $rootdev 2>&1 | tr '\n' ' ' | tr -s ' ')"
	# The slowdown, the plain root measured at the preparation against the encrypted one.
	if [ -e $d/bench ]; then
		fdewiz bench --compare /var/lib/fdewiz/bench/before-*.json \
			/var/lib/fdewiz/bench/after-*.json 2>&1 | sed 's/^/FDW-DRIVE COMPARE /'
	fi
	say "CRYPTTAB $(grep -v '^#' /etc/crypttab | tr '\n' ' ')"
	lsinitramfs "$initrd" >/run/initrd.list
	say "INITRD-AFTER step=$(grep -c 'fdewiz-restart' /run/initrd.list) cryptroot=$(grep -c 'cryptroot/crypttab$' /run/initrd.list)"
	say "LEFT $(ls /var/lib/fdewiz/restart /etc/initramfs-tools/hooks/fdewiz-restart /etc/systemd/system/fdewiz-restart.service 2>/dev/null | wc -l)"
	# Every file written in these boots (cut or not) is checked by the next boot's unit.
	say "WORK-FILES $(wc -l <$d/work-sums)"
	cat $d/work-sums >>/var/lib/fdw-check/sums
	sync
	echo final >$d/phase
	sync $d/phase
	;;
final)
	say "BOOT-FROM $(findmnt -no SOURCE /boot || echo inside) $(grep -o 'BOOT_IMAGE=[^ ]*' /proc/cmdline)"
	say "PARTS $(ls /sys/block/vda | grep -c '^vda[0-9]')"
	say "DMNAME $root_crypt"
	say "SWAPS $(swapon --show=NAME,SIZE --noheadings --bytes | tr -s ' ' | tr '\n' ' ')"
	printf '%s' "$(cat $d/recovery)" >/run/rk
	cryptsetup open --test-passphrase --key-file /run/rk $rootdev && say "RECOVERY-OPENS yes" ||
		say "RECOVERY-OPENS no"
	rm -f /run/rk
	# The escrowed document: named by the volume's LUKS UUID, its key the one shown, and it
	# opens the volume.
	for f in $d/escrowed/*.json; do
		[ -f "$f" ] || continue
		sed -n 's/.*"recovery_key": "\([^"]*\)".*/\1/p' "$f" | tr -d '\n' >/run/ek
		opens=no
		cryptsetup open --test-passphrase --key-file /run/ek $rootdev && opens=yes
		name=differs
		[ "$(basename "$f" .json)" != "$(cryptsetup luksUUID $rootdev)" ] || name=luks-uuid
		shown=differs
		[ "$(cat /run/ek)" != "$(cat $d/recovery)" ] || shown=same
		say "ESCROW-FINAL name=$name key=$shown opens=$opens"
		rm -f /run/ek
	done
	echo done >$d/phase
	sync $d/phase
	;;
esac
