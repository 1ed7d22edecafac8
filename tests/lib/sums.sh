# shellcheck shell=bash
# The suite's sha256 (sourced by assert.sh and tests/vm/lib.sh).

# sha256sum of standard input (most of the suite's sums: whole images and devices, about
# 140 s of the root tier's CPU) through openssl, which uses the CPU's SHA instructions where
# coreutils does not: 512 MiB in 0.4 s of CPU against 1.2 s here. Same digest, same line
# ("HASH  -"). With arguments (files, -c) it is coreutils' own.
sha256sum()
{
	local line

	if [ $# -ne 0 ] || ! command -v openssl >/dev/null; then
		command sha256sum "$@"
		return
	fi
	line=$(openssl dgst -sha256 -r) || return
	printf '%s  -\n' "${line%% *}"
}
