#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Files of a guest kernel's own source, from Debian's linux-source tarball
# of its version, extracted once into the cache:
#   ksource.sh <kernel release> <path in the tree>...
# Prints the directory that holds them at their paths in the tree.
set -eu

krel=$1
shift
cache=${UIO_CACHE:-/var/cache/uio-dev}

case "$krel" in
6.1.*)	version=6.1 ;;
6.12.*)	version=6.12 ;;
*)	echo "ksource.sh: no kernel source known for $krel" >&2; exit 1 ;;
esac
tarball=/usr/src/linux-source-$version.tar.xz
[ -f "$tarball" ] || { echo "ksource.sh: $tarball is missing" >&2; exit 1; }

key=$({ stat -c '%s-%Y' "$tarball"; echo "$@"; } | sha256sum | cut -c1-16)
dir=$cache/ksource-$version-$key
if [ ! -d "$dir" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$dir.XXXXXX")
	for f in "$@"; do
		echo "linux-source-$version/$f"
	done | tar -xJf "$tarball" -C "$tmp" --strip-components=1 -T -
	# A concurrent run may have got there first: its copy is as good.
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
fi
echo "$dir"
