#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The platform UIO drivers of the guest kernel's own source for
# uio_pdrv_test, below a root for initramfs.sh's EXTRA_ROOT:
#   pdrv.sh <kernel release> <build dir of build.sh> <root>
#
# uio_pdrv_genirq.c and uio_dmem_genirq.c from Debian's linux-source of
# the kernel's version, built unmodified against our header and our
# Module.symvers, land in <root>/modules-extra, which guest-init.sh does
# not load: the test loads them itself. Builds are cached by a hash of
# every input.
set -eu

krel=$1
build=$(cd "$2" && pwd)
root=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
cache=${UIO_CACHE:-/var/cache/uio-dev}
drivers="uio_pdrv_genirq uio_dmem_genirq"
symvers=$build/src/drivers/uio/Module.symvers

[ -f "$symvers" ] || { echo "pdrv.sh: no $symvers: run build.sh" >&2; exit 1; }
ksrc=$("$here/ksource.sh" "$krel" drivers/uio/uio_pdrv_genirq.c \
	drivers/uio/uio_dmem_genirq.c)

# The drivers, our headers as build.sh copied them, our exports, the rules.
key=$({
	echo "$krel"
	find "$ksrc" "$build/src/include" "$build/src/backport" -type f \
		2>/dev/null | LC_ALL=C sort | xargs sha256sum | cut -c1-64
	sha256sum < "$symvers"
	sha256sum < "$top/tools/testing/selftests/uio/pdrv/Makefile"
} | sha256sum | cut -c1-16)
dir=$cache/pdrv-$krel-$key

if [ ! -d "$dir" ]; then
	src=$build/src/tools/testing/selftests/uio/pdrv
	rm -rf "$src"
	mkdir -p "$src" "$cache"
	cp "$top/tools/testing/selftests/uio/pdrv/Makefile" "$src/"
	for d in $drivers; do
		cp "$ksrc/drivers/uio/$d.c" "$src/"
	done
	make -s -C "/usr/src/linux-headers-$krel" M="$src" -j"$(nproc)" \
		KBUILD_EXTRA_SYMBOLS="$symvers" modules >&2
	tmp=$(mktemp -d "$dir.XXXXXX")
	for d in $drivers; do
		cp "$src/$d.ko" "$tmp/"
	done
	# Not below build.sh's tree, whose modules all go into the image.
	rm -rf "$src"
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
fi
mkdir -p "$root/modules-extra"
for d in $drivers; do
	cp "$dir/$d.ko" "$root/modules-extra/"
done
