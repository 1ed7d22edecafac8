# fdewiz VM tests: boot an installed-system image from its own disk (source it after lib.sh).
# shellcheck shell=bash disable=SC2034 # VM_BOOT_* variables are for the sourcing test
#
# phase NAME: the line "TIMING NAME Ns", the seconds since the last phase (t0), for a
# test's log.
phase()
{
	echo "$VM_NAME: TIMING $1 $(($(date +%s) - t0))s"
	t0=$(date +%s)
}

# vm_installed_copy IMAGE NAME: a copy of installed-image.sh's image IMAGE (image,
# image_bootinside, image_lvm...: the keys of its output; built first when its cache has
# none) in $VM_WORK/NAME, named in $img; the time that took is the phase "image-ready".
# vm_prep KEY then reads another value of installed-image.sh's output.
vm_installed_copy()
{
	t0=$(date +%s)
	VM_PREP=$("$VM_HERE/installed-image.sh") ||
		{ vm_fail "building the installed image"; vm_finish; }
	phase "image-ready (cached or built)"
	img=$VM_WORK/$2
	cp --sparse=always "$(vm_prep "$1")" "$img"
	chmod 0644 "$img"
}

vm_prep()
{
	sed -n "s/^$1=//p" <<<"$VM_PREP"
}

# vm_boot_installed IMG LOG [KEYFILE] [TIMEOUT]: QEMU with SeaBIOS boots IMG (GRUB in its
# MBR), the serial console goes to LOG. With VM_BOOT_EFI=1 the firmware is OVMF instead
# (Debian's ovmf package, installed if missing; its code read-only, its variables a fresh
# copy of the empty template in $VM_WORK for each boot, so it starts the ESP's removable
# path EFI/BOOT/BOOTX64.EFI). When the initramfs asks for a passphrase on that
# console ("Please unlock disk ..."), or systemd does for a crypttab volume opened after
# the root ("Please enter passphrase for disk ..."), the contents of KEYFILE are typed
# there, through a FIFO on QEMU's stdin (never an argument). Returns when the system
# reports FDW-BOOT-OK or FDW-BOOT-FAIL and powers off, or after TIMEOUT seconds (default
# 900; qemu is killed). VM_BOOT_DISK2, when set, is a second disk (/dev/vdb there).
# VM_BOOT_TPM, when set, is the socket of a TPM 2.0 emulator (vm_swtpm_start): the
# machine gets a TPM (tpm-crb) with that state.
# Sets VM_BOOT_SECONDS and VM_BOOT_PROMPTS (how many prompts were answered).
vm_boot_installed()
{
	local img=$1 log=$2 keyfile=${3:-} timeout=${4:-900}
	local fifo qpid start answered=0 prompts
	local extra=() code vars= disk_opts
	disk_opts=$("$VM_HERE/vm-disk-opts.sh")
	[ -z "${VM_BOOT_DISK2:-}" ] || extra=(-drive "file=$VM_BOOT_DISK2,format=raw,if=virtio,$disk_opts")
	if [ -n "${VM_BOOT_TPM:-}" ]; then
		# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
		extra+=(-chardev "socket,id=chrtpm,path=$VM_BOOT_TPM"
			-tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-crb,tpmdev=tpm0)
	fi
	if [ "${VM_BOOT_EFI:-}" = 1 ]; then
		vm_ovmf code vars || return 1
		# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
		extra+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
			-drive "if=pflash,format=raw,unit=1,file=$vars")
	fi
	fifo=$(mktemp -u "$VM_WORK/serial-in.XXXXXX")
	mkfifo -m 0600 "$fifo"
	: >"$log"
	start=$(date +%s)
	# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
	local accel
	read -r -a accel < <("$VM_HERE/vm-accel.sh")
	qemu-system-x86_64 "${accel[@]}" -m 1024 -no-reboot \
		-nodefaults -no-user-config -display none \
		-drive "file=$img,format=raw,if=virtio,$disk_opts" "${extra[@]}" \
		-chardev "stdio,id=con,signal=off,logfile=$log" -serial chardev:con \
		-device virtio-rng-pci <"$fifo" >/dev/null 2>&1 &
	qpid=$!
	# Each console line with the seconds since QEMU started, in LOG's .times beside it:
	# where a boot's time went (firmware and GRUB, kernel, initramfs, systemd, the test's
	# own steps).
	tail -n +1 -F --pid="$qpid" "$log" 2>/dev/null | vm_stamp_lines >"${log%.log}.times" &
	# Held open for writing so that QEMU never sees the end of its input.
	exec {VM_BOOT_FD}>"$fifo"
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
			echo "$VM_NAME: boot timed out after ${timeout}s; qemu killed" >&2
			kill -KILL "$qpid" 2>/dev/null
			break
		fi
		prompts=$(grep -ac 'Please unlock disk\|Please enter passphrase for disk' "$log" ||
			true)
		if [ -n "$keyfile" ] && [ "$prompts" -gt "$answered" ]; then
			sleep 1
			{ cat "$keyfile"; printf '\n'; } >&"$VM_BOOT_FD"
			answered=$prompts
		fi
		grep -aq '^FDW-BOOT-\(OK\|FAIL\)' "$log" && sleep 3 && break
		sleep 1
	done
	kill -TERM "$qpid" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	exec {VM_BOOT_FD}>&-
	rm -f "$fifo"
	[ -z "$vars" ] || rm -f "$vars"
	VM_BOOT_SECONDS=$(($(date +%s) - start))
	VM_BOOT_PROMPTS=$answered
}

