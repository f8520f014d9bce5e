#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build, or reuse, the debug kernel with our UIO merged into Linux VERSION:
#   debug-kernel.sh [VERSION]     6.12 (default) or 6.1; see merge-tree.sh
# prints three lines:
#   <bzImage>        the kernel to boot (QEMU -kernel, boot.sh KERNEL_IMAGE)
#   <build dir>      its O= build tree; use it as KDIR for external modules:
#                    make -C <build dir> M=...
#   <source tree>    the VERSION tree with our files (see merge-tree.sh)
# The bzImage and our modules (uio.ko, uio_pci_generic.ko, uio_cif.ko,
# uio_test_mod.ko) are kept in a directory keyed by a hash of the tarball,
# the config fragments, this script, the patches and our kernel sources
# (drivers/uio, uio_driver.h, uio_test_mod, backport/ on older trees); the
# modules are in <bzImage's directory>/modules. Config: tinyconfig +
# guest.config + debug.config (KASAN, lockdep, atomic-sleep checks,
# kmemleak, UBSAN, delayed kobject release), then debug-VERSION.config
# where one exists (options of that version only).
# UIO_CACHE moves the cache (default /var/cache/uio-dev).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${UIO_CACHE:-/var/cache/uio-dev}
jobs=$(nproc)
mkdir -p "$cache"
if [ -z "${UIO_MERGE_LOCKED:-}" ]; then
	exec 9> "$cache/merge.lock"
	flock 9
	export UIO_MERGE_LOCKED=1
fi

version=${1:-6.12}
tree=$("$here/merge-tree.sh" "$version")
base=$(dirname "$tree")
# The 6.12 tree (the series applied) has a build directory of its own.
case $(basename "$tree") in
series)	bdir=$base/build-series-debug ;;
*)	bdir=$base/build-debug ;;
esac
fragments="$here/guest.config $here/debug.config"
[ -f "$here/debug-$version.config" ] &&
	fragments="$fragments $here/debug-$version.config"
# Older trees: what builds against our header sees backport/include first.
bp=$(cat "$tree/.uio-backport-cflags")
make_bp() {
	if [ -n "$bp" ]; then
		make NOSTDINC_FLAGS="-nostdinc $bp" "$@"
	else
		make "$@"
	fi
}

confkey=$(cat $fragments | sha256sum | cut -c1-16)
# Only what goes into the kernel and the modules counts for the key.
key=$( (basename "$tree"; echo "$confkey"; cat "$0";
	cd "$tree" && grep -e '^drivers/' -e '^include/' -e '/uio_test_mod/' \
		-e '^backport/' .uio-files | xargs sha256sum;
	sha256sum drivers/uio/Makefile) | sha256sum | cut -c1-16)
out=$base/debug-$key

log() { echo "# debug-kernel $version: $*" >&2; }

if [ ! -f "$out/bzImage" ]; then
	# Objects and .cmd files name their source tree: start afresh when
	# the tree changed.
	if [ "$(cat "$bdir/.uio-tree" 2>/dev/null)" != "$tree" ]; then
		rm -rf "$bdir"
		mkdir -p "$bdir"
		echo "$tree" > "$bdir/.uio-tree"
	fi
	if [ "$(cat "$bdir/.uio-confkey" 2>/dev/null)" != "$confkey" ]; then
		log "configuring $bdir"
		make -s -C "$tree" O="$bdir" tinyconfig >&2
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$bdir" \
			"$bdir/.config" $fragments > /dev/null
		make -s -C "$tree" O="$bdir" olddefconfig >&2
		# Kconfig drops what it cannot satisfy: insist on every line
		# (the last word on a symbol, when fragments disagree).
		grep -h '^CONFIG_\|^# CONFIG_.* is not set' $fragments |
		awk '{ k = $0; sub(/^# /, "", k); sub(/[= ].*/, "", k); w[k] = $0 }
		     END { for (k in w) print w[k] }' |
		while read -r line; do
			case $line in
			"# "*)	# not set: also when the tree has no such symbol
				sym=${line#\# }
				! grep -q "^${sym%% *}=" "$bdir/.config" ;;
			*)	grep -qx "$line" "$bdir/.config" ;;
			esac || {
				echo "debug-kernel $version: config lacks '$line'" >&2
				exit 1
			}
		done
		echo "$confkey" > "$bdir/.uio-confkey"
	fi
	# A build killed hard (not by make's own signal handling) leaves the
	# object it was writing empty, and make then takes it as up to date.
	find "$bdir" -name '*.o' -size -64c -delete
	log "building in $bdir (-j$jobs)"
	make -s -C "$tree" O="$bdir" -j"$jobs" bzImage modules >&2
	# The tree's Module.symvers, with uio's exports, is read anyway.
	make_bp -s -C "$bdir" M="$tree/tools/testing/selftests/uio/uio_test_mod" \
		-j"$jobs" modules >&2

	rm -rf "$out.tmp"
	mkdir -p "$out.tmp/modules"
	cp "$bdir/arch/x86/boot/bzImage" "$bdir/System.map" "$bdir/.config" \
		"$out.tmp/"
	cp "$bdir"/drivers/uio/*.ko \
		"$tree"/tools/testing/selftests/uio/uio_test_mod/*.ko \
		"$out.tmp/modules/"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	# Keep the three newest kernels.
	ls -dt "$base"/debug-* | grep -v '\.tmp$' | tail -n +4 | xargs -r rm -rf
fi

echo "$out/bzImage"
echo "$bdir"
echo "$tree"
