#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prepare the Linux 6.1 tree that `make merge-check` and debug-kernel.sh
# build, and print its path:
#   merge-tree.sh
#
# From Debian's linux-source-6.1 (cached, never modified) it makes, under
# $UIO_CACHE (default /var/cache/uio-dev):
#   merge-<tar>/pristine            an unmodified copy of the tarball's tree
#   merge-<tar>/stripped-<v>        the same with the existing UIO removed
#   merge-<tar>/tree-<patches>      stripped, plus Kconfig.patch and
#                                   MAINTAINERS.patch, plus our files
# <tar> hashes the tarball, <v> the strip recipe, <patches> the recipe and
# both patches. Our files as git knows them (drivers/uio, uio_driver.h,
# the howto, the selftests; tracked files only, in their working-tree
# state) are synced into the tree on every call, a file only when its
# content changed, so builds in the tree stay incremental. The 6.1 stub
# drivers are copied back into drivers/uio for the compile test; nothing
# builds them unless asked to (the Makefile is ours).
set -eu

STRIP_VERSION=1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
unpacked=/var/cache/uio-dev/linux-source-6.1
cache=${UIO_CACHE:-/var/cache/uio-dev}

[ -f "$tarball" ] || "$here/deps.sh"
tarkey=$(stat -c '%s-%Y' "$tarball" | sha256sum | cut -c1-16)
base=$cache/merge-$tarkey
mkdir -p "$base"

log() { echo "# merge-tree: $*" >&2; }

# 1. A private pristine copy.
if [ ! -f "$base/pristine/Makefile" ]; then
	log "unpacking $tarball"
	rm -rf "$base/pristine.tmp"
	if [ -f "$unpacked/Makefile" ]; then
		cp -a "$unpacked" "$base/pristine.tmp"
	else
		mkdir -p "$base/pristine.tmp"
		tar -xJf "$tarball" -C "$base/pristine.tmp" --strip-components=1
	fi
	mv "$base/pristine.tmp" "$base/pristine"
fi

# 2. The existing UIO removed: code, header, Kconfig/Makefile/MAINTAINERS.
stripped=$base/stripped-$STRIP_VERSION
if [ ! -f "$stripped/.stripped" ]; then
	log "removing the existing UIO"
	rm -rf "$stripped.tmp"
	cp -a "$base/pristine" "$stripped.tmp"
	(
		cd "$stripped.tmp"
		rm -r drivers/uio include/linux/uio_driver.h
		sed -i '\|^source "drivers/uio/Kconfig"$|,+1d' drivers/Kconfig
		sed -i '\|^obj-$(CONFIG_UIO)[[:space:]]*+= uio/$|d' \
			drivers/Makefile
		# An entry runs from its title to the next blank line; other
		# entries list single stubs.
		sed -i -e '/^USERSPACE I\/O (UIO)$/,/^$/d' \
			-e '/^GENERIC UIO DRIVER FOR PCI DEVICES$/,/^$/d' \
			-e '\|^F:\tdrivers/uio/|d' MAINTAINERS
		! grep -q 'drivers/uio' drivers/Kconfig drivers/Makefile \
			MAINTAINERS
	)
	touch "$stripped.tmp/.stripped"
	mv "$stripped.tmp" "$stripped"
fi

# 3. Our hunks on top.
pkey=$( (echo "$STRIP_VERSION"; cat "$top/Kconfig.patch" \
	"$top/MAINTAINERS.patch") | sha256sum | cut -c1-16)
tree=$base/tree-$pkey
if [ ! -f "$tree/.patched" ]; then
	log "applying Kconfig.patch and MAINTAINERS.patch"
	rm -rf "$tree.tmp"
	cp -a "$stripped" "$tree.tmp"
	(
		cd "$tree.tmp"
		patch -p1 -s --no-backup-if-mismatch < "$top/Kconfig.patch"
		patch -p1 -s --no-backup-if-mismatch < "$top/MAINTAINERS.patch"
	)
	touch "$tree.tmp/.patched"
	mv "$tree.tmp" "$tree"
	# Old trees go; build directories note their tree in .uio-tree
	# and start afresh when it changes.
	for d in "$base"/tree-*; do
		[ "$d" = "$tree" ] || rm -rf "$d"
	done
fi

# 4. Sync our files; remove what we synced before and no longer ship.
copy_if_changed() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}

manifest=$tree/.uio-files
(
	cd "$top"
	git ls-files --cached -- drivers/uio \
		include/linux/uio_driver.h Documentation/uio-howto.txt \
		tools/testing/selftests/uio tools/uio/cif/cif_dpram.h |
	while read -r f; do
		[ -f "$f" ] && echo "$f"
	done | sort -u
) > "$manifest.new"
if [ -f "$manifest" ]; then
	comm -23 "$manifest" "$manifest.new" | while read -r f; do
		rm -f "$tree/$f"
	done
fi
while read -r f; do
	copy_if_changed "$top/$f" "$tree/$f"
done < "$manifest.new"
mv "$manifest.new" "$manifest"

# 5. The 6.1 stubs back, for `make drivers/uio/<stub>.o` only; 6.1's
# uio_cif.c and uio_pci_generic.c as *_61.c, since ours take their place.
for f in "$base"/pristine/drivers/uio/uio_*.c; do
	name=$(basename "$f")
	case $name in
	uio_cif.c|uio_pci_generic.c)	name=${name%.c}_61.c ;;
	esac
	grep -qx "drivers/uio/$name" "$manifest" && continue
	copy_if_changed "$f" "$tree/drivers/uio/$name"
done

echo "$tree"
