#!/bin/sh
# Build a demo laptop disk image: GPT with an EFI partition, an ext4 "Legacy" and an ext4 "Data".
#
# Usage: make-demo-disk.sh IMAGE [DATA_MIB]
# The image is a sparse 4 GiB file; "Data" gets DATA_MIB (default 300) of sample files.
# Nothing outside IMAGE is touched: filesystems are made and filled straight into the file,
# without loop devices or mounts. IMAGE.sha256 lists the sample files' checksums so the
# data can be verified after encryption.
set -eu

img=${1:?usage: make-demo-disk.sh IMAGE [DATA_MIB]}
data_mib=${2:-300}
mib=1048576

if [ -e "$img" ]; then
	echo "$img already exists; remove it first to make a new one." >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/var/tmp}/fdewiz-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Layout in MiB: EFI 1-257, Legacy 257-1281, Data 1281-4095 (the GPT backup needs the end).
truncate -s 4096M "$img"
parted -s "$img" mklabel gpt \
	mkpart EFI fat32 1MiB 257MiB set 1 esp on \
	mkpart Legacy ext4 257MiB 1281MiB \
	mkpart Data ext4 1281MiB 4095MiB 2>/dev/null

# Sample content: documents, photos and a source tree of mixed sizes.
mkdir -p "$work/legacy/etc" "$work/data/Documents" "$work/data/Photos" "$work/data/Projects/src"
for i in $(seq 1 40); do
	echo "config line $i" >"$work/legacy/etc/app$i.conf"
done
for i in $(seq 1 200); do
	head -c $((i * 97 + 300)) /dev/urandom | base64 >"$work/data/Documents/note-$i.txt"
done
for i in $(seq 1 400); do
	head -c $((i * 13 + 50)) /dev/urandom | base64 >"$work/data/Projects/src/file$i.c"
done
photo_mib=$((data_mib - 4))
n=0
while [ "$photo_mib" -gt 0 ]; do
	n=$((n + 1))
	size=$((n % 5 + 1))
	[ "$size" -gt "$photo_mib" ] && size=$photo_mib
	head -c $((size * mib)) /dev/urandom >"$work/data/Photos/IMG_$(printf %04d $n).jpg"
	photo_mib=$((photo_mib - size))
done

# mkfs.fat warns that the file is larger than the filesystem: that is the point of --offset.
mkfs.vfat -F 32 -s 1 -n EFI --offset $((1 * mib / 512)) "$img" $((256 * 1024)) 2>&1 |
	grep -v -e "^mkfs.fat" -e "block count mismatch" >&2 || true
mkfs.ext4 -q -F -L Legacy -d "$work/legacy" -E offset=$((257 * mib)) "$img" $((1024 * 1024))k
mkfs.ext4 -q -F -L Data -d "$work/data" -E offset=$((1281 * mib)) "$img" $((2814 * 1024))k

(cd "$work/data" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$img.sha256"
echo "Demo disk: $img ($(du -h "$img" | cut -f1) used on disk; file checksums in $img.sha256)"
