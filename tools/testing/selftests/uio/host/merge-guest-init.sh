#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of merge-check.sh's debug-kernel guest: like guest-init.sh, plus
# kmemleak. Leaks found before our modules load are the kernel's own and
# are cleared; after the tests the modules are unloaded, kmemleak scans
# twice and prints what it found, so any leak of ours shows up in the log.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
echo 0 > /proc/sys/kernel/printk_ratelimit 2>/dev/null
leaks=/sys/kernel/debug/kmemleak

[ -w $leaks ] || echo "=== INSMOD FAILED kmemleak is not available"
echo scan > $leaks
echo clear > $leaks

for m in uio uio_pci_generic uio_cif uio_test_mod; do
	[ -f "/modules/$m.ko" ] || continue
	insmod "/modules/$m.ko" || echo "=== INSMOD FAILED $m"
done
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x1234 ] && [ "$(cat "$d/device")" = 0x11e8 ]; then
		echo "1234 11e8" > /sys/bus/pci/drivers/uio_pci_generic/new_id
		break
	fi
done

cd /tests
for t in *; do
	[ -x "$t" ] || continue
	echo "=== BEGIN $t"
	./"$t" 2>&1
	echo "=== END $t rc=$?"
done
cd /

for m in uio_test_mod uio_cif uio_pci_generic uio; do
	[ -d "/sys/module/$m" ] || continue
	rmmod "$m" || echo "=== RMMOD FAILED $m"
done
# kmemleak ignores objects younger than 5 s, and one whose contents
# changed since the previous scan waits for the next: scan twice.
sleep 6
echo scan > $leaks
echo scan > $leaks
echo "=== KMEMLEAK BEGIN"
cat $leaks
echo "=== KMEMLEAK END"
echo "=== DMESG BEGIN"
dmesg
echo "=== DMESG END"
poweroff -f
