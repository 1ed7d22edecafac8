# Drives a program in a tmux pane for TUI tests (sourced): one private server per NAME.
#
# Usage:
#	. tests/lib/tmux.sh
#	tmux_own t1			# stopped at exit
#	tmux_start t1 80 24 "$FDEWIZ" list disk.img
#	tmux_wait_for t1 "Data" 10
#	tmux_wait_exit t1 10 && [ "$(tmux_exit_status t1)" = 0 ]
#
# The program sees TERM=$TUI_TERM (default tmux-256color, the terminal tmux emulates) and
# the caller's LANG (default C.UTF-8).
#
# The pane stays after the program exits (remain-on-exit), so its last screen can still be
# read. tmux then writes "Pane is dead" on a new bottom line, which scrolls the screen up
# by one: read a dead pane's whole output with tmux_capture NAME -S -.
#
# The exit status is not taken from tmux's pane_dead_status: tmux 3.3a on these machines
# sometimes never reaps the pane's process, so that field stays empty. A small shell
# wrapper in the pane writes the status to a file instead; it catches (not ignores) the
# signals a test sends, so the program still gets them with their default actions. It
# dies of SIGHUP with its pane, so a stopped server leaves no status file behind.

TUI_TERM=${TUI_TERM:-tmux-256color}

tmux_cmd()
{
	local name=$1

	shift
	tmux -L "$name" -f /dev/null "$@"
}

# Where the wrapper leaves the exit status: next to the server's socket.
tmux_status_file()
{
	echo "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$1.status"
}

# tmux_start NAME COLS ROWS CMD...: start a detached session NAME running CMD.
tmux_start()
{
	local name=$1 cols=$2 rows=$3 status

	shift 3
	status=$(tmux_status_file "$name")
	rm -f "$status"
	# remain-on-exit is set before the pane exists: a program that exits at once would
	# otherwise take its pane and last screen with it.
	# shellcheck disable=SC2016 # expanded by the wrapper shell, not here
	tmux_cmd "$name" start-server \; set-option -g remain-on-exit on \; \
		new-session -d -s "$name" -x "$cols" -y "$rows" \
		sh -c 'trap : INT QUIT TERM; "$@"; echo $? >"$0.tmp"; mv "$0.tmp" "$0"' \
		"$status" env TERM="$TUI_TERM" LANG="${LANG:-C.UTF-8}" "$@"
}

# tmux_send NAME KEYS...: tmux key names (Enter, Down, C-c) or literal text.
tmux_send()
{
	local name=$1

	shift
	tmux_cmd "$name" send-keys -t "$name" "$@"
}

# tmux_capture NAME [capture-pane options]: the visible screen as text.
tmux_capture()
{
	local name=$1

	shift
	tmux_cmd "$name" capture-pane -p -t "$name" "$@"
}

# tmux_wait_for NAME TEXT TIMEOUT_S: poll until TEXT is on the screen (lines the terminal
# wrapped are joined): every 0.1 s for 3 s, then every second. Each look runs tmux, grep and
# sleep: in an emulated machine that is tens of milliseconds of its one CPU, and looking
# every 0.1 s while the wizard prepared a restart made that preparation take 160 s instead
# of 86. On timeout print the screen and fail.
tmux_wait_for()
{
	local name=$1 text=$2 waited=0 limit=$(($3 * 10)) step

	while [ "$waited" -lt "$limit" ]; do
		tmux_capture "$name" -J | grep -qF -- "$text" && return 0
		if [ "$waited" -lt 30 ]; then step=1; else step=10; fi
		sleep "$((step / 10)).$((step % 10))"
		waited=$((waited + step))
	done
	echo "tmux_wait_for: '$text' did not appear within $3 s; the screen of $name:" >&2
	tmux_capture "$name" | sed 's/^/    | /' >&2
	return 1
}

