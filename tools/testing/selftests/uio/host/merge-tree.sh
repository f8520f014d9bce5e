#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prepare the Linux tree of one version that `make merge-check` and
# debug-kernel.sh build, and print its path:
#   merge-tree.sh [VERSION]        6.12 (default: the tree we submit to) or 6.1
#   merge-tree.sh --pristine [VERSION]
#                                  only the unmodified copy (step 1)
#
# From Debian's /usr/src/linux-source-VERSION.tar.xz (never modified) it
# makes, under $UIO_CACHE (default /var/cache/uio-dev):
#   merge-VERSION-<tar>/pristine        an unmodified copy of the tree
#   merge-VERSION-<tar>/stripped-<v>    the same with the existing UIO removed
#   merge-VERSION-<tar>/tree-<patches>  6.1: stripped, plus Kconfig.patch and
#                                       MAINTAINERS.patch, plus our files
#   merge-6.12-<tar>/series             6.12: the pristine tree with the
#                                       upstream series (make patches)
#                                       applied by git am (series-apply.sh)
#
# 6.1 takes our files by copy: a 6.1 series would have to carry the
# backport layer's helpers inside drivers/uio, code of a kind no tree
# takes (see patches.sh). The rest of this comment is about that copy;
# for 6.12 only the files the series changed count as ours, and steps
# 5 and the .uio-* files below apply to both.
# <tar> hashes the tarball, <v> the strip recipe, <patches> the recipe and
# the patches. A patch is taken as Kconfig-VERSION.patch when that file
# exists, else Kconfig.patch (likewise MAINTAINERS); today one of each
# serves both versions.
#
# Our files as git knows them (drivers/uio, uio_driver.h, the howto, the
# selftests; tracked files only, in their working-tree state) are synced
# into the tree on every call, a file only when its content changed, so
# builds in the tree stay incremental.
#
# backport/ (the out-of-tree build's compatibility layer for kernels older
# than the one we submit to) never goes into the 6.12 tree. Into an older
# tree its include/ goes as backport/include, and drivers/uio/Makefile gets
# a line on top that puts it first on the include path of drivers/uio;
# the tree's .uio-backport-cflags holds the same -I for whatever else
# builds against our header there (uio_test_mod, the tree's UIO users):
# merge-check.sh and debug-kernel.sh put it first on their include path
# with make NOSTDINC_FLAGS="-nostdinc <it>", the way linux-backports does.
# The file is empty for the 6.12 tree.
#
# The tree's own UIO stubs are copied back into drivers/uio: our Kconfig and
# Makefile keep their entries (for a stub the target tree dropped, this
# version's entry is added), so a configuration that enables them builds
# them. Those that ours replace (uio_cif.c, uio_pci_generic.c) go in as e.g.
# uio_cif_612.c, built only when asked for.
set -eu

STRIP_VERSION=1
TARGET_VERSION=6.12
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
cache=${UIO_CACHE:-/var/cache/uio-dev}
pristine_only=
if [ "${1:-}" = --pristine ]; then
	pristine_only=1
	shift
fi
version=${1:-$TARGET_VERSION}

log() { echo "# merge-tree $version: $*" >&2; }
die() { echo "merge-tree $version: $*" >&2; exit 1; }

case "$version" in
6.1|6.12) ;;
*) die "unknown version (6.12 or 6.1)" ;;
esac
tarball=/usr/src/linux-source-$version.tar.xz
[ -f "$tarball" ] || "$here/deps.sh" merge >&2
[ -f "$tarball" ] || die "$tarball is missing (package linux-source-$version)"

tarkey=$(stat -c '%s-%Y' "$tarball" | sha256sum | cut -c1-16)
base=$cache/merge-$version-$tarkey
mkdir -p "$base"

# The patches of this version.
patch_for() {
	if [ -f "$top/$1-$version.patch" ]; then
		echo "$top/$1-$version.patch"
	else
		echo "$top/$1.patch"
	fi
}
kpatch=$(patch_for Kconfig)
mpatch=$(patch_for MAINTAINERS)

# 1. A private pristine copy.
if [ ! -f "$base/pristine/Makefile" ]; then
	log "unpacking $tarball"
	rm -rf "$base/pristine.tmp"
	mkdir -p "$base/pristine.tmp"
	tar -xJf "$tarball" -C "$base/pristine.tmp" --strip-components=1
	mv "$base/pristine.tmp" "$base/pristine"
fi

[ -z "$pristine_only" ] || { echo "$base/pristine"; exit 0; }

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

# 3. (6.12) The series, applied once per change of the patches.
series() {
	patches=$("$here/patches.sh")
	tree=$("$here/series-repo.sh")
	if [ "$(git -C "$tree" rev-parse HEAD^{tree})" != "$(cat "$patches/.tree")" ] ||
	   ! git -C "$tree" diff --quiet HEAD; then
		log "applying the series with git am"
		"$here/series-apply.sh" "$patches" > /dev/null
	fi
	manifest=$tree/.uio-files
	git -C "$tree" diff --name-only pristine HEAD > "$manifest.new"
	copy_if_changed "$manifest.new" "$manifest"
	rm -f "$manifest.new"
	: > "$tree/.uio-backport-cflags.new"
	copy_if_changed "$tree/.uio-backport-cflags.new" "$tree/.uio-backport-cflags"
	rm -f "$tree/.uio-backport-cflags.new"
}

