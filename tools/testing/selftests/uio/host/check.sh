#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make check`: the host-side tests (libuio and lsuio against fake sysfs
# trees, the howto's examples, the CIF model under qtest), then for each kernel flavour: build our modules and the tests,
# boot our QEMU with two edu devices and the CIF card, report.
#   check.sh [stock] [rt]       (default: both)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
flavours=${*:-stock rt}
tools=$top/tools/uio

"$here/deps.sh"
mkdir -p "$top/build"
logs=

# Our QEMU: Debian's, plus the Hilscher CIF card model (cached build).
qemu=$("$here/build-qemu.sh" | tail -n 1)
echo "# host: the CIF model's registers under qtest" >&2
python3 "$here/cif-qtest.py" "$qemu" > "$top/build/cif-qtest.tap" 2>&1 || true
logs="$logs tap:cif-qtest=$top/build/cif-qtest.tap"

echo "# host: libuio and lsuio" >&2
make -s -C "$tools" test > "$top/build/libuio-host.tap" 2>&1 || true
logs="$logs tap:libuio-host=$top/build/libuio-host.tap"

echo "# host: the howto's examples compile" >&2
"$here/howto-check.sh" > "$top/build/howto.tap" 2>&1 || true
logs="$logs tap:howto=$top/build/howto.tap"

# The user-space tools run in the guest: lsuio and the example in /sbin.
make -s -C "$tools" STATIC=1 lsuio examples/edu_uio tests/guest_libuio_test >&2
extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/sbin" "$extra/tests"
cp "$tools/lsuio" "$tools/examples/edu_uio" "$extra/sbin/"
cp "$tools/tests/guest_libuio_test" "$extra/tests/"

for fl in $flavours; do
	krel=$("$here/kernel.sh" "$fl")
	out=$top/build/$krel
	echo "# $fl kernel $krel: building" >&2
	"$here/build.sh" "$krel" "$out" >&2
	EXTRA_ROOT=$extra "$here/initramfs.sh" "$out" \
		"$out/initramfs.cpio.gz" uio_core_test uio_pci_generic_test \
		cif_test uio_stress_test uio_fuzz_test
	echo "# $fl kernel $krel: booting" >&2
	# Slot 0c shares the edus' interrupt line on the pc machine.
	QEMU_BIN=$qemu "$here/boot.sh" "$krel" "$out/initramfs.cpio.gz" \
		"$out/guest.log" -device hilscher-cif,addr=0c.0,cycle-us=2000
	logs="$logs $fl=$out/guest.log"
done
exec python3 "$here/report.py" $logs
