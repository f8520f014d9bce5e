#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make check`: for each kernel flavour, build our
# modules and the tests, boot QEMU with the edu device, and report.
#   check.sh [stock] [rt]       (default: both)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
flavours=${*:-stock rt}

"$here/deps.sh"
logs=
for fl in $flavours; do
	krel=$("$here/kernel.sh" "$fl")
	out=$top/build/$krel
	echo "# $fl kernel $krel: building" >&2
	"$here/build.sh" "$krel" "$out" >&2
	"$here/initramfs.sh" "$out" "$out/initramfs.cpio.gz" \
		uio_core_test uio_pci_generic_test
	echo "# $fl kernel $krel: booting" >&2
	"$here/boot.sh" "$krel" "$out/initramfs.cpio.gz" "$out/guest.log"
	logs="$logs $fl=$out/guest.log"
done
exec python3 "$here/report.py" $logs