# vm_stamp_lines: each line of standard input (a console's) with the tenths of seconds
# since this started in front ("  12.3 line"), its carriage returns dropped.
vm_stamp_lines()
{
	local t0=${EPOCHREALTIME/./} t line
	while IFS= read -r line; do
		t=$(((${EPOCHREALTIME/./} - t0) / 100000))
		printf '%4d.%d %s\n' $((t / 10)) $((t % 10)) "${line//$'\r'/}"
	done
}

# vm_ovmf CODEVAR VARSVAR: OVMF's code (read-only) and a fresh copy of its empty variable
# store in $VM_WORK, named in the two variables: the 4 MiB build where there is one, else
# the 2 MiB one. Installs Debian's ovmf package if neither is there.
vm_ovmf()
{
	local dir=/usr/share/OVMF c v
	[ -e "$dir/OVMF_CODE_4M.fd" ] || [ -e "$dir/OVMF_CODE.fd" ] || vm_need_pkgs ovmf
	if [ -e "$dir/OVMF_CODE_4M.fd" ] && [ -e "$dir/OVMF_VARS_4M.fd" ]; then
		c=$dir/OVMF_CODE_4M.fd v=$dir/OVMF_VARS_4M.fd
	elif [ -e "$dir/OVMF_CODE.fd" ] && [ -e "$dir/OVMF_VARS.fd" ]; then
		c=$dir/OVMF_CODE.fd v=$dir/OVMF_VARS.fd
	else
		echo "$VM_NAME: no OVMF firmware in $dir" >&2
		return 1
	fi
	printf -v "$1" '%s' "$c"
	printf -v "$2" '%s' "$(mktemp "$VM_WORK/ovmf-vars.XXXXXX")"
	cp "$v" "${!2}"
}

# vm_swtpm_start STATEDIR: a TPM 2.0 emulator (swtpm) keeping its state in STATEDIR (made
# if missing: a new, empty TPM), for one QEMU run; it ends when QEMU lets it go. Sets
# VM_SWTPM_SOCK (its control socket, for vm-run.sh --tpm or VM_BOOT_TPM) and VM_SWTPM_PID.
vm_swtpm_start()
{
	local dir=$1 i
	command -v swtpm >/dev/null || vm_need_pkgs swtpm swtpm-tools
	mkdir -p "$dir"
	VM_SWTPM_SOCK=$VM_WORK/swtpm.sock
	rm -f "$VM_SWTPM_SOCK"
	swtpm socket --tpm2 --tpmstate "dir=$(realpath "$dir")" \
		--ctrl "type=unixio,path=$VM_SWTPM_SOCK" --log "file=$VM_WORK/swtpm.log" &
	VM_SWTPM_PID=$!
	for i in $(seq 50); do
		[ -S "$VM_SWTPM_SOCK" ] && return 0
		sleep 0.1
	done
	echo "$VM_NAME: swtpm did not start (see $VM_WORK/swtpm.log)" >&2
	return 1
}

