# Running fdewiz in Russian and Japanese from a build tree (sourced; needs $FDEWIZ,
# $FDEWIZ_SRCDIR and $IMG_TMP). The catalogues are compiled from the source tree's po/*.po;
# the program finds them through FDEWIZ_LOCALEDIR when it reads it, else under its
# LOCALEDIR inside a private mount namespace (an overlay over the nearest existing parent
# directory), so the system itself never changes.

# locale_runner: writes $IMG_TMP/with-locale (CMD... runs CMD where the catalogues are
# found) and prints its path. Fails when neither way is open.
locale_runner()
{
	local mo=$IMG_TMP/locale run=$IMG_TMP/with-locale l localedir parent ov

	for l in ru ja; do
		mkdir -p "$mo/$l/LC_MESSAGES"
		msgfmt -c -o "$mo/$l/LC_MESSAGES/fdewiz.mo" "$FDEWIZ_SRCDIR/po/$l.po" || return 1
	done
	if grep -aq FDEWIZ_LOCALEDIR "$FDEWIZ"; then
		printf '#!/bin/sh\nFDEWIZ_LOCALEDIR=%s\nexport FDEWIZ_LOCALEDIR\nexec "$@"\n' \
			"$mo" >"$run"
	else
		localedir=$(grep -aoE '/[[:alnum:]/._+-]*/share/locale' "$FDEWIZ" | head -1 || true)
		[ -n "$localedir" ] || { echo "no */share/locale path in $FDEWIZ" >&2; return 1; }
		parent=$localedir
		while [ ! -d "$parent" ]; do
			parent=$(dirname "$parent")
		done
		case $parent in
		/ | /usr) echo "LOCALEDIR $localedir: no parent to overlay" >&2; return 1 ;;
		esac
		ov=$IMG_TMP/overlay
		mkdir -p "$ov"
		cat >"$run.ns" <<EOF
#!/bin/sh
set -e
mount -t tmpfs fdewiz-test "$ov"
mkdir "$ov/upper" "$ov/work"
mount -t overlay overlay -o "lowerdir=$parent,upperdir=$ov/upper,workdir=$ov/work" "$parent"
for l in ru ja; do
	mkdir -p "$localedir/\$l/LC_MESSAGES"
	cp "$mo/\$l/LC_MESSAGES/fdewiz.mo" "$localedir/\$l/LC_MESSAGES/fdewiz.mo"
done
exec "\$@"
EOF
		chmod +x "$run.ns"
		printf '#!/bin/sh\nexec unshare -m --propagation private %s "$@"\n' "$run.ns" >"$run"
	fi
	chmod +x "$run"
	echo "$run"
}

# table_widths FILE: the display width (east asian wide and full-width characters count 2)
# of each line of the first table in FILE: from the first line after a blank one to the
# next blank line.
table_widths()
{
	python3 - "$1" <<'EOF'
import sys, unicodedata
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = lines.index("") + 1
for ln in lines[start:]:
    if not ln:
        break
    print(width(ln))
EOF
}
