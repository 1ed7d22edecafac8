# fdewiz VM tests: boot an installed-system image from its own disk (source it after lib.sh).
# shellcheck shell=bash disable=SC2034 # VM_BOOT_* variables are for the sourcing test
#
# vm_boot_installed IMG LOG [KEYFILE] [TIMEOUT]: QEMU with SeaBIOS boots IMG (GRUB in its
# MBR), the serial console goes to LOG. When the initramfs asks for a passphrase on that
# console ("Please unlock disk ..."), the contents of KEYFILE are typed there, through a
# FIFO on QEMU's stdin (never an argument). Returns when the system reports FDW-BOOT-OK or
# FDW-BOOT-FAIL and powers off, or after TIMEOUT seconds (default 900; qemu is killed).
# Sets VM_BOOT_SECONDS and VM_BOOT_PROMPTS (how many prompts were answered).
vm_boot_installed()
{
	local img=$1 log=$2 keyfile=${3:-} timeout=${4:-900}
	local fifo qpid start answered=0 prompts
	fifo=$(mktemp -u "$VM_WORK/serial-in.XXXXXX")
	mkfifo -m 0600 "$fifo"
	: >"$log"
	start=$(date +%s)
	# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
	local accel
	read -r -a accel < <("$VM_HERE/vm-accel.sh")
	qemu-system-x86_64 "${accel[@]}" -smp 2 -m 1024 -no-reboot \
		-nodefaults -no-user-config -display none \
		-drive "file=$img,format=raw,if=virtio,cache=none" \
		-chardev "stdio,id=con,signal=off,logfile=$log" -serial chardev:con \
		-device virtio-rng-pci <"$fifo" >/dev/null 2>&1 &
	qpid=$!
	# Held open for writing so that QEMU never sees the end of its input.
	exec {VM_BOOT_FD}>"$fifo"
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
			echo "$VM_NAME: boot timed out after ${timeout}s; qemu killed" >&2
			kill -KILL "$qpid" 2>/dev/null
			break
		fi
		prompts=$(grep -ac 'Please unlock disk' "$log" || true)
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
	VM_BOOT_SECONDS=$(($(date +%s) - start))
	VM_BOOT_PROMPTS=$answered
}

# The line the image's check unit printed: "FDW-BOOT-OK sums=ok files=3000 root=crypt".
# Empty when it printed neither (a boot that timed out): the test's checks then fail and
# say so, instead of pipefail ending the test before them.
vm_boot_result()
{
	{ tr -d '\r' <"$1" | grep -a '^FDW-BOOT-\(OK\|FAIL\)' || true; } | tail -n1
}
