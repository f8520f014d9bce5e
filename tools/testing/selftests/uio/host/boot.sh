#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot a test guest under TCG and capture its serial console:
#   boot.sh <kernel release> <initramfs> <log> [extra QEMU arguments...]
# QEMU_BIN overrides the QEMU binary, KERNEL_IMAGE the kernel (default
# /boot/vmlinuz-<release>), UIO_BOOT_TIMEOUT the wall-clock limit
# in seconds after which the guest is killed and the run counts as failed.
# UIO_BOOT_IOMMU=1 boots a q35 machine with an Intel IOMMU doing interrupt
# remapping (what VFIO's type1 containers need) instead of the pc machine.
# UIO_BOOT_APPEND adds to the guest's command line.
set -eu

krel=$1
initrd=$2
log=$3
shift 3

machine="-M pc"
append=${UIO_BOOT_APPEND:+ $UIO_BOOT_APPEND}
if [ "${UIO_BOOT_IOMMU:-0}" = 1 ]; then
	machine="-M q35 -device intel-iommu,intremap=on"
	append="$append intel_iommu=on"
fi

# boot <log> [extra QEMU arguments...]: one run of the guest.
boot() {
	_log=$1
	shift
	timeout -k 10 "${UIO_BOOT_TIMEOUT:-900}" \
		"${QEMU_BIN:-qemu-system-x86_64}" $machine -accel tcg -smp 2 \
		-m 1024 -display none -serial stdio -monitor none -no-reboot \
		-kernel "${KERNEL_IMAGE:-/boot/vmlinuz-$krel}" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1$append" \
		-device edu,addr=04.0 -device edu,addr=08.0 "$@" \
		< /dev/null > "$_log" 2>&1 || {
		rc=$?
		echo "=== QEMU EXIT rc=$rc" >> "$_log"
	}
}

# Multi-threaded TCG now and then runs a stale translation of code the
# guest kernel is patching (jump labels, alternatives) and executes the
# int3 that text_poke_bp() had already removed: "Oops: int3", seen on
# Debian's 6.12-rt kernel during boot, before any of our code is loaded.
# That is the emulator, not the guest: boot once more and keep the first
# log beside the second. Any other Oops counts as it is.
boot "$log" "$@"
if grep -q '\] Oops: int3:' "$log"; then
	mv "$log" "$log.int3"
	echo "# boot.sh: TCG int3 race in $log.int3, booting again" >&2
	boot "$log" "$@"
fi
