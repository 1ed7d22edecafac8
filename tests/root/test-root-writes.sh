#!/bin/bash
# Files root writes, with links planted by another user: `bench --save` into a directory
# others can write, a state directory that is a link or writable by others, `crypttab
# --root` with etc/fstab, etc/crypttab or etc itself an absolute link. Each time: refused
# with a message, or written safely, and what the link points to is unchanged.
. "$(dirname "$0")/../lib/start.sh"
require_cmds cryptsetup sha256sum losetup mkfs.ext4

img_test_init
T=$IMG_TMP
FAST=(--kind io --repeats 1 --runtime 0.3 --io-size 16M)
mkdir -p "$T/target"
victim=$T/victim
printf 'precious contents\n' >"$victim"
victim_sum=$(sha256sum <"$victim")
host_fstab_sum=$(sha256sum </etc/fstab 2>/dev/null || true)
export FDEWIZ_STATE_DIR=$T/state

# 1. bench --save into a world-writable directory with DIR/out.json.tmp and DIR/out.json
#    planted as links to the victim: the result is written, the victim untouched.
shared=$T/shared
mkdir -m 1777 "$shared"
ln -s "$victim" "$shared/out.json.tmp"
ln -s "$victim" "$shared/out.json"
run_cmd "$T/b1" "$FDEWIZ" bench "${FAST[@]}" --save "$shared/out.json" "$T/target"
assert_eq "bench --save with planted links: exit" 0 "$RUN_RC"
[ "$RUN_RC" = 0 ] || cat "$T/b1.err" >&2
assert_eq "bench --save: the victim is unchanged" "$victim_sum" "$(sha256sum <"$victim")"
assert_true "bench --save: out.json is now a regular file" test -f "$shared/out.json" -a \
	! -L "$shared/out.json"
assert_true "bench --save: out.json holds the result" python3 -c \
	"import json,sys; assert json.load(open(sys.argv[1]))['tests']" "$shared/out.json"
assert_eq "bench --save: the planted .tmp link is left alone" "$victim" \
	"$(readlink "$shared/out.json.tmp")"
assert_eq "bench --save: no temporary file left" "" \
	"$(ls -A "$shared" | grep -vxE 'out\.json|out\.json\.tmp' || true)"
assert_eq "bench --save: written with mode 600" 600 "$(stat -c %a "$shared/out.json")"

# 2. A state directory that is a symbolic link: refused, nothing written through it.
mkdir -m 0700 "$T/elsewhere"
ln -s "$T/elsewhere" "$T/state-link"
run_cmd "$T/b2" env FDEWIZ_STATE_DIR="$T/state-link" "$FDEWIZ" bench "${FAST[@]}" \
	"$T/target"
assert_eq "state dir is a link: exit" 1 "$RUN_RC"
assert_contains "state dir is a link: message" "$(cat "$T/b2.err")" \
	"$T/state-link is a symbolic link"
assert_contains "state dir is a link: result not saved" "$(cat "$T/b2.err")" \
	"could not be saved"
assert_eq "state dir is a link: nothing written behind it" "" "$(ls -A "$T/elsewhere")"

# 3. A world-writable state directory: encrypt, bench and status refuse it.
mkdir -m 0777 "$T/state-open"
chmod 0777 "$T/state-open"
img=$T/disk.img
img_ext4_fixture "$img" 200 4
printf 'root writes test passphrase' >"$T/pass"
before=$(sha256sum <"$img")
run_cmd "$T/e3" env FDEWIZ_STATE_DIR="$T/state-open" "$FDEWIZ" encrypt --yes \
	--fast-pbkdf --no-bench --foreground --key-file "$T/pass" "$img:1"
assert_eq "world-writable state dir: encrypt exit" 1 "$RUN_RC"
assert_contains "world-writable state dir: says why" "$(cat "$T/e3.err")" \
	"$T/state-open is owned by uid 0 with mode 0777"
assert_contains "world-writable state dir: nothing changed" "$(cat "$T/e3.err")" \
	"Nothing was changed"
assert_eq "world-writable state dir: image unchanged" "$before" "$(sha256sum <"$img")"
assert_eq "world-writable state dir: nothing written in it" "" "$(ls -A "$T/state-open")"
mkdir -m 0700 "$T/state-open/jobs"
printf '{"id":"planted","address":"/dev/planted"}' >"$T/state-open/jobs/planted.json"
run_cmd "$T/s3" env FDEWIZ_STATE_DIR="$T/state-open" "$FDEWIZ" status
assert_eq "world-writable state dir: status exit" 1 "$RUN_RC"
assert_not_contains "world-writable state dir: planted record not shown" \
	"$(cat "$T/s3.out")" "/dev/planted"
assert_contains "world-writable state dir: status says why" "$(cat "$T/s3.err")" \
	"writable by no one else"

# 4. crypttab --root with absolute links inside the root: never followed to this machine.
luks=$T/luks.img
img_new "$luks" 40
img_mkfs "$luks" 0 luks2
root=$T/root
mkdir -p "$root/etc"
printf '# host fstab stand-in\n/dev/vda1 / ext4 defaults 0 1\n' >"$T/host-fstab"
host_sum=$(sha256sum <"$T/host-fstab")
ln -s "$T/host-fstab" "$root/etc/fstab"
run_cmd "$T/c1" "$FDEWIZ" crypttab --root "$root" "$luks"
assert_eq "etc/fstab is an absolute link: exit" 1 "$RUN_RC"
assert_contains "etc/fstab is an absolute link: message" "$(cat "$T/c1.err")" \
	"$root/etc/fstab is a symbolic link"
assert_contains "etc/fstab is an absolute link: fstab not changed" "$(cat "$T/c1.err")" \
	"fstab was not changed"
assert_eq "etc/fstab link target unchanged" "$host_sum" "$(sha256sum <"$T/host-fstab")"
assert_true "etc/fstab is still the link" test -L "$root/etc/fstab"
assert_eq "no fstab backup holding the link target's text" "" \
	"$(ls -A "$root/etc" | grep '^fstab\.' || true)"

rm -f "$root/etc/fstab" "$root/etc/crypttab"*
ln -s "$victim" "$root/etc/crypttab"
run_cmd "$T/c2" "$FDEWIZ" crypttab --root "$root" "$luks"
assert_eq "etc/crypttab is an absolute link: exit" 1 "$RUN_RC"
assert_contains "etc/crypttab is an absolute link: message" "$(cat "$T/c2.err")" \
	"$root/etc/crypttab is a symbolic link"
assert_eq "etc/crypttab link target unchanged" "$victim_sum" "$(sha256sum <"$victim")"
assert_true "etc/crypttab is still the link" test -L "$root/etc/crypttab"

mkdir -p "$T/other-etc"
root2=$T/root2
mkdir -p "$root2"
ln -s "$T/other-etc" "$root2/etc"
run_cmd "$T/c3" "$FDEWIZ" crypttab --root "$root2" "$luks"
assert_eq "etc is an absolute link: exit" 1 "$RUN_RC"
assert_contains "etc is an absolute link: message" "$(cat "$T/c3.err")" \
	"$root2/etc is a symbolic link"
assert_eq "etc is an absolute link: nothing written behind it" "" "$(ls -A "$T/other-etc")"
assert_eq "this machine's /etc/fstab unchanged" "$host_fstab_sum" \
	"$(sha256sum </etc/fstab 2>/dev/null || true)"

assert_finish
