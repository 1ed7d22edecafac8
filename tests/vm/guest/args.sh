#!/bin/bash
# fdewiz VM tests: guest script for test-vm-harness.sh; checks argv and env, exits with $1.
set -euo pipefail

[ "${FDEWIZ_IN_VM:-}" = 1 ] || { echo "args.sh: FDEWIZ_IN_VM is not 1"; exit 90; }
[ $# = 3 ] || { echo "args.sh: want 3 arguments, got $#: $*"; exit 91; }
[ "$2" = "two words" ] || { echo "args.sh: argument 2 is '$2'"; exit 92; }
# shellcheck disable=SC2016
[ "$3" = 'it'\''s $HOME' ] || { echo "args.sh: argument 3 is '$3'"; exit 93; }
[ "${FDEWIZ_TEST_VALUE:-}" = "a b'c" ] ||
	{ echo "args.sh: FDEWIZ_TEST_VALUE is '${FDEWIZ_TEST_VALUE:-}'"; exit 94; }
echo "args.sh: arguments and environment arrived intact; exiting $1"
exit "$1"
