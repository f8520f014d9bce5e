#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the benchmark guest: for each UIO core in turn (mainline's
# modules from the distribution kernel, then ours), load the core, bind the
# first edu device to its uio_pci_generic, load the bench stub built for
# that core, run the same /bench/uio_bench commands, and unload it all
# again. RESULT lines go to the console, raw samples to the second serial
# port (/dev/ttyS1) so the console stays readable.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
. /bench/bench.conf

edu=0000:00:04.0
stub=/sys/devices/platform/uio_bench
mkdir -p /tmp/samples

# The uioN a parent device's UIO child got, as /dev/uioN.
uio_of() {
	for u in "$1"/uio/uio*; do
		[ -e "$u" ] && echo "/dev/${u##*/}" && return 0
	done
	return 1
}

bench_core() {
	core=$1
	echo "=== CORE $core"
	for m in uio uio_pci_generic "uio_bench_$core"; do
		insmod "/bench/$core/$m.ko" || { echo "=== INSMOD FAILED $core $m"; return; }
		[ "$m" = uio_pci_generic ] || continue
		# driver_override binds this one device; the other edu stays free.
		echo uio_pci_generic > "/sys/bus/pci/devices/$edu/driver_override"
		echo "$edu" > /sys/bus/pci/drivers_probe
	done
	dev=$(uio_of "/sys/bus/pci/devices/$edu") || echo "=== NO UIO for $edu"
	sdev=$(uio_of "$stub") || echo "=== NO UIO for $stub"
	echo "# $core: edu at $dev, stub at $sdev"
	# The interrupt lands on CPU 0, the waiting task sleeps on CPU 1: every
	# sample takes the full hard-IRQ -> remote wakeup path, for both cores.
	irq=$(cat "/sys/bus/pci/devices/$edu/irq")
	echo 0 > "/proc/irq/$irq/smp_affinity_list" ||
		echo "# cannot steer IRQ $irq to CPU 0"

	for wait in read poll epoll; do
		for how in write config; do
			taskset -c 1 /bench/uio_bench lat "$dev" "$edu" $wait $how "$ITERS" \
				"/tmp/samples/$core.lat_${wait}_$how"
		done
	done
	/bench/uio_bench tput "$sdev" "$stub" "$TPUT_MS" "$TPUT_RUNS"
	taskset -c 1 /bench/uio_bench mem "$dev" "$sdev" /dev/uio_bench "$MEM_ITERS"

	rmmod "uio_bench_$core"
	echo "$edu" > /sys/bus/pci/drivers/uio_pci_generic/unbind
	echo > "/sys/bus/pci/devices/$edu/driver_override"
	rmmod uio_pci_generic
	echo "# $core: before rmmod: $(grep '^uio ' /proc/modules)"
	rmmod uio
	echo "=== CORE END $core"
}

echo "=== BENCH BEGIN"
for core in $CORES; do
	bench_core "$core"
done
echo "=== BENCH END"

stty -F /dev/ttyS1 raw 2>/dev/null
{
	for f in /tmp/samples/*; do
		[ -f "$f" ] || continue
		echo "=== FILE ${f##*/}"
		cat "$f"
	done
	echo "=== RAW END"
} > /dev/ttyS1
echo "=== DMESG BEGIN"
dmesg
echo "=== DMESG END"
poweroff -f
