#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The other partitions of an installed system seen from outside (a live system): its etc/fstab
# names /boot on partition 2 and /home on partition 4 by UUID, and its swap by PARTUUID. Each
# is attributed to that system in list, list --json and the verdict. Its /boot is refused by
# list and encrypt (every byte of the image unchanged). Its /home is converted, and the
# crypttab line goes into THAT system's etc/crypttab (by LUKS UUID), never into the live
# system's (the --root given to --crypttab, or /); its fstab mounts it from the volume; the
# boot step is idempotent: a kill after the tables are written, then resume, adds no second
# line. Its /srv, named by the installer's device name, gets its fstab line pointed at the
# volume too.
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds mkfs.ext4 debugfs jq sha256sum parted python3 cryptsetup e2fsck blkid

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'system partitions test key' >"$key"

. "$(dirname "$0")/../lib/fake-system.sh"
fake_system_image "$IMG_TMP/laptop.img"
before=$(sha256sum <"$img")

# 1. list --json: whose each partition is and what for.
"$FDEWIZ" list --json "$img" >"$IMG_TMP/list.json"
assert_list_schema "$IMG_TMP/list.json"
p() { echo ".disks[0].partitions[] | select(.number == $1)"; }
assert_json "$IMG_TMP/list.json" "$(p 3) | .verdict.reason" ok
assert_json "$IMG_TMP/list.json" "$(p 3) | .belongs_to" null
assert_json "$IMG_TMP/list.json" "$(p 1) | .belongs_to" null
assert_json "$IMG_TMP/list.json" "$(p 2) | .belongs_to.use" boot
assert_json "$IMG_TMP/list.json" "$(p 2) | .belongs_to.mountpoint" /boot
assert_json "$IMG_TMP/list.json" "$(p 2) | .belongs_to.root" "$img:3"
assert_json "$IMG_TMP/list.json" "$(p 2) | .belongs_to.system" "Debian GNU/Linux 12 (bookworm)"
assert_json "$IMG_TMP/list.json" "$(p 2) | .belongs_to.spec" "UUID=$boot_uuid"
assert_json "$IMG_TMP/list.json" "$(p 2) | .verdict.eligible" false
assert_json "$IMG_TMP/list.json" "$(p 2) | .verdict.reason" installed-system-boot
msg=$(jq -r "$(p 2) | .verdict.message" "$IMG_TMP/list.json")
assert_contains "the /boot verdict says whose and what for" "$msg" \
	"/boot of Debian GNU/Linux 12 (bookworm) on $img:3"
assert_contains "the /boot verdict says why" "$msg" "unable to start"
assert_contains "the /boot verdict says what to do" "$msg" \
	"encrypt that system's root ($img:3) instead"
assert_json "$IMG_TMP/list.json" "$(p 4) | .belongs_to.use" data
assert_json "$IMG_TMP/list.json" "$(p 4) | .belongs_to.mountpoint" /home
assert_json "$IMG_TMP/list.json" "$(p 4) | .verdict.eligible" true
msg=$(jq -r "$(p 4) | .verdict.message" "$IMG_TMP/list.json")
assert_contains "the /home verdict says whose" "$msg" \
	"/home of Debian GNU/Linux 12 (bookworm) on $img:3"
assert_contains "the /home verdict says where its boot entry goes" "$msg" "that system's crypttab"

# 2. The table says it too.
table=$("$FDEWIZ" list "$img" 2>&1)
assert_contains "list names the system for /boot" "$table" "/boot of Debian GNU/Linux 12 (bookworm)"
assert_contains "list names the system for /home" "$table" "/home of Debian GNU/Linux 12 (bookworm)"

# 3. encrypt refuses its /boot, with any strategy and as a dry run; nothing changes.
for strategy in auto "detached-header=$IMG_TMP/hdr"; do
	rc=0
	out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
		--strategy "$strategy" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/b.hdr" \
		"$img:2" 2>&1) || rc=$?
	assert_true "encrypt /boot --strategy $strategy refuses (exit $rc)" test "$rc" -ne 0
	assert_contains "encrypt /boot --strategy $strategy says whose" "$out" \
		"/boot of Debian GNU/Linux 12 (bookworm)"
	assert_contains "encrypt /boot --strategy $strategy says what to do" "$out" \
		"encrypt that system's root"
	assert_contains "encrypt /boot --strategy $strategy says nothing changed" "$out" \
		"Nothing was changed"
	assert_true "no header file was written for $strategy" test ! -e "$IMG_TMP/hdr"
	assert_true "no header backup was written for $strategy" test ! -e "$IMG_TMP/b.hdr"
