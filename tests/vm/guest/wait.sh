#!/bin/bash
# fdewiz VM tests: guest script for test-vm-harness.sh; says it is up, then waits forever.
echo "FDEWIZ-WAITING"
exec sleep 3600
