#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build everything a guest run needs:
#   build.sh <kernel release> <output dir>
# Modules are built out of tree against /usr/src/linux-headers-<release>,
# from a copy of the sources so several kernels can be built side by side;
# the tests are static binaries (or busybox scripts) so the busybox
# initramfs can run them.
set -eu

krel=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../../../../.." && pwd)
kdir=/usr/src/linux-headers-$krel
ksft=$("$top/tools/testing/selftests/uio/host/kselftest.sh")
jobs=$(nproc)

mkdir -p "$out/src" "$out/modules" "$out/tests"
# Same relative layout as the repository, so the Kbuild include paths hold.
for d in drivers/uio include/linux backport tools/testing/selftests/uio/uio_test_mod \
	 tools/testing/selftests/uio/uio_pdev_mod; do
	mkdir -p "$out/src/$d"
	cp -a "$top/$d/." "$out/src/$d/"
done

cif=
[ -f "$top/drivers/uio/uio_cif.c" ] && cif=m
make -s -C "$kdir" M="$out/src/drivers/uio" -j"$jobs" W=1 \
	CONFIG_UIO=m CONFIG_UIO_PCI_GENERIC=m CONFIG_UIO_CIF=$cif modules
# Kbuild does not relink a module when only the symbol versions it was
# built against changed: start uio_test_mod afresh when uio's did.
symvers=$out/src/drivers/uio/Module.symvers
tmod=$out/src/tools/testing/selftests/uio/uio_test_mod
if ! cmp -s "$symvers" "$out/uio_test_mod.symvers"; then
	make -s -C "$kdir" M="$tmod" clean
	cp "$symvers" "$out/uio_test_mod.symvers"
fi
make -s -C "$kdir" M="$tmod" -j"$jobs" W=1 KBUILD_EXTRA_SYMBOLS="$symvers" \
	modules
make -s -C "$kdir" M="$out/src/tools/testing/selftests/uio/uio_pdev_mod" \
	-j"$jobs" W=1 modules
find "$out/src" -name '*.ko' -exec cp {} "$out/modules/" \;

for t in "$top"/tools/testing/selftests/uio/*_test.c; do
	gcc -static -O2 -Wall -Werror -pthread -I"$ksft" \
		-I"$top/tools/testing/selftests/uio" \
		-o "$out/tests/$(basename "$t" .c)" "$t"
done
cp "$top"/tools/testing/selftests/uio/*_test.sh "$out/tests/"
