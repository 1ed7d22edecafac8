#!/bin/bash
# fdewiz VM tests: fetch a Debian kernel (unpacked, never installed) and build the initramfs.
#
# Usage: vm-prepare.sh [--quiet]
# Prints "kernel=PATH", "initrd=PATH" and "moddir=PATH" (the full module tree) on stdout;
# progress goes to stderr.
#
# Everything lands in ${FDEWIZ_VM_CACHE:-/var/cache/fdewiz-tests/vm}/<kernel version>/.
# The kernel is fetched once per version; the initramfs is rebuilt only when this
# script, vm-init.sh or busybox change (a stamp records their checksums).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${FDEWIZ_VM_CACHE:-/var/cache/fdewiz-tests/vm}
quiet=0
[ "${1:-}" = --quiet ] && quiet=1

# Loaded at boot; without these the guest cannot reach its root or do what tests are for.
essential_mods="9pnet 9p 9pnet_virtio virtio_ring virtio virtio_pci virtio_blk qemu_fw_cfg
	dm-mod dm-crypt overlay ext4"
# Also loaded at boot when the kernel has them.  AES-NI must be there before dm-crypt asks
# for "aes", or the built-in generic AES wins; loop and the dm test targets are cheap.
preload_mods="netfs fscache virtio_pci_modern_dev virtio_pci_legacy_dev virtio_rng
	ecb xts cbc cryptd crypto_simd aesni-intel af_alg algif_skcipher algif_hash
	loop dm-flakey dm-delay dm-zero"
# Packed but loaded on demand (kernel autoload or modprobe in a test): btrfs pulls in
# raid6_pq, whose boot-time benchmark alone costs seconds under TCG.
lazy_mods="xfs btrfs vfat nls_cp437 nls_iso8859-1 nls_utf8 nls_ascii
	adiantum chacha_generic chacha-x86_64 nhpoly1305 nhpoly1305-sse2 nhpoly1305-avx2"

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
# Left behind by a run that was killed; nobody else works here while we hold the lock.
rm -rf "$cache"/.fetch.* "$cache"/.stage.*

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

# Booting the ELF vmlinux through its PVH entry skips decompressing the bzImage, which
# takes seconds under TCG; fall back to the bzImage when that cannot be had.
if [ ! -f "$kdir/vmlinux" ] && [ ! -f "$kdir/vmlinux.none" ]; then
	img=$kdir/vmlinuz
	if grep -q '^CONFIG_PVH=y' "$kdir/root/boot/config-$kver" 2>/dev/null; then
		# Magic numbers of the compressed payload (bash strings cannot hold xz's NUL).
		for magic in xz:$'\xfd7zXZ' zstd:$'\x28\xb5\x2f\xfd' gzip:$'\x1f\x8b\x08'; do
			tool=${magic%%:*}
			command -v "$tool" >/dev/null || continue
			for pos in $(LC_ALL=C grep -abo "${magic#*:}" "$img" | cut -d: -f1); do
				tail -c "+$((pos + 1))" "$img" | "$tool" -dc 2>/dev/null \
					>"$kdir/vmlinux.tmp" || true
				if [ "$(head -c4 "$kdir/vmlinux.tmp" | od -An -c | tr -d ' ')" = \
					'177ELF' ]; then
					mv "$kdir/vmlinux.tmp" "$kdir/vmlinux"
					break 2
				fi
			done
		done
		rm -f "$kdir/vmlinux.tmp"
	fi
	[ -f "$kdir/vmlinux" ] || touch "$kdir/vmlinux.none"
fi
kernel=$kdir/vmlinuz
[ -f "$kdir/vmlinux" ] && kernel=$kdir/vmlinux

stamp=$(cat "$here/vm-prepare.sh" "$here/vm-init.sh" /bin/busybox | sha256sum | cut -d' ' -f1)
if [ ! -f "$kdir/initramfs.gz" ] || [ "$(cat "$kdir/initramfs.stamp" 2>/dev/null)" != "$stamp" ]
then
	say "building initramfs for $kver"
	root=$kdir/root
	stage=$(mktemp -d "$cache/.stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	declare -A kind=()
	order=()
	# E essential, P preload, L lazy; a module shared by several kinds gets the strongest.
	rank() { case "$1" in E) echo 3 ;; P) echo 2 ;; *) echo 1 ;; esac; }
	is_in() { local x; for x in $2; do [ "$x" = "$1" ] && return 0; done; return 1; }
	for m in $essential_mods $preload_mods $lazy_mods; do
		k=L
		is_in "$m" "$preload_mods" && k=P
		is_in "$m" "$essential_mods" && k=E
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
			elif [ "$(rank "$k")" -gt "$(rank "${kind[$rel]}")" ]; then
				kind[$rel]=$k
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
	# A small module tree of its own, so on-demand loading works even without the cache.
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		if [ -f "$root/lib/modules/$kver/$f" ]; then
			cp "$root/lib/modules/$kver/$f" "$stage/lib/modules/$kver/"
		fi
	done
	depmod -b "$stage" "$kver"
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
echo "kernel=$kernel"
echo "initrd=$kdir/initramfs.gz"
echo "moddir=$kdir/root/lib/modules/$kver"
