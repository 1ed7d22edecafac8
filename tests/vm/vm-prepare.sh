#!/bin/bash
# fdewiz VM tests: fetch a Debian kernel (unpacked, never installed) and build the initramfs.
#
# Usage: vm-prepare.sh [--quiet]
# Prints "kernel=PATH" and "initrd=PATH" on stdout; progress goes to stderr.
#
# Everything lands in ${FDEWIZ_VM_CACHE:-/var/cache/fdewiz-tests/vm}/<kernel version>/.
# The kernel is fetched once per version; the initramfs is rebuilt only when this
# script, vm-init.sh or busybox change (a stamp records their checksums).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${FDEWIZ_VM_CACHE:-/var/cache/fdewiz-tests/vm}
quiet=0
[ "${1:-}" = --quiet ] && quiet=1

# Without these the guest cannot reach its root or do what the tests are for.
essential_mods="9pnet 9p 9pnet_virtio virtio_ring virtio virtio_pci virtio_blk qemu_fw_cfg
	dm-mod dm-crypt overlay ext4"
# Loaded when the kernel has them; tests that need one check for it themselves.
optional_mods="netfs fscache virtio_pci_modern_dev virtio_pci_legacy_dev virtio_rng
	ecb xts cbc cryptd crypto_simd aesni-intel af_alg algif_skcipher algif_hash
	adiantum chacha_generic chacha-x86_64 nhpoly1305 nhpoly1305-sse2 nhpoly1305-avx2
	loop xfs btrfs vfat nls_cp437 nls_iso8859-1 nls_utf8 nls_ascii
	dm-flakey dm-delay dm-zero"

say()
{
	[ "$quiet" = 1 ] || echo "vm-prepare: $*" >&2
}

die()
{
	echo "vm-prepare: error: $*" >&2
	exit 1
}

apt_updated=0
apt_update()
{
	[ "$apt_updated" = 1 ] && return 0
	say "apt-get update"
	apt-get update -qq >&2 || die "apt-get update failed"
	apt_updated=1
}

# Install host packages that are missing; a fresh Debian 12 machine has none of them.
need_pkgs()
{
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages ${missing[*]} and not root to install them"
	apt_update
	say "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# The versioned image package that the linux-image-amd64 metapackage points at.
resolve_kernel_pkg()
{
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

# busybox-static, not busybox: the initramfs has no shared libraries.
need_pkgs qemu-system-x86 busybox-static kmod gzip util-linux

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

kpkg=${FDEWIZ_VM_KERNEL_PKG:-}
# apt-cache takes over a second here; remember its answer until the lists change.
lists_key=$(stat -c %Y /var/lib/apt/lists 2>/dev/null || echo none)
if [ -z "$kpkg" ] && [ -f "$cache/resolved" ]; then
	read -r key pkg <"$cache/resolved" || true
	[ "${key:-}" = "$lists_key" ] && kpkg=${pkg:-}
fi
if [ -z "$kpkg" ]; then
	kpkg=$(resolve_kernel_pkg)
	[ -n "$kpkg" ] && echo "$lists_key $kpkg" >"$cache/resolved"
	# No package lists: use what is cached rather than go online for nothing.
	if [ -z "$kpkg" ] && [ -f "$cache/current/kernel.ready" ]; then
		kpkg=linux-image-$(readlink "$cache/current")
	fi
	if [ -z "$kpkg" ]; then
		apt_update
		kpkg=$(resolve_kernel_pkg)
		[ -n "$kpkg" ] && echo "$(stat -c %Y /var/lib/apt/lists) $kpkg" >"$cache/resolved"
	fi
	[ -n "$kpkg" ] || die "cannot resolve the package behind linux-image-amd64"
fi
kver=${kpkg#linux-image-}
kdir=$cache/$kver

if [ ! -f "$kdir/kernel.ready" ]; then
	say "fetching $kpkg into $kdir"
	rm -rf "$kdir"
	tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# apt drops privileges to _apt for downloads; let it write here.
	chmod 0777 "$tmp"
	if ! (cd "$tmp" && apt-get download -qq "$kpkg" >&2); then
		# Stale lists name a version the mirror no longer has.
		apt_update
		(cd "$tmp" && apt-get download -qq "$kpkg" >&2) || die "apt-get download $kpkg failed"
	fi
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb -x "$deb" "$tmp/root"
	[ -d "$tmp/root/lib/modules/$kver" ] || die "$deb has no lib/modules/$kver"
	depmod -b "$tmp/root" "$kver"
	dpkg-deb -f "$deb" Version >"$tmp/root/pkg-version"
	mkdir -p "$kdir"
	mv "$tmp/root" "$kdir/root"
	cp "$kdir/root/boot/vmlinuz-$kver" "$kdir/vmlinuz"
	rm -rf "$tmp"
	trap - EXIT
	touch "$kdir/kernel.ready"
fi

stamp=$(cat "$here/vm-prepare.sh" "$here/vm-init.sh" /bin/busybox | sha256sum | cut -d' ' -f1)
if [ ! -f "$kdir/initramfs.gz" ] || [ "$(cat "$kdir/initramfs.stamp" 2>/dev/null)" != "$stamp" ]
then
	say "building initramfs for $kver"
	root=$kdir/root
	stage=$(mktemp -d "$cache/.stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	declare -A kind=()
	order=()
	for m in $essential_mods $optional_mods; do
		k=O
		case " $(echo $essential_mods) " in
		*" $m "*) k=E ;;
		esac
		if ! deps=$(modprobe -d "$root" -S "$kver" --show-depends "$m" 2>&1); then
			[ "$k" = E ] && die "essential module $m: $deps"
			say "skipping module $m (not in $kver)"
			continue
		fi
		# "insmod PATH [opts]" lines come dependencies first; "builtin X" needs nothing.
		for p in $(awk '$1 == "insmod" { print $2 }' <<<"$deps"); do
			rel=${p#"$root"/}
			if [ -z "${kind[$rel]:-}" ]; then
				order+=("$rel")
				kind[$rel]=$k
			elif [ "$k" = E ]; then
				kind[$rel]=E
			fi
		done
	done
	: >"$stage/modules.list"
	for rel in "${order[@]}"; do
		# busybox insmod wants plain objects; Debian 12 ships them so, others may not.
		out=$stage/${rel%.xz}
		out=${out%.zst}
		out=${out%.gz}
		mkdir -p "$(dirname "$out")"
		case "$rel" in
		*.xz) xz -dc "$root/$rel" >"$out" ;;
		*.zst) zstd -qdc "$root/$rel" >"$out" ;;
		*.gz) gzip -dc "$root/$rel" >"$out" ;;
		*) cp "$root/$rel" "$out" ;;
		esac
		echo "${kind[$rel]} ${out#"$stage"/}" >>"$stage/modules.list"
	done
	mkdir -p "$stage/bin"
	cp /bin/busybox "$stage/bin/busybox"
	cp "$here/vm-init.sh" "$stage/init"
	chmod 0755 "$stage/init"
	(cd "$stage" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -6 >"$kdir/initramfs.gz.tmp"
	mv "$kdir/initramfs.gz.tmp" "$kdir/initramfs.gz"
	echo "$stamp" >"$kdir/initramfs.stamp"
	rm -rf "$stage"
	trap - EXIT
	say "initramfs: ${#order[@]} modules, $(du -h "$kdir/initramfs.gz" | cut -f1)"
fi

ln -sfn "$kver" "$cache/current"
echo "kernel=$kdir/vmlinuz"
echo "initrd=$kdir/initramfs.gz"
