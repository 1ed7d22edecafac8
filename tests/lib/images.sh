# Builds test disk images (sourced): partition tables, filesystems, data, loop devices.
#
# Usage:
#	. tests/lib/images.sh
#	img_test_init			# temp dir in $IMG_TMP, undone at exit
#	img_new "$IMG_TMP/disk.img" 512 && img_gpt "$IMG_TMP/disk.img"
#	img_part "$IMG_TMP/disk.img" Root 1 257 && img_mkfs "$IMG_TMP/disk.img" 1 ext4 root
#
# Partition number 0 means the whole file (a filesystem without a partition table).
# Every loop device, mount and swap made here is recorded in $IMG_TMP/cleanup (a file,
# so that helpers run in $(...) subshells register too) and undone by img_cleanup.

IMG_TMP=
# Cheap LUKS2 key derivation: the tests are about layout, not key strength.
IMG_LUKS_PBKDF=(--pbkdf pbkdf2 --pbkdf-force-iterations 1000)

# img_test_init: the start of a test on images (after require_root): its temp dir in
# $IMG_TMP, undone at exit with everything registered in it (at_exit_traps, assert.sh).
# Whatever the test registers with at_exit later is undone before.
img_test_init()
{
	img_init
	at_exit img_cleanup
	at_exit_traps
}

# img_worker_stop_at_exit STATE PATH [N]: at exit, pause a worker converting partition N
# (default 1) of PATH, recorded in state folder STATE, and detach the loop devices it leaves
# over PATH. N 0 means PATH itself (a filesystem image, or a loop device the test made).
img_worker_stop_at_exit()
{
	at_exit img_worker_stop "$@"
}

img_worker_stop()
{
	local target=$2

	[ -e "$2" ] || return 0
	[ "${3:-1}" = 0 ] || target=$2:${3:-1}
	FDEWIZ_STATE_DIR=$1 "$FDEWIZ" pause "$target" >/dev/null 2>&1 || true
	img_detach_all "$2"
}

# Make the temp dir under /var/tmp: /tmp may be a small tmpfs, images need a real disk.
img_init()
{
	IMG_TMP=$(mktemp -d "${FDEWIZ_TEST_TMP:-/var/tmp}/fdewiz-test.XXXXXX")
	: >"$IMG_TMP/cleanup"
}

img_register()
{
	echo "$1 $2" >>"$IMG_TMP/cleanup"
}

img_unregister()
{
	local rest

	rest=$(grep -vxF -- "$1 $2" "$IMG_TMP/cleanup" || true)
	printf '%s\n' "$rest" | sed '/^$/d' >"$IMG_TMP/cleanup"
}

