#!/bin/bash
# fdewiz VM tests: vm-run.sh reports exit codes, power cuts, timeouts and crashes truthfully.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
vm_init test-vm-harness
guest=$VM_HERE/guest

# Arguments and --env values with spaces and quotes reach the guest; its code comes back.
# shellcheck disable=SC2016
vm_run --timeout 300 --env "FDEWIZ_TEST_VALUE=a b'c" "$guest/args.sh" 42 "two words" \
	'it'\''s $HOME'
vm_check "script's exit code comes back (want 42, got $VM_RC)" [ "$VM_RC" = 42 ]
vm_check "arguments and environment intact" grep -q '^args.sh: arguments and' "$VM_LOG"

# start_waiting LOG [vm-run options]: vm-run in the background; its pid in $vr.
start_waiting()
{
	local log=$1
	shift
	rm -f "$VM_WORK/qemu.pid"
	FDEWIZ_VM_PIDFILE=$VM_WORK/qemu.pid "$VM_HERE/vm-run.sh" "$@" "$guest/wait.sh" \
		>"$log" 2>&1 &
	vr=$!
}

# wait_for WHAT SECONDS COMMAND...: poll until COMMAND succeeds.
wait_for()
{
	local what=$1 n=$2
	shift 2
	while ! "$@"; do
		n=$((n - 1))
		if [ "$n" -le 0 ]; then
			echo "$VM_NAME: gave up waiting for $what" >&2
			return 1
		fi
		sleep 1
	done
}

# A power cut while the guest runs: qemu killed with SIGKILL, vm-run says so with 137.
log=$VM_WORK/cut.log
start_waiting "$log" --timeout 300
rc=0
if wait_for "the guest" 200 grep -q '^FDEWIZ-WAITING' "$log"; then
	kill -KILL "$(cat "$VM_WORK/qemu.pid")"
fi
wait "$vr" || rc=$?
cat "$log"
vm_check "power cut: exit 137 (got $rc)" [ "$rc" = 137 ]
vm_check "power cut: reported as such" grep -q 'killed with SIGKILL' "$log"
vm_check "power cut: pid file removed" [ ! -e "$VM_WORK/qemu.pid" ]

# --keep-going-on-kill turns the same event into success.
log=$VM_WORK/cut2.log
start_waiting "$log" --timeout 300 --keep-going-on-kill
rc=0
wait_for "the pid file" 60 test -s "$VM_WORK/qemu.pid" &&
	kill -KILL "$(cat "$VM_WORK/qemu.pid")"
wait "$vr" || rc=$?
cat "$log"
vm_check "power cut with --keep-going-on-kill: exit 0 (got $rc)" [ "$rc" = 0 ]

# The timeout kills qemu and says so.
vm_run --timeout 3 "$guest/wait.sh"
vm_check "timeout: exit 124 (got $VM_RC)" [ "$VM_RC" = 124 ]
vm_check "timeout: reported as such" grep -q 'timed out after 3s' "$VM_LOG"

# A guest kernel panic is a failure, not a pass.
vm_run --timeout 300 "$guest/panic.sh"
vm_check "guest panic: exit 125 (got $VM_RC)" [ "$VM_RC" = 125 ]
vm_check "guest panic: reported as a missing exit marker" grep -q 'no exit marker' "$VM_LOG"

vm_finish