done
rc=0
out=$("$FDEWIZ" encrypt --dry-run --key-file "$key" "$img:2" 2>&1) || rc=$?
assert_true "a dry run of /boot refuses too (exit $rc)" test "$rc" -ne 0
# Erasing them would break that system as surely: its /boot, and its /home (a new
# filesystem has a UUID its fstab does not name).
for n in 2 4; do
	rc=0
	out=$("$FDEWIZ" erase-encrypt --fs none --yes-destroy-data --fast-pbkdf \
		--key-file "$key" "$img:$n" 2>&1 </dev/null) || rc=$?
	assert_true "erase-encrypt of partition $n refuses (exit $rc)" test "$rc" -ne 0
	assert_contains "erase-encrypt of partition $n says whose" "$out" \
		"of Debian GNU/Linux 12 (bookworm) on $img:3"
	assert_contains "erase-encrypt of partition $n says nothing changed" "$out" \
		"Nothing was changed"
done
assert_contains "erase-encrypt of /home says what to do" "$out" "Encrypt it in place instead"
assert_eq "the image is unchanged after the refusals" "$before" "$(sha256sum <"$img")"
assert_true "no loop device is left over the image" test -z "$(losetup -j "$img")"

# 4. Its /home: the plan says whose it is and where its boot entry goes.
plan=$("$FDEWIZ" encrypt --dry-run --key-file "$key" "$img:4" 2>&1)
assert_contains "the plan names the system /home belongs to" "$plan" \
	"/home of Debian GNU/Linux 12 (bookworm) on $img:3"
assert_contains "the plan says its entries go into that system" "$plan" \
	"written in THAT system, not in this one"
assert_contains "the plan names the crypttab line" "$plan" "add 'home_crypt'"
assert_contains "the plan says how its fstab will mount it" "$plan" \
	"its etc/fstab mounts /home from /dev/mapper/home_crypt instead of 'UUID=$home_uuid'"
assert_contains "the plan says that system asks at boot" "$plan" \
	"asks for this partition's passphrase"
assert_not_contains "with no closed LUKS volume beside it, the plan" "$plan" \
	"encrypted and closed"
# --crypttab names this system's tables (a root given, or /): refused for another's partition.
live=$IMG_TMP/live
mkdir -p "$live/etc"
rc=0
out=$("$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" --crypttab --root "$live" "$img:4" 2>&1) || rc=$?
assert_true "--crypttab for another system's /home refuses (exit $rc)" test "$rc" -ne 0
assert_contains "it says whose crypttab is written" "$out" "writes THAT system's crypttab"
assert_contains "it says nothing changed" "$out" "Nothing was changed"
assert_eq "the image is unchanged after that refusal" "$before" "$(sha256sum <"$img")"
assert_true "no crypttab was made in the live root" test ! -e "$live/etc/crypttab"

# 5. Converted from outside, killed once its tables are written (before the step is marked
# done): the conversion is complete, the step left; resume does it again without a second
# line. The live system's own crypttab is never touched.
host_tab=$(sha256sum </etc/crypttab 2>/dev/null || echo none)
part_sum() # N: sha256 of the bytes of partition N
{
	dd if="$img" bs=1M skip=$(($(img_part_offset "$img" "$1") / 1048576)) \
		count=$(($(img_part_size "$img" "$1") / 1048576)) status=none | sha256sum
}
boot_sum=$(part_sum 2)
rc=0
FDEWIZ_TEST_KILL_AT=system-data-written "$FDEWIZ" encrypt --foreground --yes --fast-pbkdf \
	--no-bench --key-file "$key" --work-dir "$IMG_TMP" --header-backup "$IMG_TMP/home.hdr" \
	"$img:4" >"$IMG_TMP/enc.out" 2>&1 || rc=$?
