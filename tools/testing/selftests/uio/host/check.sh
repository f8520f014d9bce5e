#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make check`: the host-side tests (the harness's own setup failures,
# libuio and lsuio against fake sysfs trees, the howto's examples, the CIF
# model under qtest), then for each kernel: build our modules and the
# tests, boot our QEMU with two edu devices, the CIF card, VGA and an
# ivshmem-doorbell served by ivshmem-server.py, boot it again with
# mainline's uio.ko for the TCMU comparison (tcmu.sh), boot the DMA buffer
# test once more on a q35 machine behind intel-iommu, report.
#   check.sh [ID...]     kernel ids of kernel.sh (default: $KERNELS, or all)
#
# QEMU_BIN replaces our QEMU build (the CIF tests then need its model).
# A setup step that fails stops the run: its message is the last line and
# the exit status is non-zero.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
kernels=${*:-${KERNELS:-$("$here/kernel.sh" --list)}}
tools=$top/tools/uio

fail() {
	echo "check: setup failed: $*" >&2
	exit 1
}

# setup <step> <command...>: run a setup step; stop the run if it fails.
setup() {
	_step=$1
	shift
	"$@" || fail "$_step (exit $?)"
}

export KERNELS="$kernels"
setup "install packages (deps.sh guest)" "$here/deps.sh" guest
mkdir -p "$top/build"
logs=

# Our QEMU: Debian's, plus the Hilscher CIF card model (cached build).
if [ -n "${QEMU_BIN:-}" ]; then
	qemu=$QEMU_BIN
else
	setup "build QEMU (build-qemu.sh)" \
		sh -c '"$1" > "$2"' - "$here/build-qemu.sh" "$top/build/qemu-path"
	qemu=$(tail -n 1 "$top/build/qemu-path")
fi
[ -x "$qemu" ] || fail "QEMU binary '$qemu' is not an executable file"
# The IOMMU boot: our trimmed QEMU has no intel-iommu, Debian's has.
iommu_qemu=${UIO_IOMMU_QEMU:-/usr/bin/qemu-system-x86_64}
[ -x "$iommu_qemu" ] ||
	fail "QEMU for the IOMMU boot '$iommu_qemu' is not an executable file"

for k in $kernels; do
	setup "kernel $k is installed (kernel.sh $k)" "$here/kernel.sh" "$k" > /dev/null
done

echo "# host: the harness's setup failures" >&2
"$here/setup-test.sh" > "$top/build/setup-test.tap" 2>&1 || true
logs="$logs tap:setup=$top/build/setup-test.tap"

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
setup "build the user-space tools" make -s -C "$tools" STATIC=1 lsuio \
	examples/edu_uio examples/edu_dma tests/guest_libuio_test >&2
extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
mkdir -p "$extra/sbin" "$extra/tests" "$extra/iommu/etc"
echo UIO_EXPECT_IOMMU=1 > "$extra/iommu/etc/uio-guest.sh"
cp "$tools/lsuio" "$tools/examples/edu_uio" "$tools/examples/edu_dma" \
	"$extra/sbin/"
cp "$tools/tests/guest_libuio_test" "$extra/tests/"

for k in $kernels; do
	krel=$("$here/kernel.sh" "$k")
	out=$top/build/$krel
	echo "# kernel $k ($krel): building" >&2
	setup "kernel $k: build our modules and tests (build.sh $krel)" \
		"$here/build.sh" "$krel" "$out" >&2
	# TCMU and Debian's tcmu-runner: over our core in the suite's boot,
	# over Debian's uio.ko and target_core_user.ko in a boot of its own.
	for f in ours mainline; do
		rm -rf "$out/tcmu-$f"
		setup "kernel $k: the TCMU test's files (tcmu.sh $f)" \
			"$here/tcmu.sh" "$krel" "$out" "$f" "$out/tcmu-$f" >&2
	done
	rm -rf "$out/pdrv"
	setup "kernel $k: the kernel's platform UIO drivers (pdrv.sh)" \
		"$here/pdrv.sh" "$krel" "$out" "$out/pdrv" >&2
	setup "kernel $k: pack the initramfs" \
		env EXTRA_ROOT="$extra $out/tcmu-ours $out/pdrv" \
		"$here/initramfs.sh" "$out" "$out/initramfs.cpio.gz" \
		uio_core_test uio_pci_generic_test uio_pci_generic_msi_test uio_dma_test \
		cif_test uio_stress_test uio_fuzz_test uio_pdrv_test tcmu_test.sh
	setup "kernel $k: pack the IOMMU initramfs" \
		env EXTRA_ROOT="$extra/iommu" UIO_MODULES="uio uio_pci_generic" \
		"$here/initramfs.sh" "$out" "$out/iommu.cpio.gz" uio_dma_test
	setup "kernel $k: pack the mainline TCMU initramfs" \
		env EXTRA_ROOT="$out/tcmu-mainline" UIO_MODULES=" " \
		"$here/initramfs.sh" "$out" "$out/tcmu-mainline.cpio.gz" \
		tcmu_test.sh
	echo "# kernel $k ($krel): booting" >&2
	# Slot 0c shares the edus' interrupt line on the pc machine.
	setup "kernel $k: boot the suite (with-ivshmem.sh, boot.sh)" \
		env QEMU_BIN="$qemu" "$here/with-ivshmem.sh" "$out/ivshmem.sock" \
		"$here/boot.sh" "$krel" "$out/initramfs.cpio.gz" \
		"$out/guest.log" -device hilscher-cif,addr=0c.0,cycle-us=2000 \
		-device VGA,vgamem_mb=64,addr=10.0
	echo "# kernel $k ($krel): booting mainline's uio.ko for TCMU" >&2
	QEMU_BIN=$qemu "$here/boot.sh" "$krel" "$out/tcmu-mainline.cpio.gz" \
		"$out/tcmu-mainline.log"
	echo "# kernel $k ($krel): booting behind intel-iommu" >&2
	UIO_MACHINE=q35 UIO_EARLY_ARGS="-device intel-iommu,intremap=off" \
		UIO_KERNEL_ARGS=intel_iommu=on QEMU_BIN=$iommu_qemu \
		"$here/boot.sh" "$krel" "$out/iommu.cpio.gz" "$out/iommu.log"
	logs="$logs $k=$out/guest.log $k-mainline=$out/tcmu-mainline.log"
	logs="$logs $k-iommu=$out/iommu.log"
done

# One line per kernel: TCMU with tcmu-runner on mainline's core and ours.
verdict() {
	grep -q '^=== END tcmu_test.sh rc=0' "$1" && echo pass || echo fail
}
for k in $kernels; do
	out=$top/build/$("$here/kernel.sh" "$k")
	echo "# TCMU on $k: mainline $(verdict "$out/tcmu-mainline.log")," \
		"ours $(verdict "$out/guest.log")" >&2
done
exec python3 "$here/report.py" $logs
