# shellcheck shell=bash
# The start of a root or tmux test (sourced first):
#	. "$(dirname "$0")/../lib/start.sh" [HELPER...]
# bash's strict mode; assert.sh and images.sh, then each HELPER named (jobs: jobs.sh, tmux:
# tmux.sh, ...); root and the fdewiz binary required. $lib is the helpers' folder. The
# tests take no arguments, so a test sourcing it without names sources no more.
set -euo pipefail

lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$lib/assert.sh"
. "$lib/images.sh"
for _helper in "$@"; do
	case $_helper in
	"" | *[!a-z-]*) echo "FAIL: start.sh: no helper named '$_helper'"; exit 1 ;;
	esac
	. "$lib/$_helper.sh"
done
unset _helper

require_root
require_fdewiz
