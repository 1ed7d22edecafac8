#!/bin/bash
# The Debian package: built with dpkg-buildpackage from the release tarball, installed with
# dpkg, checked (program, man page, completion, schema, translations), then removed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
FDEWIZ_SRCDIR=${FDEWIZ_SRCDIR:-$top}
lib=$FDEWIZ_SRCDIR/tests/lib
. "$lib/assert.sh"
. "$lib/images.sh"

require_root
require_cmds dpkg dpkg-deb dpkg-buildpackage dpkg-source dh autoreconf autopoint msgunfmt man jq tar \
	parted mkfs.ext4 losetup lintian
completion_lib=/usr/share/bash-completion/bash_completion
[ -f "$completion_lib" ] || { echo "FAIL: bash-completion is not installed"; exit 1; }

# This test installs and removes its own build; it must not replace one already there. A
# run killed between the two (SIGKILL, a machine restarted) leaves its own: the marker,
# written just before its install and removed with its purge, tells which, and that one is
# removed here, saying so.
marker=/var/lib/fdewiz-tests/package-test-installed
fdewiz_installed() { dpkg-query -W -f='${Status}' fdewiz 2>/dev/null | grep -q 'ok installed'; }
if fdewiz_installed && [ -f "$marker" ] &&
	[ "$(cat "$marker")" = "$(dpkg-query -W -f='${Version}' fdewiz)" ]; then
	echo "NOTE: removing fdewiz $(cat "$marker"), left installed by a run of this test that" \
		"was stopped before its end"
	dpkg --purge fdewiz >/dev/null ||
		{ echo "FAIL: dpkg --purge of that fdewiz failed; remove it with 'dpkg -r fdewiz'"; exit 1; }
fi
rm -f "$marker"
if fdewiz_installed; then
	echo "SKIP: a package fdewiz is already installed ($(dpkg-query -W -f='${Version}' \
		fdewiz)); this test installs and then removes its own build. Remove it first" \
		"with 'dpkg -r fdewiz'."
	exit 77
fi

# Run from `make check`: the make that started us must not hand its jobserver to ours.
unset MAKEFLAGS MFLAGS MAKELEVEL DESTDIR

