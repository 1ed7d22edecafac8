#!/bin/bash
# fdewiz VM tests: guest half of test-vm-powercut.sh, the boots after a power cut: look at
# the interrupted conversion, resume it, and (last boot) check the result with the real
# kernel.
#
# Usage: powercut-resume.sh FDEWIZ KEY_FILE SHA256_LIST cut|final [pidcheck]
#   cut       resume and keep going until the host cuts the power again (exit 3 if not)
#   final     resume to the end, then open the volume with cryptsetup, e2fsck it, mount
#             it read-only and check every file against SHA256_LIST
#   pidcheck  also run "status" and "resume" with the pid the dead worker had before the
#             cut (a reboot hands out the same pids again)
# /dev/vda2 is the partition, /dev/vdb the state disk written before the cut.
#
# Results are "POWERCUT-CHECK ok|FAIL what" lines, and "POWERCUT-...-JSON {...}" lines
# for the host to judge.
set -euo pipefail

FDEWIZ=$1
key=$2
sums=$3
phase=$4
pidcheck=${5:-}
state=/var/lib/fdewiz
failed=0

die()
{
	echo "powercut: FAIL: $*"
	exit 1
}

ok()
{
	echo "POWERCUT-CHECK ok $*"
}

bad()
{
	echo "POWERCUT-CHECK FAIL $*"
	failed=$((failed + 1))
}

[ "${FDEWIZ_IN_VM:-}" = 1 ] || die "run me through tests/vm/vm-run.sh, not on the host"
[ -x "$FDEWIZ" ] || die "$FDEWIZ is not executable in the guest"
case "$phase" in cut|final) ;; *) die "phase must be cut or final, not '$phase'" ;; esac
for n in /dev/vda2 /dev/vdb; do
	[ -b "$n" ] || die "$n is not a block device"
done

mkdir -p "$state"
mount /dev/vdb "$state" || die "cannot mount the state disk /dev/vdb on $state"
export FDEWIZ_STATE_DIR=$state

# What the state disk kept from before the cut (for the host's log).
echo "powercut: state disk holds (bytes): $(cd "$state" && find . -type f -printf '%P=%s\n' |
	sort | tr '\n' ' ')"
status_file=$(find "$state/jobs" -name '*.status' 2>/dev/null | head -n1)
old_pid=
if [ -n "$status_file" ]; then
	echo "POWERCUT-STATUS-FILE $(cat "$status_file")"
	old_pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$status_file")
fi

echo "POWERCUT-STATUS-JSON $("$FDEWIZ" status --json /dev/vda2 2>&1)"
"$FDEWIZ" status /dev/vda2 2>&1 | sed 's/^/powercut: status: /'

# run_as_pid PID OUT CMD...: run CMD as process PID (the kernel hands out the number after
# ns_last_pid), output to OUT; the pid it really got in $got.  Not in a $(...): that
# subshell would take a pid itself, perhaps the very one wanted.
run_as_pid()
{
	local pid=$1 out=$2
	shift 2
	rm -f /tmp/ran-as
	echo $((pid - 1)) >/proc/sys/kernel/ns_last_pid
	bash -c 'echo $$ >/tmp/ran-as; exec "$@"' run-as "$@" >"$out" 2>&1 || true
	got=$(cat /tmp/ran-as)
}

# After a reboot the dead worker's pid can belong to anyone, including the fdewiz
# process that is looking: that one must not count as the worker.  The pid is arranged
# with ns_last_pid; if something else holds it in this boot, there is nothing to check.
if [ "$pidcheck" = pidcheck ] && [ -n "$old_pid" ] && [ "$old_pid" -gt 1 ]; then
	run_as_pid "$old_pid" /tmp/status-samepid.json "$FDEWIZ" status --json /dev/vda2
	echo "powercut: status run as pid $got (the worker before the cut was $old_pid)"
	echo "POWERCUT-SAMEPID-STATUS $got $old_pid $(cat /tmp/status-samepid.json)"
	if [ "$got" != "$old_pid" ]; then
		echo "powercut: note: pid $old_pid is taken in this boot, no same-pid check"
	elif grep -q '"state":"running"' /tmp/status-samepid.json; then
		bad "status after the reboot, run as pid $old_pid (the dead worker's), takes itself for the worker and says running"
	else
		ok "status after the reboot, run as pid $old_pid (the dead worker's), does not say running"
	fi
	# Same for resume, with a wrong key so that it cannot change the device: it must get
	# as far as checking the key, not stop at "already running".
	printf 'not the key' >/tmp/wrong.key
	run_as_pid "$old_pid" /tmp/resume-samepid.out \
		"$FDEWIZ" resume --foreground --key-file /tmp/wrong.key /dev/vda2
	echo "powercut: resume with a wrong key run as pid $got:"
	tr '\r' '\n' </tmp/resume-samepid.out | grep -v '^$' | sed 's/^/powercut:   /'
	if [ "$got" != "$old_pid" ]; then
		echo "powercut: note: pid $old_pid is taken in this boot, no same-pid check"
	elif grep -q 'already running' /tmp/resume-samepid.out; then
		bad "resume after the reboot, run as pid $old_pid (the dead worker's), takes itself for the worker and refuses ('already running')"
	elif grep -qi 'passphrase is wrong' /tmp/resume-samepid.out; then
		ok "resume after the reboot, run as pid $old_pid (the dead worker's), is not fooled (checks the key)"
	else
		bad "resume with a wrong key as pid $old_pid: unexpected output"
	fi