# vm_swtpm_stop: the emulator gone (QEMU's end normally ends it already).
vm_swtpm_stop()
{
	[ -n "${VM_SWTPM_PID:-}" ] || return 0
	kill "$VM_SWTPM_PID" 2>/dev/null || true
	wait "$VM_SWTPM_PID" 2>/dev/null || true
	VM_SWTPM_PID=
}

# The data files of every installed image (installed-image.sh's /srv/fdw-data), which its
# check unit reads at each boot: "FDW-BOOT-OK sums=ok files=300 ...".
VM_DATA_FILES=300

# vm_boot_ok_grown RESULT ROOT: the check unit's line RESULT says every file checked out,
# more of them than the image's own (those written during a conversion too), / on ROOT.
vm_boot_ok_grown()
{
	awk -v min="$VM_DATA_FILES" -v root="root=$2" '$1 == "FDW-BOOT-OK" && $2 == "sums=ok" &&
		$3 ~ /^files=[0-9]+$/ && $4 == root && NF == 4 { sub("files=", "", $3);
		ok = $3 + 0 > min } END { exit !ok }' <<<"$1"
}

# The line the image's check unit printed: "FDW-BOOT-OK sums=ok files=300 root=crypt".
# Empty when it printed neither (a boot that timed out): the test's checks then fail and
# say so, instead of pipefail ending the test before them.
vm_boot_result()
{
	{ tr -d '\r' <"$1" | grep -a '^FDW-BOOT-\(OK\|FAIL\)' || true; } | tail -n1
}