img_init
installed=
cleanup()
{
	if [ -n "$installed" ]; then
		dpkg_retry dpkg --purge fdewiz >/dev/null && rm -f "$marker" ||
			echo "could not remove fdewiz" >&2
	fi
	img_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
work=$IMG_TMP

# dpkg_retry CMD...: run a dpkg command, waiting while apt or dpkg elsewhere holds the lock.
dpkg_retry()
{
	local out

	for _ in $(seq 60); do
		if out=$("$@" 2>&1); then
			printf '%s\n' "$out"
			return 0
		fi
		grep -qi 'lock' <<<"$out" || { printf '%s\n' "$out" >&2; return 1; }
		sleep 5
	done
	echo "the dpkg lock was still held after 5 minutes: $*" >&2
	return 1
}

# 1. The release tarball, from a private copy of the source tree (tracked files and new
#    ones that are not ignored, so build outputs of the developer's tree stay out).
mkdir "$work/src" "$work/build" "$work/pkg"
if git -C "$FDEWIZ_SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$FDEWIZ_SRCDIR" && git ls-files -z -co --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -C "$work/src" -xf -
else
	cp -a "$FDEWIZ_SRCDIR/." "$work/src/"
	[ ! -f "$work/src/Makefile" ] || make -C "$work/src" -s distclean >/dev/null
fi
start=$SECONDS
run_quiet sh "$work/src/autogen.sh" || { echo "FAIL: autogen.sh failed"; exit 1; }
(cd "$work/build" && run_quiet ../src/configure --disable-system-tests) ||
	{ echo "FAIL: configure of the copied tree failed"; exit 1; }
run_quiet make -C "$work/build" dist || { echo "FAIL: make dist failed"; exit 1; }
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$work/build/Makefile")
tarball=$work/build/fdewiz-$version.tar.gz
[ -f "$tarball" ] || { echo "FAIL: make dist made no $tarball"; exit 1; }
echo "release tarball: ${tarball##*/}, $(stat -c %s "$tarball") bytes, $((SECONDS - start)) s"

listing=$(tar -tzf "$tarball")
for f in debian/control debian/rules debian/changelog debian/copyright debian/source/format \
	data/fdewiz.8 data/bash-completion/fdewiz data/fdewiz-list.schema.json; do
	assert_true "the tarball holds $f" grep -qx "fdewiz-$version/$f" <<<"$listing"
done
changelog_version=$(cd "$FDEWIZ_SRCDIR" && dpkg-parsechangelog -S Version)
assert_eq "debian/changelog version is the release's" "$version" "$changelog_version"

# 2. dpkg-buildpackage from the unpacked tarball, as a packager would.
tar -C "$work/pkg" -xzf "$tarball"
start=$SECONDS
rc=0
(cd "$work/pkg/fdewiz-$version" && dpkg-buildpackage -us -uc -b -j2) \
	>"$work/build.log" 2>&1 || rc=$?
build_time=$((SECONDS - start))
if [ "$rc" -ne 0 ]; then
	tail -n 40 "$work/build.log" | sed 's/^/    | /' >&2
	echo "FAIL: dpkg-buildpackage exited with $rc after $build_time s (log above)"
	exit 1
fi
arch=$(dpkg --print-architecture)
deb=$work/pkg/fdewiz_${version}_$arch.deb
[ -f "$deb" ] || { echo "FAIL: no $deb after the build"; ls "$work/pkg" >&2; exit 1; }
assert_contains "the build ran the unit tests" "$(cat "$work/build.log")" "PASS: tests/unit/"
echo "package: ${deb##*/}, $(stat -c %s "$deb") bytes," \
	"installed size $(dpkg-deb -f "$deb" Installed-Size) KiB; dpkg-buildpackage took" \
	"$build_time s"

# 3. What the package holds and says about itself.
assert_eq "Package" fdewiz "$(dpkg-deb -f "$deb" Package)"
assert_eq "Version" "$version" "$(dpkg-deb -f "$deb" Version)"
assert_eq "Section" admin "$(dpkg-deb -f "$deb" Section)"
assert_eq "Priority" optional "$(dpkg-deb -f "$deb" Priority)"
depends=$(dpkg-deb -f "$deb" Depends)
for lib_pkg in libcryptsetup libparted libblkid libjson-c libncursesw; do
	assert_contains "Depends (from the shared libraries)" "$depends" "$lib_pkg"
done
assert_contains "Recommends" "$(dpkg-deb -f "$deb" Recommends)" cryptsetup-bin
contents=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's,^\./,/,')
langs=$(sed 's/#.*//' "$FDEWIZ_SRCDIR/po/LINGUAS" | tr -s ' \n' ' ')
assert_true "po/LINGUAS names languages" test -n "${langs// /}"
wanted="/usr/sbin/fdewiz /usr/share/man/man8/fdewiz.8.gz
	/usr/share/bash-completion/completions/fdewiz /usr/share/fdewiz/fdewiz-list.schema.json
	/usr/share/doc/fdewiz/copyright /usr/share/doc/fdewiz/changelog.gz
	/usr/share/doc/fdewiz/README.md.gz /usr/share/doc/fdewiz/manual.md.gz"
for l in $langs; do
	wanted="$wanted /usr/share/locale/$l/LC_MESSAGES/fdewiz.mo"
done
for f in $wanted; do
	assert_true "the package holds $f" grep -qxF "$f" <<<"$contents"
done
stray=$(grep -vE '^/$|^/usr/$|^/usr/(sbin|share)(/|$)' <<<"$contents" || true)
assert_eq "files outside /usr/sbin and /usr/share" "" "$stray"

# Lintian, on the binary package and on the source package made from the same tarball:
# its errors and warnings fail the test. It needs no overrides today; any added later go in
# debian/fdewiz.lintian-overrides or debian/source/lintian-overrides, each with a comment
# saying why Debian's policy allows it.
mkdir "$work/srcpkg"
tar -C "$work/srcpkg" -xzf "$tarball"
(cd "$work/srcpkg" && run_quiet dpkg-source -b "fdewiz-$version") ||
	{ echo "FAIL: dpkg-source -b of the release tarball failed"; exit 1; }
dsc=$work/srcpkg/fdewiz_$version.dsc
for what in "$deb" "$dsc"; do
	rc=0
	lintian --fail-on error,warning --display-info "$what" >"$work/lintian.log" 2>&1 || rc=$?
	lint=$(grep -v '^running with root' "$work/lintian.log" || true)
	[ -z "$lint" ] || printf 'lintian %s:\n%s\n' "${what##*/}" "$lint" | sed 's/^/    | /'
	assert_eq "lintian ${what##*/}: exit status (errors and warnings)" 0 "$rc"
	assert_eq "lintian ${what##*/}: errors and warnings" "" \
		"$(grep -E '^[EW]: ' <<<"$lint" || true)"
done

