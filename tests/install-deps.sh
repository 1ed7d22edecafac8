#!/bin/sh
# Install the Debian packages fdewiz needs: "build" to build and try it, "test" for the test suite too.
set -eu

build_pkgs="build-essential autoconf automake autopoint gettext pkg-config
	libncurses-dev libblkid-dev libparted-dev libcryptsetup-dev libjson-c-dev libcmocka-dev liburing-dev
	libssl-dev
	e2fsprogs dosfstools parted util-linux"
test_pkgs="cryptsetup-bin cryptsetup xfsprogs btrfs-progs gdisk tmux jq python3 python3-jsonschema python3-cryptography
	qemu-system-x86 ovmf busybox-static mmdebstrap mtools kmod fio valgrind gdb locales
	debhelper dpkg-dev lintian bash-completion man-db groff-base clang libclang-rt-14-dev
	linux-source-6.1 flex bison bc xz-utils lvm2 clevis clevis-luks clevis-tpm2 swtpm swtpm-tools tpm2-tools openssl"

case "${1:-build}" in
build) pkgs=$build_pkgs ;;
test) pkgs="$build_pkgs $test_pkgs" ;;
*) echo "usage: $0 build|test" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	echo "$0: installing packages needs root; run it with sudo." >&2
	exit 1
fi

# Skip the network when everything is already there.
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "Installing:$missing"
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# The translation tests run the program under Russian and Japanese locales.
if [ "${1:-build}" = test ]; then
	for loc in ru_RU ja_JP; do
		locale -a 2>/dev/null | grep -qix "$loc.utf-\{0,1\}8" ||
			localedef -i "$loc" -c -f UTF-8 "$loc.UTF-8"
	done
fi
