#!/bin/bash
# The shrink verdict keeps its promise: ext4 partitions of several sizes filled to several
# levels, with one large file or with thousands of small ones. For each, `list --json`'s
# verdict and the real outcome of `encrypt` must agree: every "yes" converts and verifies
# (cryptsetup decrypts it back, fsck, sha256 of every file), every "no" refuses with the
# image unchanged and a reason naming how much must be freed. Prints the matrix.
#
# MATRIX_SIZES (MiB), MATRIX_PCTS and MATRIX_FILLS choose the cells; `make check` runs the
# default set, tests/bench/shrink-matrix.sh the full one (up to 4 GiB).
. "$(dirname "$0")/../lib/start.sh" jobs
require_cmds jq openssl cryptsetup e2fsck resize2fs sha256sum split

SIZES=${MATRIX_SIZES:-512 1024}
# Kept to a few minutes by default: three levels with one large file and two with small
# files on 512 MiB, and on 1 GiB the two levels around the edge where the old verdict was
# wrong (50 % converts, 60 % with one large file does not). The bench script runs all.
PCTS=${MATRIX_PCTS:-20 60 95}
FILLS=${MATRIX_FILLS:-large small}
PCTS_SMALL=${MATRIX_PCTS_SMALL:-50 80}
PCTS_1024=${MATRIX_PCTS_1024:-50 60}
FILLS_1024=${MATRIX_FILLS_1024:-large}

img_test_init
export FDEWIZ_STATE_DIR=$IMG_TMP/state
key=$IMG_TMP/key
printf 'shrink matrix key' >"$key"
table=$IMG_TMP/table
mib=1048576

# A stream of distinct bytes, fast (no /dev/urandom for gigabytes): AES-CTR of zeros.
# It ends by SIGPIPE when the reader has enough.
stream()
{
	openssl enc -aes-128-ctr -nosalt -pbkdf2 -pass "pass:$1" </dev/zero 2>/dev/null || true
}

# image_sum IMG: the sha256 of a whole image, by OpenSSL (with the CPU's SHA instructions
# where it has them: several times faster than sha256sum on images of up to 1 GiB).
image_sum()
{
	openssl dgst -sha256 -r <"$1"
}

# fill IMG PCT KIND: fill partition 1 to PCT % of its filesystem; record the sums.
fill()
{
	local img=$1 pct=$2 kind=$3 dev mnt=$IMG_TMP/mnt total used avail want

	dev=$(img_loop "$img" 1)
	img_mount "$dev" "$mnt"
	read -r total used avail < <(df -B1 --output=size,used,avail "$mnt" | tail -1)
	want=$((total * pct / 100 - used))
	# Never past what fits: leave 4 MiB so a 95 % cell is full, not failing.
	[ "$want" -le $((avail - 4 * mib)) ] || want=$((avail - 4 * mib))
	mkdir -p "$mnt/data"
	if [ "$kind" = large ]; then
		stream "$img" | head -c "$want" >"$mnt/data/large"
	else
		stream "$img" | head -c "$want" | (cd "$mnt/data" && split -a 5 -b 32k - f)
	fi
	(cd "$mnt" && find data -type f -print0 | sort -z | xargs -0 sha256sum) \
		>"$(img_sums_file "$img" 1)"
	df -B1 --output=used,size "$mnt" | tail -1 | awk '{ printf "%d", $1 * 100 / $2 }' \
		>"$IMG_TMP/used_pct"
	find "$mnt/data" -type f | wc -l >"$IMG_TMP/nfiles"
	img_umount "$mnt"
	img_unloop "$dev"
	rmdir "$mnt"
}