# Is loop device $1 still backed by a file of ours? Guards against detaching a loop
# device that was freed and then taken by someone else.
img_loop_is_ours()
{
	local back

	back=$(losetup -n -O BACK-FILE "$1" 2>/dev/null) || return 1
	[[ "$back" == "$IMG_TMP"/* ]]
}

# parted without the "udevadm: not found" noise of hosts without udev; other errors show.
img_parted()
{
	local err=$IMG_TMP/parted.err rc=0

	parted -s "$@" 2>"$err" || rc=$?
	grep -v 'udevadm' "$err" >&2 || true
	return $rc
}

# img_new PATH SIZE_MIB: a sparse file of zeros.
img_new()
{
	rm -f "$1"
	truncate -s "${2}M" "$1"
}

img_gpt()
{
	img_parted "$1" mklabel gpt
}

img_msdos()
{
	img_parted "$1" mklabel msdos
}

# img_table PATH: the partition table type as parted names it (gpt, msdos, loop, ...).
img_table()
{
	parted -m -s "$1" print 2>/dev/null | awk -F: 'NR == 2 { print $6 }'
}

# Last sector of the last free region, as parted sees it (before GPT's backup table).
img_last_free_sector()
{
	parted -m -s "$1" unit s print free 2>/dev/null |
		awk -F: '$5 ~ /^free/ { end = $3 } END { sub(/s$/, "", end); print end }'
}

# img_part PATH NAME START_MIB END_MIB: on GPT NAME is the partition name; on msdos it
# is the partition type (primary, extended or logical). END_MIB "end" means the last
# usable sector, so nothing is left free after the partition.
img_part()
{
	local end=$4

	if [ "$end" = end ]; then
		end=$(img_last_free_sector "$1")s
	else
		end=${end}MiB
	fi
	img_parted -a none "$1" unit MiB mkpart "$2" "${3}MiB" "$end"
}

# img_flag PATH N FLAG: turn on a parted flag (esp, boot, lvm, raid, ...).
img_flag()
{
	img_parted "$1" set "$2" "$3" on
}

# One field of partition N from parted's machine output, in bytes without the unit.
img_part_field()
{
	parted -m -s "$1" unit B print 2>/dev/null |
		awk -F: -v n="$2" -v f="$3" '$1 == n { sub(/B$/, "", $f); print $f; found = 1 }
			END { exit !found }'
}

# img_part_offset PATH N: bytes from the start of the image (0 for N = 0).
img_part_offset()
{
	if [ "$2" = 0 ]; then
		echo 0
	else
		img_part_field "$1" "$2" 2
	fi
}

# img_part_size PATH N: bytes (the whole file for N = 0).
img_part_size()
{
	if [ "$2" = 0 ]; then
		stat -c %s "$1"
	else
		img_part_field "$1" "$2" 4
	fi
}

# img_loop PATH N: attach a loop device covering partition N, print its name.
img_loop()
{
	local off size dev

	off=$(img_part_offset "$1" "$2")
	size=$(img_part_size "$1" "$2")
	dev=$(losetup --find --show --offset "$off" --sizelimit "$size" "$1")
	img_register loop "$dev"
	echo "$dev"
}

# img_unloop DEV: detach a loop device made by img_loop, and wait until it is detached:
# while anyone still has it open, the kernel only marks it for detaching on last close,
# and meanwhile it still holds the image (fdewiz would rightly say "has-holders").
img_unloop()
{
	local tries=100

	# Already gone (someone else detached it) counts as done; any other failure does not.
	losetup -d "$1" 2>/dev/null || ! img_loop_is_ours "$1" || losetup -d "$1"
	while img_loop_is_ours "$1" && [ "$tries" -gt 0 ]; do
		sleep 0.05
		tries=$((tries - 1))
	done
	img_loop_is_ours "$1" && echo "img_unloop: $1 is still attached after 5 s" >&2
	img_unregister loop "$1"
}

# img_on_loop IMAGE N CMD [ARG...]: CMD ARG... LOOP, with LOOP a loop device over partition
# N of IMAGE made for it and detached after; CMD's status.
img_on_loop()
{
	local l rc=0 image=$1 n=$2

	shift 2
	l=$(img_loop "$image" "$n")
	"$@" "$l" || rc=$?
	img_unloop "$l"
	return $rc
}

# img_mount DEV DIR [OPTIONS]: mount a loop device (made by img_loop) on DIR, made if needed.
# A mount of a loop device just attached can lose a race with udev's probe of it while the
# host is loaded; a failure says what the kernel saw and is tried again once udev settled.
img_mount()
{
	local try
	mkdir -p "$2"
	for try in 1 2 3; do
		mount ${3:+-o "$3"} "$1" "$2" && break
		img_diagnose "mount $1 on $2 failed (try $try)" "$1" "$2"
		[ "$try" -lt 3 ] || return 32
		udevadm settle 2>/dev/null || true
		sleep 1
	done
	img_register mount "$2"
}

img_umount()
{
	local try
	for try in 1 2 3; do
		umount "$1" && break
		img_diagnose "umount $1 failed (try $try)" "" "$1"
		[ "$try" -lt 3 ] || return 32
		udevadm settle 2>/dev/null || true
		sleep 1
	done
	img_unregister mount "$1"
}

# img_diagnose WHAT [DEV] [DIR]: what the kernel and the system saw, on stderr (the log).
img_diagnose()
{
	{
		echo "images.sh: $1"
		[ -z "$2" ] || { losetup -l "$2"; blkid -p "$2"; }
		[ -z "$3" ] || { findmnt "$3"; fuser -vm "$3"; }
		dmesg 2>/dev/null | tail -5
	} >&2 2>&1 || true
}

# img_swapon DEV: activate swap on a loop device; img_cleanup turns it off.
img_swapon()
{
	swapon "$1"
	img_register swap "$1"
}

# The key file every LUKS helper uses; made on first use.
img_keyfile()
{
	local key=$IMG_TMP/luks.key

	[ -s "$key" ] || head -c 64 /dev/urandom >"$key"
	echo "$key"
}

# img_mkfs PATH N TYPE [LABEL]: TYPE is ext4, xfs, btrfs, vfat, swap or luks2.
img_mkfs()
{
	local dev rc=0

	dev=$(img_loop "$1" "$2")
	img_mkfs_dev "$dev" "$3" "${4:-}" || rc=$?
	img_unloop "$dev"
	return $rc
}

img_mkfs_dev()
{
	local dev=$1 type=$2 label=$3

	case $type in
	ext4)
		# 4 KiB blocks even on small images: 1 KiB blocks would forbid 4 KiB LUKS sectors.
		mkfs.ext4 -q -F -b 4096 ${label:+-L "$label"} "$dev"
		;;
	xfs)
		mkfs.xfs -q -f ${label:+-L "$label"} "$dev"
		;;
	btrfs)
		mkfs.btrfs -q -f ${label:+-L "$label"} "$dev" >/dev/null
		;;
	vfat)
		mkfs.vfat ${label:+-n "$label"} "$dev" >/dev/null
		;;
	swap)
		mkswap ${label:+-L "$label"} "$dev" >/dev/null
		;;
	luks2)
		cryptsetup luksFormat --type luks2 --batch-mode --key-file "$(img_keyfile)" \
			"${IMG_LUKS_PBKDF[@]}" ${label:+--label "$label"} "$dev"
		;;
	*)
		echo "img_mkfs: unknown type '$type'" >&2
		return 1
		;;
	esac
}

# Where img_fill keeps the sums of partition N of PATH.
img_sums_file()
{
	echo "$IMG_TMP/$(basename "$1").p$2.sha256"
}

# img_fill PATH N MB: mount partition N and write MB MiB of random files of mixed sizes
# (4 KiB to 8 MiB), recording their sha256 sums for img_verify.
img_fill()
{
	local dev mnt=$IMG_TMP/fill.$$ left=$(($3 * 1024)) i=0 kib
	local sizes=(4 60 1024 8192 300 2048 16 4096)

	dev=$(img_loop "$1" "$2")
	img_mount "$dev" "$mnt"
	mkdir -p "$mnt/data"
	while [ "$left" -gt 0 ]; do
		kib=${sizes[i % ${#sizes[@]}]}
		[ "$kib" -le "$left" ] || kib=$left
		head -c $((kib * 1024)) /dev/urandom >"$mnt/data/f$i"
		left=$((left - kib))
		i=$((i + 1))
	done
	(cd "$mnt" && sha256sum data/*) >"$(img_sums_file "$1" "$2")"
	img_umount "$mnt"
	img_unloop "$dev"
	rmdir "$mnt"
}

# img_ext4_fixture PATH SIZE_MIB FILL_MIB [LABEL] [END_MIB]: the disk most tests convert: a
# GPT image of SIZE_MIB MiB, one partition named Data from 1 MiB to END_MIB (default
# SIZE_MIB - 1; "end" for the last usable sector), ext4 labelled LABEL (default Data),
# holding FILL_MIB MiB of random files whose sums img_verify checks (partition 1).
img_ext4_fixture()
{
	img_new "$1" "$2"
	img_gpt "$1"
	img_part "$1" Data 1 "${5:-$(($2 - 1))}"
	img_mkfs "$1" 1 ext4 "${4:-Data}"
	img_fill "$1" 1 "$3"
}

# img_verify PATH N: mount partition N read-only and check the sums img_fill recorded.
img_verify()
{
	local dev mnt=$IMG_TMP/verify.$$ rc=0

	dev=$(img_loop "$1" "$2")
	img_mount "$dev" "$mnt" ro
	(cd "$mnt" && sha256sum --quiet -c "$(img_sums_file "$1" "$2")") || rc=$?
	img_umount "$mnt"
	img_unloop "$dev"
	rmdir "$mnt"
	return $rc
}

# Detach every loop device over FILE (a killed run or worker may have left one).
img_detach_all()
{
	local l
	for l in $(losetup -j "$1" -O NAME -n 2>/dev/null); do
		losetup -d "$l" 2>/dev/null || true
	done
}

# Trap handler: undo what was registered, newest first, then remove the temp dir.
# Never fails, so the test's own exit status stands.
img_cleanup()
{
	local kind what

	[ -n "$IMG_TMP" ] && [ -d "$IMG_TMP" ] || return 0
	set +e
	tac "$IMG_TMP/cleanup" 2>/dev/null | while read -r kind what; do
		case $kind in
		mount)
			mountpoint -q "$what" && umount "$what"
			;;
		swap)
			grep -q "^$what " /proc/swaps && swapoff "$what"
			;;
		loop)
			img_loop_is_ours "$what" && losetup -d "$what"
			;;
		esac
	done
	# Never into a filesystem that refused to unmount.
	rm -rf --one-file-system "$IMG_TMP"
	IMG_TMP=
}
