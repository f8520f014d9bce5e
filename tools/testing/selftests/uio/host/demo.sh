#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot Debian's kernel under QEMU with the edu device bound to
# our uio_pci_generic and run the user-space edu driver against /dev/uio0.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)

"$here/deps.sh"
krel=$("$here/kernel.sh" stock)
out=$top/build/$krel
echo "# building our modules and tools for $krel" >&2
"$here/build.sh" "$krel" "$out" >&2
make -s -C "$top/tools/uio" STATIC=1 >&2

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/bin" "$extra/tests"
cp "$top/tools/uio/lsuio" "$top/tools/uio/examples/edu_uio" "$extra/bin/"
cp "$here/demo-guest.sh" "$extra/tests/demo"
chmod +x "$extra/tests/demo"

EXTRA_ROOT=$extra UIO_MODULES="uio uio_pci_generic" \
	"$here/initramfs.sh" "$out" "$out/demo.cpio.gz"
echo "# booting QEMU (TCG) with the edu device" >&2
UIO_BOOT_TIMEOUT=300 "$here/boot.sh" "$krel" "$out/demo.cpio.gz" \
	"$out/demo.log"

sed -n '/^=== BEGIN demo/,/^=== END demo/p' "$out/demo.log" |
	sed '1d;$d' | tr -d '\r'
grep -q '^=== END demo rc=0' "$out/demo.log" || {
	echo "demo failed; full console log: $out/demo.log" >&2
	exit 1
}