# 4. Install it for real and use what it installed.
mkdir -p "${marker%/*}"
echo "$changelog_version" >"$marker"
dpkg_retry dpkg -i "$deb" >"$work/install.log" || { echo "FAIL: dpkg -i failed"; exit 1; }
installed=1
assert_contains "dpkg status" "$(dpkg-query -W -f='${Status}' fdewiz)" "install ok installed"
assert_eq "fdewiz --version" "fdewiz $version" "$(/usr/sbin/fdewiz --version)"
assert_eq "fdewiz on the PATH" /usr/sbin/fdewiz "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	command -v fdewiz)"

# The installed program does its work: list an image with an ext4 partition.
img=$work/disk.img
img_new "$img" 128
img_gpt "$img"
img_part "$img" Data 1 127
img_mkfs "$img" 1 ext4 data
run_cmd "$work/list" /usr/sbin/fdewiz list --json "$img"
assert_eq "installed fdewiz list --json exit status" 0 "$RUN_RC"
assert_json "$work/list.out" '.disks[0].partitions[0].fstype' ext4
assert_json "$work/list.out" '.disks[0].partitions[0].verdict.eligible' true

assert_eq "man -w fdewiz" /usr/share/man/man8/fdewiz.8.gz "$(man -w fdewiz)"
warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man --warnings fdewiz 2>&1 >"$work/man.txt")
assert_eq "man --warnings fdewiz" "" "$warn"
assert_contains "man fdewiz" "$(tr -s ' ' <"$work/man.txt")" "fdewiz - encrypt a Linux partition"
assert_true "the installed page is data/fdewiz.8" \
	cmp -s <(zcat /usr/share/man/man8/fdewiz.8.gz) "$FDEWIZ_SRCDIR/data/fdewiz.8"

# bash-completion finds the file by the command's name and loads it on first use.
got=$(bash --norc --noprofile -c '
	source "$1"
	__load_completion fdewiz || exit 1
	complete -p fdewiz
	COMP_WORDS=(fdewiz enc); COMP_CWORD=1
	_fdewiz fdewiz enc fdewiz
	printf "%s\n" "${COMPREPLY[@]}"' bash "$completion_lib" 2>&1 || true)
assert_eq "bash-completion loads the installed completion" \
	"$(printf '%s\n' 'complete -F _fdewiz fdewiz' encrypt)" "$got"

# The installed completion against the installed program, with the completion test.
rc=0
FDEWIZ=/usr/sbin/fdewiz FDEWIZ_COMPLETION=/usr/share/bash-completion/completions/fdewiz \
	bash "$FDEWIZ_SRCDIR/tests/root/test-completion.sh" >"$work/completion.log" 2>&1 || rc=$?
assert_eq "test-completion.sh on the installed files" 0 "$rc"
[ "$rc" -eq 0 ] || sed 's/^/    | /' "$work/completion.log" >&2

# Translations: every language is installed where the program looks for it.
unknown_msgid="%s: unknown command '%s'. Nothing was changed. See '%s --help'.\\n"
english=$(LC_ALL=C.UTF-8 LANGUAGE='' /usr/sbin/fdewiz no-such-command 2>&1 || true)
for l in $langs; do
	mo=/usr/share/locale/$l/LC_MESSAGES/fdewiz.mo
	# (msgunfmt writes nothing for a catalogue that holds only its header)
	assert_true "$mo is a message catalogue" eval 'msgunfmt "$mo" >"$work/$l.po"'
	translated=$(grep -c '^msgstr "[^"]' "$work/$l.po" || true)
	echo "$l: $translated messages translated in the installed catalogue"
	# LANGUAGE is honoured in any locale but C; C.UTF-8 is always there.
	local_text=$(LC_ALL=C.UTF-8 LANGUAGE=$l /usr/sbin/fdewiz no-such-command 2>&1 || true)
	if msggrep -K -F -e "${unknown_msgid%\\n}" "$work/$l.po" 2>/dev/null |
		grep -q '^msgstr "[^"]'; then
		assert_true "fdewiz speaks $l from the installed catalogue" \
			test "$local_text" != "$english"
	else
		echo "note: $l does not translate the unknown-command message yet;" \
			"only the catalogue itself was checked"
	fi
done

# 5. Remove it: nothing of it stays.
dpkg_retry dpkg --purge fdewiz >/dev/null || { echo "FAIL: dpkg --purge failed"; exit 1; }
installed=
rm -f "$marker"
for f in /usr/sbin/fdewiz /usr/share/man/man8/fdewiz.8.gz \
	/usr/share/bash-completion/completions/fdewiz /usr/share/fdewiz; do
	assert_true "$f is gone after dpkg --purge" test ! -e "$f"
done

assert_finish
