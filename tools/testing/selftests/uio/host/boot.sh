#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot a test guest under TCG and capture its serial console:
#   boot.sh <kernel release> <initramfs> <log> [extra QEMU arguments...]
# QEMU_BIN overrides the QEMU binary, KERNEL_IMAGE the kernel (default
# /boot/vmlinuz-<release>), UIO_BOOT_TIMEOUT the wall-clock limit
# in seconds after which the guest is killed and the run counts as failed.
set -eu

krel=$1
initrd=$2
log=$3
shift 3

timeout -k 10 "${UIO_BOOT_TIMEOUT:-900}" \
	"${QEMU_BIN:-qemu-system-x86_64}" -M pc -accel tcg -smp 2 -m 1024 \
	-display none -serial stdio -monitor none -no-reboot \
	-kernel "${KERNEL_IMAGE:-/boot/vmlinuz-$krel}" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic=-1" \
	-device edu,addr=04.0 -device edu,addr=08.0 "$@" < /dev/null > "$log" 2>&1 || {
	rc=$?
	echo "=== QEMU EXIT rc=$rc" >> "$log"
}
