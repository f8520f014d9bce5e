#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot a test guest under TCG and capture its serial console:
#   boot.sh <kernel release> <initramfs> <log> [extra QEMU arguments...]
# QEMU_BIN overrides the QEMU binary, KERNEL_IMAGE the kernel (default
# /boot/vmlinuz-<release>), UIO_BOOT_TIMEOUT the wall-clock limit
# in seconds after which the guest is killed and the run counts as failed.
# UIO_MACHINE replaces the machine type (default pc), UIO_KERNEL_ARGS adds
# to the kernel command line, UIO_EARLY_ARGS are QEMU arguments placed
# before the edu devices (an IOMMU must come before the devices it
# translates).
set -eu

krel=$1
initrd=$2
log=$3
shift 3

# boot <log> [extra QEMU arguments...]: one run of the guest.
boot() {
	_log=$1
	shift
	timeout -k 10 "${UIO_BOOT_TIMEOUT:-900}" \
		"${QEMU_BIN:-qemu-system-x86_64}" -M "${UIO_MACHINE:-pc}" -accel tcg -smp 2 \
		-m 1024 -display none -serial stdio -monitor none -no-reboot \
		-kernel "${KERNEL_IMAGE:-/boot/vmlinuz-$krel}" -initrd "$initrd" \
		-append "console=ttyS0 quiet panic=-1 ${UIO_KERNEL_ARGS:-}" \
		${UIO_EARLY_ARGS:-} \
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