cell()
{
	local size=$1 pct=$2 kind=$3 img=$IMG_TMP/m.img out=$IMG_TMP/out json=$IMG_TMP/list.json
	local eligible strategy reason msg before after rc outcome figure fails

	CASE="${size} MiB ext4, ${pct} %, $kind"
	img_new "$img" $((size + 2))
	img_gpt "$img"
	img_part "$img" Data 1 end
	img_mkfs "$img" 1 ext4 matrix
	fill "$img" "$pct" "$kind"
	before=$(image_sum "$img")
	"$FDEWIZ" list --json "$img" >"$json"
	# Listing measured the minimum size (resize2fs -P): it must not have written a byte.
	assert_eq "$CASE: image unchanged by list" "$before" "$(image_sum "$img")"
	eligible=$(jq -r '.disks[0].partitions[0].verdict.eligible' "$json")
	strategy=$(jq -r '.disks[0].partitions[0].verdict.strategy' "$json")
	reason=$(jq -r '.disks[0].partitions[0].verdict.reason' "$json")
	msg=$(jq -r '.disks[0].partitions[0].verdict.message' "$json")
	rc=0
	"$FDEWIZ" encrypt --foreground --yes --fast-pbkdf --no-bench --key-file "$key" \
		--header-backup "$IMG_TMP/hdr.$size.$pct.$kind" "$img:1" >"$out" 2>&1 || rc=$?
	ASSERT_CHECKS=$((ASSERT_CHECKS + 1))
	figure=""
	if [ "$eligible" = true ]; then
		if [ $rc -ne 0 ]; then
			outcome="FAILED (exit $rc)"
			assert_fail "$CASE: the verdict said yes ($strategy), encrypt failed:" \
				"$(tail -3 "$out")"
		else
			# The cell's own check passed; decrypt, fsck and sha256 are three more.
			fails=$ASSERT_FAILS
			verify_decrypt --as "$CASE" "$img" 1
			outcome="converted, verified"
			[ "$ASSERT_FAILS" -eq "$fails" ] || outcome="NOT VERIFIED"
		fi
	else
		after=$(image_sum "$img")
		figure=$(grep -Eo '(about|at least) [0-9]+ MiB freed' <<<"$msg" || true)
		if [ $rc -eq 0 ]; then
			outcome="CONVERTED despite no"
			assert_fail "$CASE: the verdict said no ($reason), encrypt converted it"
		elif [ "$before" != "$after" ]; then
			outcome="refused, IMAGE CHANGED"
			assert_fail "$CASE: refused but the image changed"
		elif [ "$reason" != full ] || [ -z "$figure" ] ||
		     ! grep -q "$figure" "$out"; then
			outcome="refused without the figure"
			assert_fail "$CASE: reason '$reason', message '$msg'; encrypt said:" \
				"$(tail -2 "$out")"
		else
			outcome="refused, unchanged"
		fi
	fi
	printf '%-6s %-5s %-6s %-6s %-6s %-10s %-22s %s\n' "$size" "$pct" \
		"$(cat "$IMG_TMP/used_pct")" "$kind" "$(cat "$IMG_TMP/nfiles")" \
		"$([ "$eligible" = true ] && echo "yes($strategy)" || echo no)" \
		"$outcome" "$figure" | tee -a "$table"
	img_detach_all "$img"
	rm -f "$img"
}

printf '%-6s %-5s %-6s %-6s %-6s %-10s %-22s %s\n' MiB fill% used% fill files verdict \
	outcome reason >"$table"
cat "$table"
for size in $SIZES; do
	pcts=$PCTS
	[ "$size" != 1024 ] || pcts=$PCTS_1024
	fills=$FILLS
	[ "$size" != 1024 ] || fills=$FILLS_1024
	for kind in $fills; do
		[ "$kind" = large ] || [ "$size" = 1024 ] || pcts=$PCTS_SMALL
		for pct in $pcts; do
			cell "$size" "$pct" "$kind"
		done
	done
done

echo
echo "Shrink verdict matrix:"
cat "$table"
yes=$(grep -c 'converted, verified' "$table" || true)
no=$(grep -c 'refused, unchanged' "$table" || true)
# Both answers must have been exercised, or the matrix proves nothing.
assert_true "matrix has converted cells" test "$yes" -gt 0
assert_true "matrix has refused cells" test "$no" -gt 0
echo "$yes converted and verified, $no refused with the image unchanged"
assert_finish
