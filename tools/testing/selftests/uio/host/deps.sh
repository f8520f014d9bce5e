#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages a purpose needs, when any is missing:
#   deps.sh [PURPOSE...]      (none: every purpose but fresh)
#
#   guest   build our modules and tests, pack and boot a test guest, report,
#           check the howto (docutils);
#           the TCMU test's runner, image tool and target_core_user source;
#           plus the kernels of $KERNELS (ids of kernel.sh, default all)
#   qemu    build our QEMU from Debian's source package (also adds a
#           deb-src entry and fetches the source index)
#   merge   merge UIO into Linux 6.12 and 6.1 trees and build them
#   fresh   bootstrap a minimal bookworm root (make fresh-check)
#   bench   plot the benchmark's results
#
# This is the only list of packages: a machine with Debian's base system,
# make, git and ca-certificates needs nothing else. Every failure stops
# with a line that names the step.
set -eu

here=$(cd "$(dirname "$0")" && pwd)

GUEST_PKGS="build-essential busybox-static cpio kmod xz-utils python3
	pciutils qemu-system-x86 linux-source-6.12 python3-docutils
	linux-source-6.1 tcmu-runner qemu-utils"
QEMU_PKGS="build-essential dpkg-dev ninja-build meson pkg-config python3
	libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev patch
	qemu-system-data seabios ipxe-qemu"
MERGE_PKGS="build-essential flex bison bc sparse libelf-dev libssl-dev perl
	git patch python3 python3-ply python3-git cpio busybox-static qemu-system-x86
	linux-source-6.1 linux-source-6.12"
FRESH_PKGS="debootstrap debian-archive-keyring git"
BENCH_PKGS="gnuplot-nox python3"

die() { echo "deps: $*" >&2; exit 1; }

updated=
apt_update() {
	[ -n "$updated" ] && return
	echo "# deps: apt-get update" >&2
	apt-get update -q >&2 || die "apt-get update failed"
	updated=1
}

# Bookworm's source index, for `apt-get source qemu`.
ensure_deb_src() {
	if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list \
	     /etc/apt/sources.list.d/; then
		uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources |
		      head -n 1 | awk '{print $2}')
		[ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' \
				       /etc/apt/sources.list 2> /dev/null || true)
		[ -n "$uri" ] || uri=http://deb.debian.org/debian
		echo "# deps: adding deb-src for $uri bookworm" >&2
		cat > /etc/apt/sources.list.d/uio-dev-src.sources <<SRC
Types: deb-src
URIs: $uri
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		updated=
	fi
	if ! apt-cache showsrc qemu 2> /dev/null | grep -q '^Version:'; then
		apt_update
		apt-cache showsrc qemu 2> /dev/null | grep -q '^Version:' ||
			die "qemu: no source package in apt's index after apt-get update"
	fi
}

# The packages of the kernels in $KERNELS; apt's index must know them.
kernel_pkgs() {
	for k in ${KERNELS:-$("$here/kernel.sh" --list)}; do
		"$here/kernel.sh" --list | grep -qx "$k" ||
			die "unknown kernel '$k' (one of: $("$here/kernel.sh" --list | tr '\n' ' '))"
		if ! p=$("$here/kernel.sh" --packages "$k" 2> /dev/null); then
			apt_update
			p=$("$here/kernel.sh" --packages "$k") ||
				die "kernel $k: not offered by apt"
		fi
		echo "$p"
	done
}

[ $# -gt 0 ] || set -- guest qemu merge bench
[ "$(id -u)" -eq 0 ] || die "must run as root to install packages"

want=
for purpose in "$@"; do
	case "$purpose" in
	guest)	want="$want $GUEST_PKGS $(kernel_pkgs)" ;;
	qemu)	want="$want $QEMU_PKGS"; ensure_deb_src ;;
	merge)	want="$want $MERGE_PKGS" ;;
	fresh)	want="$want $FRESH_PKGS" ;;
	bench)	want="$want $BENCH_PKGS" ;;
	*)	die "unknown purpose '$purpose'" ;;
	esac
done

missing=
for p in $want; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "# deps: installing$missing" >&2
apt_update
# Our guests boot with their own initramfs: skip initramfs-tools' images.
DEBIAN_FRONTEND=noninteractive INITRD=No \
	apt-get install -y -q --no-install-recommends $missing >&2 ||
	die "apt-get install failed for:$missing"
