#!/bin/bash
# fdewiz VM tests: guest script for test-vm-harness.sh; crashes the guest kernel on purpose.
echo "panic.sh: crashing the kernel now"
echo c >/proc/sysrq-trigger
sleep 60