copy_if_changed() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}

# 3. (6.1) Our hunks on top, without fuzz, then our files copied.
copied() {
	pkey=$( (echo "$STRIP_VERSION"; cat "$kpatch" "$mpatch") |
		sha256sum | cut -c1-16)
	tree=$base/tree-$pkey
	if [ ! -f "$tree/.patched" ]; then
		log "applying $(basename "$kpatch") and $(basename "$mpatch")"
		rm -rf "$tree.tmp"
		cp -a "$stripped" "$tree.tmp"
		(
			cd "$tree.tmp"
			patch -p1 -s --fuzz=0 --no-backup-if-mismatch < "$kpatch"
			patch -p1 -s --fuzz=0 --no-backup-if-mismatch < "$mpatch"
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

	backport=
	[ -d "$top/backport/include" ] && backport=1
	manifest=$tree/.uio-files
	(
		cd "$top"
		{
			git ls-files --cached -- drivers/uio \
				include/linux/uio_driver.h Documentation/uio-howto.txt \
				tools/testing/selftests/uio tools/uio/cif/cif_dpram.h
			[ -z "$backport" ] || git ls-files --cached -- backport/include
		} | while read -r f; do
			[ -f "$f" ] && echo "$f"
		done | sort -u
	) > "$manifest.new"
	if [ -f "$manifest" ]; then
		comm -23 "$manifest" "$manifest.new" | while read -r f; do
			rm -f "$tree/$f"
		done
	fi
	while read -r f; do
		# drivers/uio/Kconfig and Makefile are made below.
		case $f in
		drivers/uio/Kconfig|drivers/uio/Makefile) continue ;;
		esac
		copy_if_changed "$top/$f" "$tree/$f"
	done < "$manifest.new"
	mv "$manifest.new" "$manifest"

	# Ours, plus the entries of stubs this version has and the tree we submit
	# to dropped (6.1's uio_pruss): a maintainer's tree of this version keeps
	# them when our patch goes in, as this version writes them.
	mk=$tree/drivers/uio/Makefile.new
	kc=$tree/drivers/uio/Kconfig.new
	: > "$mk.extra"
	: > "$kc.extra"
	for sym in $(sed -n 's/^obj-\$(CONFIG_\(UIO_[A-Z0-9_]*\)).*/\1/p' \
			"$base/pristine/drivers/uio/Makefile"); do
		grep -q "^obj-\$(CONFIG_$sym)" "$top/drivers/uio/Makefile" && continue
		grep "^obj-\$(CONFIG_$sym)" "$base/pristine/drivers/uio/Makefile" \
			>> "$mk.extra"
		awk -v sym="$sym" '
			$0 == "config " sym { on = 1; print; next }
			on && /^(config|menuconfig|if|endif|menu|endmenu|source|comment|choice)( |$)/ { on = 0 }
			on { print }' "$base/pristine/drivers/uio/Kconfig" |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >> "$kc.extra"
		echo >> "$kc.extra"
	done
	# The backport layer: first on drivers/uio's include path (a line on top
	# of the Makefile), and the same flag for other users of our header.
	{
		if [ -n "$backport" ]; then
			echo "# merge-tree.sh: on Linux $version, backport/include first"
			echo 'LINUXINCLUDE := -I$(srctree)/backport/include $(LINUXINCLUDE)'
		fi
		cat "$top/drivers/uio/Makefile" "$mk.extra"
	} > "$mk"
	# Before the Kconfig's closing endif.
	awk -v extra="$kc.extra" '
		{ line[NR] = $0 }
		END {
			for (last = NR; last > 0 && line[last] != "endif"; last--) ;
			for (i = 1; i < last; i++) print line[i]
			while ((getline l < extra) > 0) print l
			for (i = last; i <= NR; i++) print line[i]
		}' "$top/drivers/uio/Kconfig" > "$kc"
	copy_if_changed "$mk" "$tree/drivers/uio/Makefile"
	copy_if_changed "$kc" "$tree/drivers/uio/Kconfig"
	rm -f "$mk" "$kc" "$mk.extra" "$kc.extra"
	if [ -n "$backport" ]; then
		echo "-I$tree/backport/include" > "$tree/.uio-backport-cflags.new"
	else
		: > "$tree/.uio-backport-cflags.new"
	fi
	copy_if_changed "$tree/.uio-backport-cflags.new" "$tree/.uio-backport-cflags"
	rm -f "$tree/.uio-backport-cflags.new"
}

if [ "$version" = "$TARGET_VERSION" ]; then
	series
else
	copied
fi

# 5. The tree's stubs back, for `make drivers/uio/<stub>.o` only.
suffix=$(echo "$version" | tr -d .)
for f in "$base"/pristine/drivers/uio/uio_*.c; do
	name=$(basename "$f")
	case $name in
	uio_cif.c|uio_pci_generic.c)	name=${name%.c}_$suffix.c ;;
	esac
	grep -qx "drivers/uio/$name" "$manifest" && continue
	copy_if_changed "$f" "$tree/drivers/uio/$name"
done

echo "$tree"