out=$(cat "$IMG_TMP/enc.out")
assert_true "the killed step is reported as left (exit $rc)" test "$rc" -ne 0
assert_contains "it says the crypttab is not written yet" "$out" "is not written yet"
assert_contains "it says how to finish" "$out" "fdewiz resume $img:4"
home_loop=$(img_loop "$img" 4)
luks_uuid=$(cryptsetup luksUUID "$home_loop")
img_unloop "$home_loop"
assert_true "the /home partition is LUKS now" test -n "$luks_uuid"
mnt=$IMG_TMP/mnt
mkdir -p "$mnt"
tab_lines() # the crypttab lines naming the volume in that system's root
{
	local loop n
	loop=$(img_loop "$img" 3)
	mount -o ro "$loop" "$mnt"
	n=$(grep -c "^home_crypt UUID=$luks_uuid none luks$" "$mnt/etc/crypttab" || true)
	cp "$mnt/etc/fstab" "$IMG_TMP/fstab.now"
	ls "$mnt/etc" >"$IMG_TMP/etc.now"
	umount "$mnt"
	img_unloop "$loop"
	echo "$n"
}
assert_eq "after the kill: one crypttab line in that system" 1 "$(tab_lines)"
out=$("$FDEWIZ" status "$img:4" 2>&1 || true)
assert_contains "status says the conversion is complete" "$out" "complete"
assert_contains "status says the step is left and how to finish it" "$out" \
	"could not be written: the step was stopped before it finished"
rc=0
out=$("$FDEWIZ" resume --key-file "$key" "$img:4" 2>&1) || rc=$?
assert_eq "resume finishes the step (exit 0)" 0 "$rc"
assert_contains "resume says that system opens it at boot" "$out" \
	"The system on $img:3 opens it at boot"
assert_contains "resume names the line" "$out" "home_crypt UUID=$luks_uuid none luks"
assert_eq "after resume: still one crypttab line" 1 "$(tab_lines)"
rc=0
out=$("$FDEWIZ" resume --key-file "$key" "$img:4" 2>&1) || rc=$?
assert_true "a second resume has nothing to do (exit $rc)" test "$rc" -ne 0
assert_contains "it says so" "$out" "no unfinished conversion"
assert_eq "after a second resume: still one crypttab line" 1 "$(tab_lines)"
# Its fstab named /home by the filesystem's UUID: it mounts it from /dev/mapper/home_crypt
# now (systemd waits for that as long as the passphrase takes; for a by-uuid device only
# 90 s); every other line is byte for byte the same; the old file is kept.
assert_eq "that system's fstab mounts /home from the volume" \
	"/dev/mapper/home_crypt /home ext4 defaults 0 2" "$(grep ' /home ' "$IMG_TMP/fstab.now")"
assert_eq "every other line of its fstab is unchanged" \
	"$(grep -v ' /home ' "$r/etc/fstab" | sha256sum)" \
	"$(grep -v ' /home ' "$IMG_TMP/fstab.now" | sha256sum)"
assert_eq "its fstab has as many lines as before" "$(wc -l <"$r/etc/fstab")" \
	"$(wc -l <"$IMG_TMP/fstab.now")"
assert_true "the old fstab is kept as a backup" grep -q '^fstab\.fdewiz-.*\.bak$' "$IMG_TMP/etc.now"
assert_eq "the live system's crypttab is untouched" "$host_tab" \
	"$(sha256sum </etc/crypttab 2>/dev/null || echo none)"
assert_true "no crypttab in the live root given before" test ! -e "$live/etc/crypttab"
assert_eq "its /boot partition is unchanged" "$boot_sum" "$(part_sum 2)"

# 6. Its /srv, which its fstab names by the installer's device name (/dev/sda5: partition 5
# of its own disk, whatever this system calls it): that line now reaches the LUKS header,
# so it is pointed at /dev/mapper/srv_crypt, the old fstab kept as a backup; every other
# line stays byte for byte.
assert_json "$IMG_TMP/list.json" "$(p 5) | .belongs_to.mountpoint" /srv
assert_json "$IMG_TMP/list.json" "$(p 5) | .belongs_to.spec" /dev/sda5
"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
	--work-dir "$IMG_TMP" --header-backup "$IMG_TMP/srv.hdr" "$img:5" >"$IMG_TMP/srv.out" 2>&1 ||
	{ cat "$IMG_TMP/srv.out" >&2; assert_fail "encrypting /srv failed"; }