# vm_add_home IMG: give the installed system in IMG (a copy of installed-image.sh's, whose
# cache stays as it is) a /home partition of its own: partition 4, 199 MiB of ext4 after
# the swap, 30 files in user/, named by UUID in its fstab. Its check unit then also reports
# "FDW-HOME source=... type=... sums=ok|bad files=30", and "FDW-DATA ..." likewise when a
# test puts /var/lib/fdw-check/data-sums there (a /data of its own). The root partition is changed with
# debugfs in a copy of its bytes, never mounted. Sets VM_HOME_UUID and VM_HOME_DIR.
vm_add_home()
{
	local img=$1 end off size roff rlen fs=$VM_WORK/root.fs i
	pinfo() # N FIELD: a field of partition N in bytes
	{
		parted -s -m "$img" unit B print |
			awk -F: -v n="$1" -v f="$2" '$1 == n { sub("B", "", $f); print $f }'
	}

	end=$(parted -s -m "$img" unit MiB print |
		awk -F: '$1 == "3" { sub("MiB", "", $3); print $3 }')
	truncate -s +200M "$img"
	parted -s "$img" mkpart primary ext4 "${end}MiB" "$((end + 199))MiB" 2>/dev/null
	VM_HOME_UUID=$(cat /proc/sys/kernel/random/uuid)
	VM_HOME_DIR=$VM_WORK/home-tree
	mkdir -p "$VM_HOME_DIR/home/user"
	for i in $(seq 1 30); do head -c $((i * 997)) /dev/urandom >"$VM_HOME_DIR/home/user/f$i"; done
	off=$(pinfo 4 2)
	size=$(pinfo 4 4)
	mkfs.ext4 -q -F -b 4096 -U "$VM_HOME_UUID" -d "$VM_HOME_DIR/home" -E offset="$off" "$img" \
		$((size / 1024))k
	(cd "$VM_HOME_DIR" && find home -type f -print0 | sort -z | xargs -0 sha256sum) \
		>"$VM_WORK/home-sums"
	roff=$(pinfo 2 2)
	rlen=$(pinfo 2 4)
	dd if="$img" of="$fs" bs=1M iflag=skip_bytes,count_bytes skip="$roff" count="$rlen" \
		status=none
	debugfs -R "cat /etc/fstab" "$fs" 2>/dev/null >"$VM_WORK/fstab"
	echo "UUID=$VM_HOME_UUID /home ext4 defaults 0 2" >>"$VM_WORK/fstab"
	debugfs -R "cat /usr/local/sbin/fdw-boot-check" "$fs" 2>/dev/null |
		awk '/^echo "FDW-CMDLINE/ {
			print "for m in home data; do"
			print "	f=/var/lib/fdw-check/$m-sums"
			print "	[ -f \"$f\" ] || continue"
			print "	hs=$(findmnt -no SOURCE /$m)"
			print "	hsum=bad"
			print "	(cd / && sha256sum --quiet -c \"$f\") >/dev/null 2>&1 && hsum=ok"
			print "	ht=$(lsblk -ndo TYPE \"$hs\" 2>/dev/null)"
			print "	echo \"FDW-$(echo $m | tr a-z A-Z) source=$hs type=$ht sums=$hsum files=$(wc -l <\"$f\")\" >$out"
			print "done"
		} { print }' >"$VM_WORK/fdw-boot-check"
	chmod 0755 "$VM_WORK/fdw-boot-check"
	printf '%s\n' "rm /etc/fstab" "write $VM_WORK/fstab /etc/fstab" \
		"rm /usr/local/sbin/fdw-boot-check" \
		"write $VM_WORK/fdw-boot-check /usr/local/sbin/fdw-boot-check" \
		"write $VM_WORK/home-sums /var/lib/fdw-check/home-sums" |
		debugfs -w -f - "$fs" >/dev/null 2>&1
	e2fsck -fn "$fs" >/dev/null 2>&1 || return 1
	dd if="$fs" of="$img" bs=1M oflag=seek_bytes seek="$roff" conv=notrunc,sparse status=none
	rm -f "$fs"
}

# The line the check unit printed about /home (/data: vm_home_result LOG DATA), or empty.
vm_home_result()
{
	{ tr -d '\r' <"$1" | grep -a "^FDW-${2:-HOME} " || true; } | tail -n1
}

# vm_cut_power_on MARKER: in the background, kill the QEMU of the next vm_run (started with
# FDEWIZ_VM_PIDFILE=$VM_WORK/qemu.pid) as a power cut would, as soon as its log has a line
# starting with MARKER (the guest's "POWERCUT-NOW"). VM_CUTTER: that watcher, to wait for.
vm_cut_power_on()
{
	# The last run's log and pid are not this one's: a second cut in one test found the
	# first's marker at once, killed a QEMU long gone and left the new one running.
	rm -f "$VM_WORK/vm.log" "$VM_WORK/qemu.pid"
	(
		while ! grep -qs "^$1" "$VM_WORK/vm.log" || [ ! -s "$VM_WORK/qemu.pid" ]; do
			sleep 1
		done
		kill -KILL "$(cat "$VM_WORK/qemu.pid")"
	) &
	VM_CUTTER=$!
}

