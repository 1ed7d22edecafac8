# fdewiz VM tests: helpers for the host side of a VM test (source it, do not run it).
# shellcheck shell=bash disable=SC2034 # VM_* variables are for the sourcing test
#
# A test sources this, calls vm_init NAME, builds its disk images in $VM_WORK, runs the
# guest half with vm_run, checks with vm_check, and ends with vm_finish.

VM_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$VM_HERE/../lib/sums.sh"
VM_PASSED=0
VM_FAILED=0
VM_FAILED_CHECKS=()

# Without root there is no apt-get and no cache under /var/cache: the one reason to
# skip, since CI always runs as root.
vm_init()
{
	VM_NAME=$1
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: $VM_NAME needs root (apt-get, qemu disk images, cache in /var/cache)"
		exit 77
	fi
	# Images live on a real disk: cache=none opens them with O_DIRECT, which tmpfs lacks.
	VM_WORK=$(mktemp -d "${FDEWIZ_VM_TMP:-/var/tmp}/fdewiz-$VM_NAME.XXXXXX")
	trap 'vm_cleanup' EXIT
}

# vm_cleanup [STATUS]: the trap's own; a test with a trap of its own passes the status the
# script exits with (its first word: 'rc=$?; ...; vm_cleanup "$rc"').
vm_cleanup()
{
	local rc=${1:-$?} f
	# A script that stopped before its end (a command failed under "set -e"): the
	# console logs of its boots, the only account of what the guest did.
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -z "${VM_FINISHED:-}" ]; then
		echo "$VM_NAME: stopped early (exit status $rc); the last lines of its console logs:"
		for f in "$VM_WORK"/*.log; do
			[ -f "$f" ] || continue
			echo "===== $(basename "$f") ====="
			tr -d '\r' <"$f" | tail -n 60
		done
	fi
	if [ -n "${FDEWIZ_VM_KEEP:-}" ]; then
		echo "$VM_NAME: kept $VM_WORK"
	else
		rm -rf "$VM_WORK"
	fi
}

# The fdewiz binary the guest runs, in $FDEWIZ: that variable if set, else src/fdewiz
# of this tree. It must exist and must not live under /tmp (which the guest replaces by a
# tmpfs) unless it is inside this tree, which vm-run.sh shares; else the test FAILs.
#
# vm_find_fdewiz [asan]: the binary the guest runs. FDEWIZ_VM_FDEWIZ, when set, names a build
# with UBSan but without ASan (run-all.sh builds one in vm-build/): under emulation ASan's
# start-up alone takes about 2 s per run of fdewiz, 17 times a plain start, and the guest
# scripts run it hundreds of times. The host tiers run the same engine under ASan; a test that
# passes "asan" keeps the ASan build ($FDEWIZ) so that the online paths are covered by it too.
vm_find_fdewiz()
{
	if [ "${1:-}" != asan ] && [ -n "${FDEWIZ_VM_FDEWIZ:-}" ]; then
		FDEWIZ=$FDEWIZ_VM_FDEWIZ
	fi
	FDEWIZ=$(realpath -m "${FDEWIZ:-$VM_HERE/../../src/fdewiz}")
	if [ ! -x "$FDEWIZ" ]; then
		vm_fail "no fdewiz binary at $FDEWIZ: build first or set FDEWIZ"
		vm_finish || exit 1
	fi
	local tree
	tree=$(cd "$VM_HERE/../.." && pwd -P)
	case "$FDEWIZ" in
	"$tree"/*) ;;
	/tmp/*)
		vm_fail "$FDEWIZ is under /tmp, which the guest cannot see; build elsewhere"
		vm_finish || exit 1
		;;
	esac
}

# Install what the test needs on the host (the guest runs on the host's root too).
vm_need_pkgs()
{
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	echo "$VM_NAME: installing ${missing[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}

# parted through libparted runs "udevadm settle", absent here; keep the noise out of logs.
vm_parted()
{
	parted -s "$@" 2> >(grep -v 'udevadm: not found' >&2)
}

# vm_run [vm-run.sh options] SCRIPT [ARGS...]: output to the terminal and $VM_LOG,
# exit status in $VM_RC.
vm_run()
{
	VM_LOG=$VM_WORK/vm.log
	set +e
	"$VM_HERE/vm-run.sh" "$@" 2>&1 | tee "$VM_LOG"
	VM_RC=${PIPESTATUS[0]}
	set -e
}

vm_pass()
{
	echo "PASS: $VM_NAME: $*"
	VM_PASSED=$((VM_PASSED + 1))
}

vm_fail()
{
	echo "FAIL: $VM_NAME: $*"
	VM_FAILED=$((VM_FAILED + 1))
	VM_FAILED_CHECKS+=("$*")
}

# vm_check DESCRIPTION COMMAND...: one PASS or FAIL line.
vm_check()
{
	local what=$1
	shift
	if "$@"; then
		vm_pass "$what"
	else
		vm_fail "$what"
	fi
}

# The closing line that test runners and CI read.
vm_finish()
{
	local what
	VM_FINISHED=1
	# Again at the very end, after any logs printed for the failure: the end is what a CI
	# report keeps of a long output.
	for what in "${VM_FAILED_CHECKS[@]}"; do echo "FAILED: $VM_NAME: $what"; done
	echo "$VM_NAME: $VM_PASSED passed, $VM_FAILED failed"
	[ "$VM_FAILED" = 0 ]
}
