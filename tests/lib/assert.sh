# Assertions for system tests (sourced): each check prints what it expected and found.
#
# Checks do not stop the test: they count failures, so one run shows every wrong field.
# A test ends with assert_finish: the line `NAME: N passed, N failed` (NAME the script's
# name without .sh), and exit 1 if any check failed.

ASSERT_CHECKS=0
ASSERT_FAILS=0

# The binary under test and the source tree: `make check` sets both; a test run by hand
# from a built tree finds them from here.
FDEWIZ_SRCDIR=${FDEWIZ_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FDEWIZ=${FDEWIZ:-$FDEWIZ_SRCDIR/src/fdewiz}

. "$(dirname "${BASH_SOURCE[0]}")/sums.sh"

# A test without the binary is a broken build, not a reason to skip: fail loudly.
require_fdewiz()
{
	[ -x "$FDEWIZ" ] || { echo "FAIL: no fdewiz binary at $FDEWIZ"; exit 1; }
}

# at_exit CMD [ARG...]: run CMD when the test exits, however it exits, after every CMD
# registered later (newest first). The arguments are taken as they are now.
AT_EXIT=()
at_exit()
{
	AT_EXIT+=("$(printf '%q ' "$@")")
}

# The EXIT trap: run what at_exit registered. Never fails, so the test's own status stands.
at_exit_run()
{
	local i

	set +e
	for ((i = ${#AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${AT_EXIT[i]}"
	done
	AT_EXIT=()
}

# at_exit_kill PID [SIGNAL]: at exit, send SIGNAL (default TERM) to background process PID
# and wait for it, if it is still a child of this test: a number the system gave to another
# program since is left alone.
at_exit_kill()
{
	at_exit kill_child "$@"
}

kill_child()
{
	[ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ] || return 0
	kill -"${2:-TERM}" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# Every test's traps: at_exit_run on exit; Ctrl-C, SIGTERM and SIGHUP end the test (130),
# which runs it too.
at_exit_traps()
{
	trap at_exit_run EXIT
	trap 'exit 130' INT TERM HUP
}

# Exit 77 unless root: CI always runs as root, only a hand run can lack it.
require_root()
{
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root (loop devices, mount)"
		exit 77
	fi
}

# A missing tool is a broken test machine, not a reason to skip: fail loudly.
require_cmds()
{
	local c missing=

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
	done
	if [ -n "$missing" ]; then
		echo "FAIL: missing tools:$missing (run tests/install-deps.sh test)" >&2
		exit 1
	fi
}

assert_fail()
{
	ASSERT_FAILS=$((ASSERT_FAILS + 1))
	echo "FAIL: $*" >&2
}

assert_pass()
{
	[ -z "${ASSERT_VERBOSE:-}" ] || echo "ok: $*"
}

# assert_stop MESSAGE: a failed check after which the test cannot go on (what follows
# needs what failed): counted and printed, then the closing line, exit 1.
assert_stop()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	assert_fail "$*"
	assert_finish
}

# assert_reached WHAT: in a test that stops at its first failure (assert_stop), every check
# of a step held: one passed check, printed as "PASS: WHAT".
assert_reached()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	echo "PASS: $*"
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if [ "$2" == "$3" ]; then
		assert_pass "$1 = $3"
	else
		assert_fail "$1: expected '$2', found '$3'"
	fi
}

# assert_json FILE JQ_EXPR EXPECTED: strings compare raw, arrays and objects as compact JSON.
assert_json()
{
	local actual

	if ! actual=$(jq -cr "$2" "$1" 2>&1); then
		ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
		assert_fail "$1: jq '$2' failed: $actual"
		return 0
	fi
	assert_eq "${1##*/} $2" "$3" "$actual"
}

# json_load FILE JQ_EXPR: load the object JQ_EXPR selects into the associative array JSON,
# nested objects flattened ("verdict.reason"), values printed as assert_json prints them.
# One jq run instead of one per field: jq takes tens of milliseconds to start.
declare -gA JSON=()
json_load()
{
	local k v

	JSON=()
	while IFS= read -r -d '' k && IFS= read -r -d '' v; do
		JSON[$k]=$v
	done < <(jq -j 'def flat($pre): to_entries[] | . as $e |
		if ($e.value | type) == "object" then ($e.value | flat($pre + $e.key + "."))
		else ($pre + $e.key, "\u0000",
		      ($e.value | if type == "string" then . else tojson end), "\u0000") end;
		'"$2"' | flat("")' "$1")
}

# assert_field WHAT KEY EXPECTED: a field json_load loaded ("<missing>" when absent).
assert_field()
{
	assert_eq "$1 .$2" "$3" "${JSON[$2]-<missing>}"
}

# assert_near WHAT EXPECTED ACTUAL TOLERANCE: integers within +-TOLERANCE.
assert_near()
{
	local diff

	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if ! [[ "$3" =~ ^-?[0-9]+$ ]]; then
		assert_fail "$1: expected about $2 (+-$4), found '$3' (not a number)"
		return 0
	fi
	diff=$(($3 - $2))
	diff=${diff#-}
	if [ "$diff" -le "$4" ]; then
		assert_pass "$1 = $3 (about $2)"
	else
		assert_fail "$1: expected $2 +-$4, found $3 (off by $diff)"
	fi
}

# assert_true WHAT COMMAND...: the command succeeds.
assert_true()
{
	local what=$1

	shift
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if "$@"; then
		assert_pass "$what"
	else
		assert_fail "$what: '$*' is false"
	fi
}

# assert_jq WHAT FILE EXPR: the jq expression EXPR on the JSON in FILE is true (a number
# compared, say); a jq error is a failure that shows it.
assert_jq()
{
	local v

	v=$(jq -r "$3" "$2" 2>&1) || v="jq error: $v"
	assert_eq "$1" true "$v"
}

# assert_list_schema JSON: a `fdewiz list --json` output in file JSON matches its schema,
# data/fdewiz-list.schema.json (or $FDEWIZ_SCHEMA), checked by check-list-schema.py.
assert_list_schema()
{
	assert_true "$(basename "$1"): list --json matches the schema" \
		python3 "$FDEWIZ_SRCDIR/tests/lib/check-list-schema.py" "$1" \
		"${FDEWIZ_SCHEMA:-$FDEWIZ_SRCDIR/data/fdewiz-list.schema.json}"
}

# assert_contains WHAT HAYSTACK NEEDLE (fixed string)
assert_contains()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if [[ "$2" == *"$3"* ]]; then
		assert_pass "$1 contains '$3'"
	else
		assert_fail "$1: expected it to contain '$3', found:"
		printf '%s\n' "$2" | sed 's/^/    | /' >&2
	fi
}

# assert_not_contains WHAT HAYSTACK NEEDLE (fixed string)
assert_not_contains()
{
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	if [[ "$2" != *"$3"* ]]; then
		assert_pass "$1 does not contain '$3'"
	else
		assert_fail "$1: expected no '$3', found:"
		printf '%s\n' "$2" | sed 's/^/    | /' >&2
	fi
}

# run_cmd PREFIX CMD...: run CMD, keep stdout in PREFIX.out, stderr in PREFIX.err, status in RUN_RC.
run_cmd()
{
	local prefix=$1

	shift
	RUN_RC=0
	# shellcheck disable=SC2034 # read by the caller
	"$@" >"$prefix.out" 2>"$prefix.err" || RUN_RC=$?
}

# run_quiet CMD...: run a setup command, show its output only when it fails.
run_quiet()
{
	local out rc=0

	out=$("$@" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || { echo "command failed ($rc): $*" >&2; printf '%s\n' "$out" >&2; }
	return $rc
}

# The closing line every script test prints, `NAME: N passed, N failed` (the checks counted,
# less those that failed); exit 1 if any check failed.
assert_finish()
{
	local passed=$((ASSERT_CHECKS - ASSERT_FAILS))

	[ "$passed" -ge 0 ] || passed=0
	echo "$(basename "$0" .sh): $passed passed, $ASSERT_FAILS failed"
	[ "$ASSERT_FAILS" -eq 0 ] || exit 1
}
