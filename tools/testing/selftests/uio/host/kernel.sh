#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's kernels of the test matrix, by id:
#   kernel.sh ID              the release of kernel ID (installed, with headers)
#   kernel.sh --packages ID   the Debian packages that install it
#   kernel.sh --list          every id, the default one first
#
#   6.12     linux-image-6.12.N+deb12-amd64     (bookworm-security, the target)
#   6.12-rt  linux-image-6.12.N+deb12-rt-amd64  (its PREEMPT_RT flavour)
#   6.1      linux-image-6.1.0-N-amd64          (what linux-image-amd64 points at)
#   6.1-rt   linux-image-6.1.0-N-rt-amd64       (what linux-image-rt-amd64 points at)
#
# The release comes from apt's index, never from what happens to be in
# /boot: 6.12's N is the newest that apt offers (UIO_KERNEL_6_12=N pins
# it), 6.1's is the one Debian's meta-package depends on.
set -eu

die() { echo "kernel.sh: $*" >&2; exit 1; }

# 6.1's release: the image the meta-package of one flavour depends on.
release_61() {
	apt-cache depends "linux-image-$1" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(6\.1\.[0-9.-]*-[a-z-]*amd64\)$/\1/p' |
		head -n 1
}

# 6.12's N: pinned, or the newest stock image in apt's index.
n_612() {
	if [ -n "${UIO_KERNEL_6_12:-}" ]; then
		echo "$UIO_KERNEL_6_12"
		return
	fi
	apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		sed -n 's/^linux-image-6\.12\.\([0-9]*\)+deb12-amd64$/\1/p' |
		sort -n | tail -n 1
}

release() {
	case "$1" in
	6.1)		r=$(release_61 amd64) ;;
	6.1-rt)		r=$(release_61 rt-amd64) ;;
	6.12)		n=$(n_612); r=${n:+6.12.$n+deb12-amd64} ;;
	6.12-rt)	n=$(n_612); r=${n:+6.12.$n+deb12-rt-amd64} ;;
	*)		die "unknown kernel '$1' (one of: $(list | tr '\n' ' '))" ;;
	esac
	[ -n "$r" ] || die "kernel $1: apt's index offers no such kernel (apt-get update?)"
	echo "$r"
}

list() { printf '%s\n' 6.12 6.12-rt 6.1 6.1-rt; }

case "${1:-}" in
--list)
	list ;;
--packages)
	r=$(release "${2:?usage: kernel.sh --packages ID}")
	echo "linux-image-$r linux-headers-$r" ;;
""|-*)
	die "usage: kernel.sh ID | --packages ID | --list" ;;
*)
	r=$(release "$1")
	[ -f "/boot/vmlinuz-$r" ] && [ -d "/usr/src/linux-headers-$r" ] ||
		die "kernel $1 ($r) is not installed with its headers (deps.sh installs it)"
	echo "$r" ;;
esac