# tmux_select NAME REGEX: press Down until the selected line (the one starting with ">")
# matches REGEX, waiting after each press for the selection to move (a slow machine redraws
# late, and a second press would skip past); at most 8 presses. 1 when it never matches.
tmux_select()
{
	local name=$1 re=$2 presses=0 was now

	while :; do
		now=$(tmux_capture "$name" | grep -m1 '^>' || true)
		grep -qE -- "$re" <<<"$now" && return 0
		[ "$presses" -lt 8 ] || return 1
		was=$now
		tmux_send "$name" Down
		presses=$((presses + 1))
		for _ in $(seq 1 100); do
			now=$(tmux_capture "$name" | grep -m1 '^>' || true)
			[ "$now" != "$was" ] && break
			sleep 0.1
		done
		[ "$now" != "$was" ] || return 1	# at the end of the list
	done
}

# tmux_passphrase_twice NAME PASS [recovery-key]: on the wizard's passphrase screen, type
# PASS in both fields and go on to the confirmation ("Type YES"); with recovery-key, the box
# "Also make a recovery key", seen unticked, is ticked first. Fails when a screen or the
# box does not come.
tmux_passphrase_twice()
{
	local rk=${3:-}

	tmux_wait_for "$1" "Choose the passphrase" 10 || return 1
	[ -z "$rk" ] || tmux_wait_for "$1" "[ ] Also make a recovery key" 10 || return 1
	tmux_send "$1" -l "$2"
	tmux_send "$1" Tab
	tmux_send "$1" -l "$2"
	if [ -n "$rk" ]; then
		tmux_send "$1" Tab
		tmux_send "$1" Space
		tmux_wait_for "$1" "[x] Also make a recovery key" 10 || return 1
	fi
	tmux_send "$1" Enter
	tmux_wait_for "$1" "Type YES" 10
}

# tmux_wait_exit NAME TIMEOUT_S: wait until the program has exited and its pane is dead
# (so the screen no longer changes).
tmux_wait_exit()
{
	local name=$1 tries=$(($2 * 10))

	while [ "$tries" -gt 0 ]; do
		[ -n "$(tmux_exit_status "$name")" ] &&
			[ "$(tmux_cmd "$name" display-message -p -t "$name" '#{pane_dead}')" = 1 ] &&
			return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	echo "tmux_wait_exit: the program in $name still runs after $2 s; its screen:" >&2
	tmux_capture "$name" | sed 's/^/    | /' >&2
	return 1
}

# tmux_exit_status NAME: the program's exit status as a shell reports it (128+N when
# signal N killed it); empty while it still runs.
tmux_exit_status()
{
	cat "$(tmux_status_file "$1")" 2>/dev/null || true
}

# tmux_resize NAME COLS ROWS
tmux_resize()
{
	tmux_cmd "$1" resize-window -t "$1" -x "$2" -y "$3"
}

# tmux_size NAME: the pane's size as COLSxROWS.
tmux_size()
{
	tmux_cmd "$1" display-message -p -t "$1" '#{pane_width}x#{pane_height}'
}

# tmux_test_init NAME IMAGE [N]: the start of a tmux test on an image file: its temp folder
# ($IMG_TMP, img_test_init), $img the image ($IMG_TMP/IMAGE), $state its state folder, a
# worker still converting partition N (default 1) of the image paused at exit (it would
# keep the loop device and the image busy), and a tmux server of its own, $srv.
tmux_test_init()
{
	srv=fdewiz-test-$1-$$
	img_test_init
	img=$IMG_TMP/$2
	state=$IMG_TMP/state
	img_worker_stop_at_exit "$state" "$img" "${3:-1}"
	tmux_own "$srv"
}

# tmux_own NAME: the private server NAME is this test's; it is stopped at exit (at_exit,
# assert.sh), before what the test registered earlier (its images) is undone.
tmux_own()
{
	at_exit tmux_stop "$1"
}

# tmux_stop NAME: kill the private server, wait until it no longer answers (so NAME can be
# used again at once), then remove its socket, which tmux leaves behind, and the status
# file. Safe to call twice or from a trap.
tmux_stop()
{
	local sock tries=50

	sock=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$1
	tmux_cmd "$1" kill-server 2>/dev/null || true
	while tmux_cmd "$1" has-session 2>/dev/null && [ "$tries" -gt 0 ]; do
		sleep 0.1
		tries=$((tries - 1))
	done
	[ ! -S "$sock" ] || rm -f "$sock"
	rm -f "$(tmux_status_file "$1")" "$(tmux_status_file "$1").tmp"
}