# vm_boot_cut TAG IMG KEY PATTERN TENTHS: boot IMG from its own disk with the passphrase in
# KEY typed, into $VM_WORK/boot-TAG.log, and cut its power (kill -9 of its QEMU) once that
# log shows PATTERN, after a random delay of up to TENTHS tenths of a second; the cut is
# said in $VM_WORK/cut-TAG. Adds one to VM_CUTS when it was cut; a boot not cut is a failure.
VM_CUTS=0
vm_boot_cut()
{
	local tag=$1 img=$2 key=$3 pattern=$4 tenths=$5 log=$VM_WORK/boot-$1.log cutter
	echo "$tag" >"$VM_WORK/booting"
	(
		while ! grep -aqs "$pattern" "$log"; do sleep 0.2; done
		local d=$((RANDOM % (tenths + 1)))
		sleep "$((d / 10)).$((d % 10))"
		[ "$(cat "$VM_WORK/booting")" = "$tag" ] &&
			pkill -KILL -f "file=$img,format=raw,if=virtio" &&
			echo "power cut $((d / 10)).$((d % 10)) s after '$pattern'" >"$VM_WORK/cut-$tag"
	) &
	cutter=$!
	vm_boot_installed "$img" "$log" "$key" 1200
	echo none >"$VM_WORK/booting"
	kill "$cutter" 2>/dev/null || true
	echo "$VM_NAME: TIMING boot-$tag-cut ${VM_BOOT_SECONDS}s in qemu"
	tr -d '\r' <"$log" | grep -a '^fdewiz: ' || true
	if [ -s "$VM_WORK/cut-$tag" ]; then
		echo "$VM_NAME: boot $tag: $(cat "$VM_WORK/cut-$tag")"
		VM_CUTS=$((VM_CUTS + 1))
	else
		vm_fail "boot $tag: the power was not cut at '$pattern'"
		tr -d '\r' <"$log" | tail -n 30
	fi
}

# The restart tests' own (test-vm-system-restart.sh, test-vm-system-restart-btrfs.sh,
# test-vm-system-restart-lvm.sh), on what guest/system-restart-drive.sh prints at each boot.
# VM_RESTART_LVM=1: the root is a logical volume on the PV being encrypted (the boot check
# says root=lvm where it says root=part or root=crypt otherwise).
VM_RESTART_LVM=${VM_RESTART_LVM:-0}
# vm_restart_root PLAIN|CRYPT: the word the boot check says of the root, before or after.
vm_restart_root()
{
	if [ "$VM_RESTART_LVM" = 1 ]; then echo lvm; elif [ "$1" = PLAIN ]; then echo part; else echo crypt; fi
}

# vm_restart_drive ROOT [FILE...]: the installed system's second disk ($VM_WORK/drive.img,
# labelled fdw-drive, VM_BOOT_DISK2), whose drive.sh its check unit runs at each boot:
# guest/system-restart-drive.sh, fdewiz, the passphrase ($VM_WORK/key), the root partition
# ROOT, the phase "arm", and each FILE (a path whose name it keeps, or a word: an empty file
# of that name: "lean", "bench", "dryrun", "sleep", "reboot" or "stepfail").
vm_restart_drive()
{
	local d=$VM_WORK/drive f
	mkdir -p "$d"
	install -m 0755 "$VM_HERE/guest/system-restart-drive.sh" "$d/drive.sh"
	# Stripped, as a distribution ships it: the initramfs the preparation makes carries
	# it, and GRUB reads that through the BIOS at each of the test's boots (its 2.9 MiB of
	# debug information were about 1.1 MiB more to read, compressed, each time).
	install -m 0755 -s "$FDEWIZ" "$d/fdewiz"
	cp "$VM_WORK/key" "$d/key"
	echo "$1" >"$d/root"
	echo arm >"$d/phase"
	shift
	for f in "$@"; do
		if [ -e "$f" ]; then install -m 0755 "$f" "$d/"; else touch "$d/$f"; fi
	done
	vm_drive_image $((128 + $(du -sm "$d" | cut -f1)))
}

