#!/bin/bash
# The bash completion of fdewiz offers what `fdewiz --help` says, and devices, images, files.
set -euo pipefail

lib=$(dirname "$0")/../lib
. "$lib/assert.sh"
. "$lib/cli-help.sh"
FDEWIZ_COMPLETION=${FDEWIZ_COMPLETION:-$FDEWIZ_SRCDIR/data/bash-completion/fdewiz}

require_fdewiz
[ -f "$FDEWIZ_COMPLETION" ] || { echo "FAIL: no completion file at $FDEWIZ_COMPLETION"; exit 1; }

tmp=$(mktemp -d /tmp/fdewiz-completion.XXXXXX)
at_exit rm -rf "$tmp"
at_exit_traps
mkdir "$tmp/dir" "$tmp/dir2"
: >"$tmp/disk.img"
: >"$tmp/key.txt"
: >"$tmp/my key"

# complete WORD...: what the completion offers for the last WORD (may be ''), one per line,
# sorted; run in a fresh bash that only sourced the completion file, in $tmp.
complete_words()
{
	(
		cd "$tmp"
		bash --norc --noprofile -c '
			source "$1" || exit 1
			shift
			COMP_WORDS=(fdewiz "$@")
			COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
			COMP_LINE="${COMP_WORDS[*]}"
			COMP_POINT=${#COMP_LINE}
			_fdewiz fdewiz "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
			printf "%s\n" "${COMPREPLY[@]}" | sort' \
			bash "$FDEWIZ_COMPLETION" "$@"
	)
}

# offers WHAT EXPECTED-LIST WORD...: each expected line is among the offers.
offers()
{
	local what=$1 want=$2 got w

	shift 2
	got=$(complete_words "$@")
	for w in $want; do
		assert_true "$what offers '$w'" grep -qxF -- "$w" <<<"$got"
	done
}

# offers_exactly WHAT EXPECTED WORD...: the offers are exactly EXPECTED (newline-separated).
offers_exactly()
{
	local what=$1 want=$2

	shift 2
	assert_eq "$what" "$(sort <<<"$want")" "$(complete_words "$@")"
}

reg=$(bash --norc --noprofile -c 'source "$1"; complete -p fdewiz' bash "$FDEWIZ_COMPLETION")
assert_eq "registered for fdewiz" "complete -F _fdewiz fdewiz" "$reg"

# Commands and options: every one --help prints, and none it does not.
commands=$(help_commands)
assert_true "fdewiz --help lists commands" test -n "$commands"
offers "fdewiz <tab>" "$commands" ''
got=$(complete_words '')
for c in $got; do
	if ! grep -qxF -- "$c" <<<"$commands"; then
		echo "note: the completion offers '$c', which 'fdewiz --help' does not list yet"
	fi
done
offers "fdewiz -<tab>" "$(help_global_options)" -
for cmd in $commands; do
	want=$(help_options "$cmd") || { assert_fail "fdewiz $cmd --help failed"; continue; }
	got=$(complete_words "$cmd" --)
	offers "fdewiz $cmd --<tab>" "$want" "$cmd" --
	for o in $got; do
		[ "$o" = --help ] && continue
		grep -qxF -- "$o" <<<"$want" && continue
		# Not in --help: it must at least be an option fdewiz accepts.
		assert_not_contains "fdewiz $cmd accepts the offered $o (not in its --help)" \
			"$(LC_ALL=C "$FDEWIZ" "$cmd" "$o=x" --help 2>&1 >/dev/null)" unrecognized
	done
done
offers_exactly "fdewiz enc<tab>" encrypt enc
offers "fdewiz -v status --w<tab> (global options skipped)" --watch -v status --w

# Option values.
offers_exactly "--strategy <tab>" "$(printf '%s\n' auto free-tail shrink grow detached-header=)" \
	encrypt --strategy ''
offers_exactly "--strategy=g<tab>" grow encrypt --strategy = g
offers_exactly "--sector-size 4<tab>" 4096 encrypt --sector-size 4
offers_exactly "--kind io,b<tab>" io,build bench --kind io,b
offers_exactly "--fs x<tab>" xfs erase-encrypt --fs x
offers_exactly "recovery-key <tab>" "$(printf '%s\n' add test)" recovery-key ''
offers_exactly "recovery-key --key-file key.txt t<tab>" test recovery-key --key-file key.txt t
offers_exactly "recovery-key add dis<tab>" disk.img recovery-key add dis
offers_exactly "--key-file k<tab>" key.txt encrypt --key-file k
offers_exactly "--key-file my<tab> (a name with a space)" "my key" encrypt --key-file my
offers_exactly "--key-file=k<tab>" key.txt resume --key-file = k
offers_exactly "--header-backup d<tab>" "$(printf '%s\n' dir dir2 disk.img)" \
	encrypt --header-backup d
offers_exactly "--mount d<tab> (directories only)" "$(printf '%s\n' dir dir2)" \
	encrypt --mount d

# DEVICE|IMAGE arguments: block devices from sysfs and image files.
offers_exactly "list dis<tab>" disk.img list dis
offers_exactly "fdewiz dis<tab> (an image for the wizard)" disk.img dis
dev=$(ls /sys/class/block | head -n1)
if [ -n "$dev" ]; then
	offers "encrypt /dev/$dev<tab>" "/dev/$dev" encrypt --dry-run "/dev/$dev"
	offers "status <tab>" "/dev/$dev disk.img" status --json ''
else
	echo "note: this machine has no block devices; device completion checked with files only"
fi
assert_not_contains "status <tab> offers no commands" "$(complete_words status '')" encrypt

assert_finish