fi

# The header backup was written before the device changed, and long before the cut: it
# must be whole, byte for byte as long as the header on the device.
backup=$state/vda2.header
if [ ! -e "$backup" ]; then
	bad "the header backup $backup is gone after the cut"
else
	size=$(stat -c %s "$backup")
	# Two metadata copies and the keyslot area: what a LUKS2 header backup holds.
	want=$(cryptsetup luksDump /dev/vda2 2>/dev/null | awk '
		/^Metadata area:/ { m = $3 } /^Keyslots area:/ { k = $3 }
		END { if (m && k) print 2 * m + k }')
	echo "powercut: header backup: $size bytes; the header on /dev/vda2: ${want:-?} bytes"
	if cryptsetup isLuks --type luks2 "$backup" && [ "$size" = "${want:-x}" ]; then
		ok "the header backup survived the cut: a whole LUKS2 header ($size bytes)"
	else
		bad "the header backup is damaged after the cut: $size of ${want:-?} bytes, not a LUKS2 header to cryptsetup"
	fi
fi

echo "POWERCUT-RESUME-START"
rc=0
{ "$FDEWIZ" resume --foreground --key-file "$key" /dev/vda2 2>&1 1>&3 |
	stdbuf -oL tr '\r' '\n'; } 3>&1 || rc=$?
echo "powercut: fdewiz resume exited $rc after ${SECONDS}s"
if [ "$phase" = cut ]; then
	echo "powercut: the power was not cut during resume"
	echo "POWERCUT-NOT-CUT"
	exit 3
fi
if [ "$rc" = 0 ]; then
	ok "fdewiz resume finished the conversion (exit 0)"
else
	bad "fdewiz resume exited $rc"
fi

# From here on only the kernel and cryptsetup judge.
echo "POWERCUT-STATUS-AFTER-JSON $("$FDEWIZ" status --json /dev/vda2 2>&1)"
dump=$(cryptsetup luksDump /dev/vda2 2>&1) || bad "cryptsetup luksDump /dev/vda2 failed"
grep -v -i -e 'salt:' -e 'digest:' <<<"$dump" | sed 's/^/powercut: luksDump: /' || true
if grep -qi reencrypt <<<"$dump"; then
	bad "luksDump still mentions a reencryption (requirement or keyslot)"
else
	ok "luksDump: LUKS2 without any reencrypt requirement"
fi
if grep -q '^Version:[[:space:]]*2$' <<<"$dump"; then
	ok "luksDump: version 2"
else
	bad "luksDump: not version 2"
fi


# An online conversion leaves its volume open as /dev/mapper/fdewiz-*: close it, so the
# check below opens the volume afresh from the header alone.
for m in /dev/mapper/fdewiz-*; do
	[ -e "$m" ] && cryptsetup close "${m##*/}"
done
if cryptsetup open --key-file "$key" /dev/vda2 pcut; then
	ok "cryptsetup open with the key file"
	if e2fsck -fn /dev/mapper/pcut >/tmp/fsck.log 2>&1; then
		ok "e2fsck -fn of the decrypted filesystem is clean (at ${SECONDS}s)"
	else
		sed 's/^/powercut: e2fsck: /' /tmp/fsck.log
		bad "e2fsck -fn of the decrypted filesystem found problems"
	fi
	mkdir -p /mnt/pcut
	if mount -o ro /dev/mapper/pcut /mnt/pcut; then
		n=$(wc -l <"$sums")
		if (cd /mnt/pcut && sha256sum -c --quiet "$sums") >/tmp/sums.log 2>&1; then
			ok "all $n files have their sha256 from before the encryption (at ${SECONDS}s)"
		else
			head -n 20 /tmp/sums.log | sed 's/^/powercut: sha256sum: /'
			bad "files differ: $(grep -c 'FAILED' /tmp/sums.log || true) of $n"
		fi
		extra=$(cd /mnt/pcut && find . -type f ! -path './lost+found/*' | wc -l)
		if [ "$extra" = "$n" ]; then
			ok "no files appeared or vanished ($extra)"
		else
			bad "$extra files on the volume, $n expected"
		fi
		umount /mnt/pcut
	else
		bad "cannot mount the decrypted filesystem read-only"
	fi
	cryptsetup close pcut || bad "cryptsetup close"
else
	bad "cryptsetup open with the key file failed"
fi
echo "powercut: checks done after ${SECONDS}s"

if [ "$failed" != 0 ]; then
	echo "powercut: $failed check(s) failed"
	exit 1
fi
echo "POWERCUT-OK"
