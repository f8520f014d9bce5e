#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of every test guest: load our modules (never the distribution's
# uio.ko, which is not even in the image; only the TCMU comparison's image
# holds it, for tcmu_test.sh to load), bind the test devices, run every
# test binary in /tests with markers the host parses, unload the modules,
# dump the kernel log, power off.
#
# A run may add /etc/uio-guest.sh (through initramfs.sh's EXTRA_ROOT): its
# variables are exported to the tests, and it may redefine the hooks
# before_tests and after_tests, e.g. to scan for leaks with kmemleak.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
echo 0 > /proc/sys/kernel/printk_ratelimit 2>/dev/null

before_tests() { :; }
after_tests() { :; }
if [ -f /etc/uio-guest.sh ]; then
	set -a
	. /etc/uio-guest.sh
	set +a
fi

load() {
	[ -f "/modules/$1.ko" ] || return 0
	insmod "/modules/$1.ko" || echo "=== INSMOD FAILED $1"
}

before_tests
# The edu devices first, so the first of them is /dev/uio0.
load uio
load uio_pci_generic
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x1234 ] && [ "$(cat "$d/device")" = 0x11e8 ]; then
		echo "1234 11e8" > /sys/bus/pci/drivers/uio_pci_generic/new_id
		break
	fi
done
load uio_cif
load uio_test_mod

cd /tests
for t in *; do
	[ -x "$t" ] || continue
	echo "=== BEGIN $t"
	./"$t" 2>&1
	echo "=== END $t rc=$?"
done
cd /
# Every reference must be gone: unload in reverse order.
for m in uio_test_mod uio_cif uio_pci_generic uio; do
	grep -q "^$m " /proc/modules || continue
	rmmod "$m" || echo "=== RMMOD FAILED $m"
done
after_tests
echo "=== DMESG BEGIN"
dmesg
echo "=== DMESG END"
poweroff -f