out=$(cat "$IMG_TMP/srv.out")
srv_loop=$(img_loop "$img" 5)
srv_uuid=$(cryptsetup luksUUID "$srv_loop")
img_unloop "$srv_loop"
assert_contains "encrypt says that system opens /srv at boot" "$out" \
	"its etc/crypttab has 'srv_crypt UUID=$srv_uuid none luks'"
assert_contains "encrypt lists that system's fstab as changed" "$out" "$img:3 /etc/fstab ("
loop=$(img_loop "$img" 3)
mount -o ro "$loop" "$mnt"
assert_eq "that system's fstab mounts /srv from the volume" \
	"/dev/mapper/srv_crypt /srv ext4 defaults 0 2" "$(grep ' /srv ' "$mnt/etc/fstab")"
assert_eq "every other fstab line is unchanged" \
	"$(grep -v ' /srv \| /home ' "$r/etc/fstab" | sha256sum)" \
	"$(grep -v ' /srv \| /home ' "$mnt/etc/fstab" | sha256sum)"
backup=$(ls "$mnt"/etc/fstab.fdewiz-*.bak 2>/dev/null | head -1)
assert_true "the first fstab backup is there" test -n "$backup"
assert_eq "the first backup is the fstab as it was installed" "$(sha256sum <"$r/etc/fstab")" \
	"$(sha256sum <"${backup:-/dev/null}")"
assert_eq "a backup for each of the two steps" 2 "$(ls "$mnt"/etc/fstab.fdewiz-*.bak | wc -l)"
assert_eq "its crypttab has both volumes, once each" \
	"home_crypt UUID=$luks_uuid none luks|srv_crypt UUID=$srv_uuid none luks" \
	"$(grep -v '^#' "$mnt/etc/crypttab" | grep . | paste -sd'|')"
umount "$mnt"
rc=0
e2fsck -fn "$loop" >/dev/null 2>&1 || rc=$?
assert_eq "that system's root is fsck clean after its tables were written" 0 "$rc"
img_unloop "$loop"
assert_eq "the live system's crypttab is still untouched" "$host_tab" \
	"$(sha256sum </etc/crypttab 2>/dev/null || echo none)"

# 7. The data: decrypted by the cryptsetup program, fsck clean, every file as it was, the
# filesystem UUID the fstab names.
# check_part N NAME DIR SUBDIR COUNT [UUID]: partition N decrypted by cryptsetup, fsck clean,
# every file of DIR/SUBDIR as it was (COUNT of them), the filesystem UUID (when given) as
# its fstab names it.
check_part()
{
	local n=$1 name=$2 dir=$3 sub=$4 want=$5 uuid=${6:-} loop sums=$IMG_TMP/part$1.sha256

	(cd "$dir" && sha256sum -- "$sub"/*) >"$sums"
	loop=$(img_loop "$img" "$n")
	verify_decrypt --as "$name" --sums "$sums" "$loop"
	[ -z "$uuid" ] || assert_eq "$name: the filesystem keeps the UUID its fstab names" \
		"$uuid" "$(blkid -o value -s UUID "$loop")"
	assert_eq "$name: every file was checked" "$want" "$(wc -l <"$sums")"
	img_unloop "$loop"
}
check_part 4 /home "$h" user/docs 40 "$home_uuid"
check_part 5 /srv "$sv" www 10
assert_true "no loop device is left over the image" test -z "$(losetup -j "$img")"

# A partition no system claims beside a closed LUKS volume (which may be an encrypted root
# that mounts it): the plan says so and how to let fdewiz see inside, before anything.
nb=$IMG_TMP/neighbour.img
img_new "$nb" 200 && img_gpt "$nb"
img_part "$nb" Root 1 65 && img_mkfs "$nb" 1 luks2
img_part "$nb" Home 65 199 && img_mkfs "$nb" 2 ext4
out=$("$FDEWIZ" encrypt --dry-run --key-file "$key" "$nb:2" 2>&1 | tr '\n' ' ' | tr -s ' ') || true
assert_contains "beside a closed LUKS volume, the plan" "$out" \
	"note: $nb:1 on this disk is encrypted and closed"
assert_contains "the plan says what to do" "$out" "open it first (cryptsetup open $nb:1 NAME)"

assert_finish
