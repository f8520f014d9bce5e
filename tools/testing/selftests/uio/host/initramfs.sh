#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pack a busybox initramfs from a build directory with the given programs
# from its tests/ as the ones the guest runs:
#   initramfs.sh <build dir> <output cpio.gz> <program>...
# GUEST_INIT replaces guest-init.sh as /init; files below the directories
# EXTRA_ROOT lists are copied into the image's root as they are (e.g.
# EXTRA_ROOT/modules/x.ko). UIO_MODULES names the modules of the build to
# include (default: all; " " for none).
set -eu

build=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/modules" "$root/tests"
cp /bin/busybox "$root/bin/busybox"
cp "${GUEST_INIT:-$here/guest-init.sh}" "$root/init"
chmod +x "$root/init"
if [ -n "${UIO_MODULES:-}" ]; then
	for m in $UIO_MODULES; do
		cp "$build/modules/$m.ko" "$root/modules/"
	done
else
	cp "$build"/modules/*.ko "$root/modules/"
fi
for t in "$@"; do
	cp "$build/tests/$t" "$root/tests/"
done
for d in ${EXTRA_ROOT:-}; do
	cp -a "$d/." "$root/"
done
# Unprivileged tests must be able to resolve paths below /.
chmod 0755 "$root"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
