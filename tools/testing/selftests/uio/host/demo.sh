#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot Debian's kernel under our QEMU with the edu device bound
# to our uio_pci_generic and the Hilscher CIF card bound to uio_cif, then
# run the user-space edu driver against /dev/uio0 and the CIF driver.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)

# The kernel: KERNEL, an id of kernel.sh (default 6.12, the target).
kernel=${KERNEL:-6.12}
KERNELS=$kernel "$here/deps.sh" guest
krel=$("$here/kernel.sh" "$kernel")
out=$top/build/$krel
echo "# building our modules and tools for $krel" >&2
"$here/build.sh" "$krel" "$out" >&2
make -s -C "$top/tools/uio" STATIC=1 lsuio examples/edu_uio >&2
"$here/build-qemu.sh" > "$out/qemu-path"
qemu=$(tail -n 1 "$out/qemu-path")

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/bin" "$extra/tests"
cp "$top/tools/uio/lsuio" "$top/tools/uio/examples/edu_uio" "$extra/bin/"
make -s -C "$top/tools/uio/cif" O="$extra/bin" >&2
rm -f "$extra"/bin/*.o "$extra"/bin/*.a
cp "$here/demo-guest.sh" "$extra/tests/demo"
chmod +x "$extra/tests/demo"

EXTRA_ROOT=$extra UIO_MODULES="uio uio_pci_generic uio_cif" \
	"$here/initramfs.sh" "$out" "$out/demo.cpio.gz"
echo "# booting QEMU (TCG) with the edu device and the CIF card" >&2
QEMU_BIN=$qemu UIO_BOOT_TIMEOUT=300 "$here/boot.sh" "$krel" \
	"$out/demo.cpio.gz" "$out/demo.log" -device hilscher-cif,addr=0c.0

sed -n '/^=== BEGIN demo/,/^=== END demo/p' "$out/demo.log" |
	sed '1d;$d' | tr -d '\r'
grep -q '^=== END demo rc=0' "$out/demo.log" || {
	echo "demo failed; full console log: $out/demo.log" >&2
	exit 1
}