# vm_second_kernel_deb HAVE: the path of a Debian kernel package (linux-image-VERSION-amd64)
# of another version than HAVE (the installed images' kernel), for a kernel update during
# a test: the newest the package lists name, fetched once into the installed images'
# cache (FDEWIZ_INSTALLED_CACHE, installed-image.sh), folder kernel2. Empty (and a
# message) when there is none.
vm_second_kernel_deb()
{
	local have=$1 dir=${FDEWIZ_INSTALLED_CACHE:-/var/cache/fdewiz-tests/installed}/kernel2 pkg deb tmp
	mkdir -p "$dir"
	deb=$(find "$dir" -maxdepth 1 -name 'linux-image-*.deb' ! -name "linux-image-${have}_*" | head -n1)
	if [ -z "$deb" ]; then
		pkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64$' | awk '{ print $1 }' |
			grep -vx "linux-image-$have" | sort -V | tail -n1)
		if [ -z "$pkg" ]; then
			echo "$VM_NAME: no kernel package other than $have in the package lists (apt-get update?)" >&2
			return 0
		fi
		tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
		# apt drops privileges to _apt for downloads; let it write here.
		chmod 0777 "$tmp"
		if (cd "$tmp" && apt-get download -qq "$pkg" >&2); then
			mv "$tmp"/*.deb "$dir/"
		fi
		rm -rf "$tmp"
		deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | head -n1)
	fi
	echo "$deb"
}

# vm_drive_image MIB: the folder $VM_WORK/drive (its drive.sh is what the installed
# system's check unit runs first at each boot) made into a disk of MIB MiB labelled
# fdw-drive, $VM_WORK/drive.img, given to the boots as their second disk (VM_BOOT_DISK2).
vm_drive_image()
{
	truncate -s "$1M" "$VM_WORK/drive.img"
	mkfs.ext4 -q -F -L fdw-drive -d "$VM_WORK/drive" "$VM_WORK/drive.img"
	export VM_BOOT_DISK2=$VM_WORK/drive.img
}

# vm_drive_line LOG TAG: the last "FDW-DRIVE TAG..." line of a boot's console log; none
# (and no failure: the check that reads it fails) when the guest never printed it.
vm_drive_line()
{
	tr -d '\r' <"$1" | { grep -a "^FDW-DRIVE $2" || true; } | tail -n1
}

# vm_restart_prepared LOG BENCH: what the first boot's preparation left ('encrypt
# --at-restart', or the wizard's; its console log LOG; BENCH: 0, or 1 with the baseline
# benchmark): it prepared, showed a recovery key, the initramfs carries the step, the
# service is enabled, and the system still started plain with every file good.
vm_restart_prepared()
{
	local log=$1 bench=$2
	vm_check "it was prepared, fdewiz ended with 0 (baseline benchmark: $bench)" \
		grep -q "rc=0 .*baseline=$bench\$" <<<"$(vm_drive_line "$log" 'ARM ')"
	vm_check "a recovery key was shown" \
		grep -q '^FDW-DRIVE RECOVERY-SHOWN 56$' <<<"$(vm_drive_line "$log" RECOVERY-SHOWN)"
	vm_check "the new initramfs carries fdewiz, its script, the stage and the header, resize2fs" \
		grep -q '^FDW-DRIVE INITRD-STEP 5$' <<<"$(vm_drive_line "$log" INITRD-STEP)"
	# Two keyslots of 258,048 bytes and the two metadata copies: the rest of the 16 MiB are
	# zeros (luks2/keyslot_area.c), so the step's initramfs is 16 MiB smaller.
	header=$(vm_drive_line "$log" HEADER-BYTES)
	echo "prepared header and initramfs: ${header#FDW-DRIVE }"
	vm_check "the prepared header is 16 MiB, under 1 MiB of it not zero" \
		awk '$3 == 16777216 && $4 ~ /^nonzero=/ { sub("nonzero=", "", $4); ok = $4 + 0 > 0 &&
			$4 + 0 < 1048576 } END { exit !ok }' <<<"$header"
	vm_check "the service is enabled" \
		grep -q '^FDW-DRIVE SERVICE enabled$' <<<"$(vm_drive_line "$log" 'SERVICE ')"
	vm_check "status says the root is prepared, encrypted at the next restart, the step in the kernel's initramfs" \
		grep -q "^FDW-DRIVE STATUS-PREPARED /dev/[a-z0-9]*  prepared: encrypted at the next restart (its step is in the initramfs of $(vm_prep kernel); .*'fdewiz cancel' undoes" \
		<<<"$(vm_drive_line "$log" STATUS-PREPARED)"
	vm_check "the prepared system still booted plain, all files good" \
		grep -q "^FDW-BOOT-OK sums=ok files=$VM_DATA_FILES root=$(vm_restart_root PLAIN)\$" \
		<<<"$(vm_boot_result "$log")"
}

# vm_restart_lean_arm IMG ROOT PLAN: the first boot of a "lean" restart test, into
# $VM_WORK/boot1.log: plain, its PHASE line saying ROOT ("root=NODE type=TYPE"), /boot on
# /dev/vda2; its own fdewiz prepares the restart, the plan's step at the restart matching
# PLAN (a grep pattern); then vm_restart_prepared, without the baseline benchmark.
vm_restart_lean_arm()
{
	local img=$1 root=$2 plan=$3 log=$VM_WORK/boot1.log
	vm_boot_installed "$img" "$log" "" 1200
	echo "$VM_NAME: TIMING boot-1-prepare ${VM_BOOT_SECONDS}s in qemu"
	tr -d '\r' <"$log" | grep -a '^FDW-DRIVE \(PLAN\|ARM\|BOOT-BEFORE\|INITRD\)' || true
	vm_check "before: $root, plain; /boot a partition of its own" \
		bash -c "grep -q '^FDW-DRIVE PHASE arm $root crypt=none\$' <<<'$(vm_drive_line "$log" PHASE)' &&
			grep -q '^FDW-DRIVE BOOT-BEFORE /dev/vda2 ' <<<'$(vm_drive_line "$log" BOOT-BEFORE)'"
	vm_check "the plan says what the step at the restart does ($plan)" \
		bash -c "tr -d '\r' <'$log' | grep -aq '^FDW-DRIVE \(PLAN\|ARM-OUT\) .*At the next restart, before the system starts: .*$plan'"
	vm_restart_prepared "$log" 0
}

# vm_restart_recovery: the recovery key the preparation showed, as its guest kept it on the
# drive, in $VM_WORK/recovery (to be typed at a prompt).
vm_restart_recovery()
{
	debugfs -R "cat /recovery" "$VM_WORK/drive.img" 2>/dev/null | tr -d '\n' >"$VM_WORK/recovery"
	vm_check "the recovery key shown at the preparation was kept" \
		grep -Eq '^[A-Z0-9]{6}(-[A-Z0-9]{6}){7}$' "$VM_WORK/recovery"
}

# vm_restart_converts IMG KEY NAME BENCH: the boot after the restart's cuts, into
# $VM_WORK/boot2.log: the passphrase typed once, fdewiz's step opens the root (its
# crypttab name NAME), the service converts it while files are written, sets up the boot
# and goes; with BENCH (not 0) the baseline compares with the encrypted root.
vm_restart_converts()
{
	local img=$1 key=$2 name=$3 bench=$4 log=$VM_WORK/boot2.log
	vm_boot_installed "$img" "$log" "$key" 2400
	echo "$VM_NAME: TIMING boot-2-completes ${VM_BOOT_SECONDS}s in qemu"
	tr -d '\r' <"$log" |
		grep -a '^fdewiz: \|^FDW-DRIVE \(PHASE\|SERVICE\|THROUGHPUT\|STALE\|CRYPTTAB\|INITRD\|LEFT\|WORK\|COMPARE\)' || true
	vm_check "the passphrase was asked once, before the root was mounted" [ "$VM_BOOT_PROMPTS" = 1 ]
	vm_check "fdewiz's step opened the root in the initramfs" \
		bash -c "tr -d '\r' <'$log' | grep -aq '^fdewiz: the root is encrypted from here on'"
	vm_check "the system came up with / on dm-crypt (opened under its crypttab name)" \
		grep -Eq " crypt=$name\$" <<<"$(vm_drive_line "$log" 'PHASE convert')"
	vm_check "the service finished the conversion" \
		grep -q 'SERVICE-RESULT success' <<<"$(vm_drive_line "$log" SERVICE-RESULT)"
	vm_check "the person's writes were measured while the service converted" \
		grep -Eq '^FDW-DRIVE THROUGHPUT busy=[0-9.]+MiB/s ' <<<"$(vm_drive_line "$log" THROUGHPUT)"
	vm_check "crypttab names the root volume by UUID" \
		grep -q "^FDW-DRIVE CRYPTTAB $name UUID=" <<<"$(vm_drive_line "$log" CRYPTTAB)"
	vm_check "the initramfs has Debian's cryptroot for it and no step of fdewiz" \
		grep -q 'step=0 cryptroot=1$' <<<"$(vm_drive_line "$log" INITRD-AFTER)"
	[ "$bench" = 0 ] ||
		vm_check "the plain root's baseline (prepared with it) compares with the encrypted root" \
			bash -c "tr -d '\r' <'$log' | grep -a '^FDW-DRIVE COMPARE SEQ1M Q1T1 read ' | grep -Eq '[0-9] MB/s +[0-9.]+ MB/s'"
	vm_check "no stage, hook or service of the restart is left" \
		grep -q '^FDW-DRIVE LEFT 0$' <<<"$(vm_drive_line "$log" LEFT)"
	vm_check "what an interrupted update-initramfs leaves was not taken for an initramfs" \
		grep -q '^FDW-DRIVE STALE-COPIES 0$' <<<"$(vm_drive_line "$log" STALE-COPIES)"
	vm_check "the files checked out on the converting system, with those written meanwhile" \
		vm_boot_ok_grown "$(vm_boot_result "$log")" "$(vm_restart_root CRYPT)"
}

# vm_restart_final IMG KEY NAME: Debian's own boot of the encrypted root, into
# $VM_WORK/boot3.log: cryptroot asks once and takes what KEY holds (the passphrase or the
# recovery key), every file checks out, the volume has its crypttab name NAME, the recovery
# key shown at the preparation opens it.
vm_restart_final()
{
	local img=$1 key=$2 name=$3 log=$VM_WORK/boot3.log res
	vm_boot_installed "$img" "$log" "$key" 1200
	echo "$VM_NAME: TIMING boot-3-encrypted ${VM_BOOT_SECONDS}s in qemu"
	res=$(vm_boot_result "$log")
	echo "$VM_NAME: last boot: $res"
	vm_check "cryptroot asked once, and took $(basename "$key")" [ "$VM_BOOT_PROMPTS" = 1 ]
	vm_check "every old file and every file written during the conversion checks out" \
		vm_boot_ok_grown "$res" "$(vm_restart_root CRYPT)"
	vm_check "the root is opened under its crypttab name" \
		grep -q "^FDW-DRIVE DMNAME $name\$" <<<"$(vm_drive_line "$log" DMNAME)"
	vm_check "the recovery key shown at the preparation opens it" \
		grep -q 'yes$' <<<"$(vm_drive_line "$log" RECOVERY-OPENS)"
}

# vm_restart_fsck IMG ROOT [BOOT]: from a live VM, the conversion complete and the root
# (opened with $VM_WORK/key) checked in full; and BOOT's filesystem when given.
vm_restart_fsck()
{
	unset VM_BOOT_DISK2
	vm_run --timeout 600 --disk "$1" "$VM_HERE/guest/system-restart-fsck.sh" "$VM_WORK" "$2" \
		${3:+"$3"}
	echo "$VM_NAME: TIMING fsck-in-live-vm"
	vm_check "the conversion is complete (no reencryption left in the header)" \
		grep -q '^system-restart: REENCRYPT-LEFT no$' "$VM_LOG"
	vm_check "the encrypted root's filesystem checks clean (e2fsck -f, or btrfs check; on LVM its root volume)" \
		grep -q '^system-restart: FSCK rc=0$' "$VM_LOG"
	[ -z "${3:-}" ] ||
		vm_check "e2fsck -f of the new /boot is clean" \
			grep -q '^system-restart: FSCK-BOOT rc=0$' "$VM_LOG"
}
