#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the benchmark guest, ROUNDS rounds. Each round starts with the
# interrupt latency of every side, mainline's UIO, ours and VFIO (the
# distribution's vfio-pci, INTx and MSI of the same edu device and MSI-X
# of the same ivshmem-doorbell, signalling an eventfd), in turns by
# blocks, the cores' modules swapped as the blocks need them; then the
# cores of CORES take turns (mainline, ours): load the core and the bench
# stub built for it, bind the edu device (and the big-BAR device, if any)
# to its uio_pci_generic, run the same /bench/uio_bench commands, and
# unload it all again. So drift of the host over the run hits all of them
# alike. RESULT lines go to the console, raw samples to the second serial
# port (/dev/ttyS1) so the console stays readable.
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
. /bench/bench.conf

edu=0000:00:04.0
# A device with a large 32-bit non-prefetchable BAR (qxl), if present.
big=0000:00:05.0
# QEMU's ivshmem-doorbell (MSI-X, no interrupt pin), if present.
ivshmem=0000:00:0e.0
stub=/sys/devices/platform/uio_bench
mkdir -p /tmp/samples
# The same address-space layout for every process of every core: where a
# 1 MiB window lands decides whether its munmap() frees a page table that
# the next mmap() allocates again, which costs more than the two cores
# differ by.
echo 0 > /proc/sys/kernel/randomize_va_space

# The uioN a parent device's UIO child got, as /dev/uioN.
uio_of() {
	for u in "$1"/uio/uio*; do
		[ -e "$u" ] && echo "/dev/${u##*/}" && return 0
	done
	return 1
}

# driver_override binds just this device (to uio_pci_generic unless a
# driver is named); the other edu stays free.
bind() {
	echo "${2:-uio_pci_generic}" > "/sys/bus/pci/devices/$1/driver_override"
	echo "$1" > /sys/bus/pci/drivers_probe
}

unbind() {
	[ -e "/sys/bus/pci/devices/$1/driver" ] &&
		echo "$1" > "/sys/bus/pci/devices/$1/driver/unbind"
	echo > "/sys/bus/pci/devices/$1/driver_override"
}

# The index of the largest map of a UIO device (/dev/uioN).
largest_map() {
	best=-1
	bsize=0
	for m in /sys/class/uio/${1##*/}/maps/map*; do
		[ -e "$m/size" ] || continue
		s=$(($(cat "$m/size")))
		[ "$s" -gt "$bsize" ] && best=${m##*/map} && bsize=$s
	done
	echo "$best"
}

# resource_of <PCI address> <bus address>: the sysfs resource file of the
# BAR that starts there, if one does.
resource_of() {
	_i=0
	while read -r _start _end _flags; do
		if [ $((_start)) -eq $(($2)) ] && [ $((_end)) -gt 0 ]; then
			echo "/sys/bus/pci/devices/$1/resource$_i"
			return
		fi
		_i=$((_i + 1))
	done < "/sys/bus/pci/devices/$1/resource"
}

# The large-BAR mapping benchmark, with the device bound only meanwhile.
# The window loop runs beside the same loop through the BAR's sysfs
# resource file, the control.
bench_bigmap() {
	[ -e "/sys/bus/pci/devices/$big" ] || return 0
	bind "$big"
	if bdev=$(uio_of "/sys/bus/pci/devices/$big"); then
		map=$(largest_map "$bdev")
		echo "# $core: big BAR at $bdev map$map," \
			"size $(cat "/sys/class/uio/${bdev##*/}/maps/map$map/size")"
		taskset -c 1 /bench/uio_bench bigmap "$bdev" "$map" "$BIG_ITERS"
		taskset -c 1 /bench/uio_bench window "$bdev" "$map" "$BIG_ITERS" \
			$(resource_of "$big" \
				"$(cat "/sys/class/uio/${bdev##*/}/maps/map$map/addr")")
	else
		echo "RESULT bigmap status=no-uio-device"
	fi
	unbind "$big"
}

# Ours only (mainline's uio_pci_generic maps no 64-bit BAR): store
# bursts into ivshmem's prefetchable BAR2 through our map of it, which is
# write-combining, against the BAR's sysfs resource2 and resource2_wc.
bench_wc() {
	[ "$core" = ours ] && [ -e "/sys/bus/pci/devices/$ivshmem" ] || return 0
	bind "$ivshmem"
	if wdev=$(uio_of "/sys/bus/pci/devices/$ivshmem"); then
		taskset -c 1 /bench/uio_bench wc "$wdev" "$(largest_map "$wdev")" \
			"/sys/bus/pci/devices/$ivshmem/resource2" "$BIG_ITERS"
	fi
	unbind "$ivshmem"
}

# Steer the interrupt of a parent device's UIO device to CPU 0: its INTx
# or MSI irq, or the MSI-X vector listed in msi_irqs.
steer_irq() {
	irq=$(cat "$1/irq")
	for v in "$1"/msi_irqs/*; do
		[ -e "$v" ] && irq=${v##*/}
	done
	echo 0 > "/proc/irq/$irq/smp_affinity_list" ||
		echo "# cannot steer IRQ $irq to CPU 0"
}

# The core whose uio and uio_pci_generic are loaded, if any.
loaded=

unload_core() {
	[ -n "$loaded" ] || return 0
	rmmod uio_pci_generic
	rmmod uio || echo "=== RMMOD FAILED $loaded uio"
	loaded=
}

# load_core <core>: its uio and uio_pci_generic, in place of another's.
load_core() {
	[ "$loaded" = "$1" ] && return 0
	unload_core
	for m in uio uio_pci_generic; do
		insmod "/bench/$1/$m.ko" || {
			echo "=== INSMOD FAILED $1 $m"
			return 1
		}
	done
	loaded=$1
}

# lat_block <side> <PCI address> <wait> <re-arm> <mode> <n>: one block of
# n latency samples of one side (mainline, ours, vfio, or twin: ours
# again, kept apart) on the device, bound to that side's driver only
# meanwhile, with <mode> (or auto) as our uio_pci_generic's intr_mode.
# The samples are appended to the side's file for the round; the RESULT
# line is the side's. With warm=1, neither is kept.
warm=0
lat_block() {
	name=lat_$3_$4${5:+_$5}
	if [ "$1" = vfio ]; then
		[ "$warm" = 1 ] || echo "=== CORE $1 ROUND $round"
		bind "$2" vfio-pci
		taskset -c 1 /bench/uio_bench lat vfio "$2" "$3" "$4" "$6" \
			/tmp/block "$5"
	else
		c=$1
		[ "$c" = twin ] && c=ours
		load_core "$c" || return 0
		[ "$warm" = 1 ] || echo "=== CORE $1 ROUND $round"
		param=/sys/module/uio_pci_generic/parameters/intr_mode
		[ -e "$param" ] && echo "${5:+$2=}${5:-auto}" > "$param"
		bind "$2"
		if u=$(uio_of "/sys/bus/pci/devices/$2"); then
			steer_irq "/sys/bus/pci/devices/$2"
			taskset -c 1 /bench/uio_bench lat "$u" "$2" "$3" "$4" "$6" \
				/tmp/block ${5:+"$5"}
		else
			echo "=== NO UIO for $2"
		fi
	fi
	unbind "$2"
	[ "$warm" = 0 ] && [ -f /tmp/block ] &&
		cat /tmp/block >> "/tmp/samples/$1.r$round.$name"
	rm -f /tmp/block
	[ "$warm" = 1 ] || echo "=== CORE END $1"
}

# lat_entry <side:re-arm:mode>: its block on lat_group's device and wait.
lat_entry() {
	rest=${1#*:}
	lat_block "${1%%:*}" "$d" "$wait" "${rest%%:*}" "${rest#*:}" \
		$((ITERS / BLOCKS))
}

# lat_group <PCI address> <wait> <side:re-arm:mode>...: BLOCKS blocks of
# ITERS/BLOCKS samples for each entry, the entries taking turns and the
# first of them changing from block to block, so that the drift of the
# guest's speed over the test hits every side alike. A block of the first
# entry runs before them and is not kept: the first block on a device
# after another ran some 5-10% slower (ours with read() on the
# ivshmem-doorbell, after edu), and that block was always ours.
lat_group() {
	d=$1
	wait=$2
	shift 2
	warm=1
	lat_entry "$1"
	warm=0
	b=0
	while [ "$b" -lt "$BLOCKS" ]; do
		for e in "$@"; do
			lat_entry "$e"
		done
		first=$1
		shift
		set -- "$@" "$first"
		b=$((b + 1))
	done
}

# in_cores <core>: is it one of CORES?
in_cores() {
	case " $CORES " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# Interrupt latency, all sides in turns by blocks, swapping the loaded
# core's modules where a block needs the other's: edu's INTx with each
# core's uio_pci_generic, re-armed with write(fd, 1) and in config space,
# and VFIO's re-armed with its unmask ioctl; then our uio_pci_generic with
# an MSI vector (edu in msi mode) and an MSI-X vector (ivshmem-doorbell),
# each beside VFIO's of the same device. A vector of its own needs no
# re-arm: the loop has none, as DPDK's. MSI with read() runs a twin of
# ours too: the spread of ours against itself is the least difference
# the method can tell.
bench_lat() {
	echo "# round $round: latency"
	intx=
	for c in mainline ours; do
		in_cores $c && intx="$intx $c:write: $c:config:"
	done
	vfio_intx=
	vfio_msi=
	vfio_msix=
	if in_cores vfio; then
		vfio_intx=vfio:unmask:intx
		vfio_msi=vfio:none:msi
		vfio_msix=vfio:none:msix
	fi
	for wait in read poll epoll; do
		lat_group "$edu" $wait $intx $vfio_intx
	done
	in_cores ours || return 0
	lat_group "$edu" read ours:none:msi $vfio_msi twin:none:msi
	for wait in poll epoll; do
		lat_group "$edu" $wait ours:none:msi $vfio_msi
	done
	[ -e "/sys/bus/pci/devices/$ivshmem" ] || return 0
	for wait in read poll epoll; do
		lat_group "$ivshmem" $wait ours:none:msix $vfio_msix
	done
}

bench_core() {
	core=$1
	[ "$core" = vfio ] && return
	echo "=== CORE $core ROUND $round"
	load_core "$core" || return
	insmod "/bench/$core/uio_bench_$core.ko" || {
		echo "=== INSMOD FAILED $core uio_bench_$core"
		return
	}
	bind "$edu"
	dev=$(uio_of "/sys/bus/pci/devices/$edu") || echo "=== NO UIO for $edu"
	sdev=$(uio_of "$stub") || echo "=== NO UIO for $stub"
	echo "# $core: edu at $dev, stub at $sdev"
	/bench/uio_bench tput "$sdev" "$stub" "$TPUT_MS" "$TPUT_RUNS"
	taskset -c 1 /bench/uio_bench mem "$dev" "$sdev" /dev/uio_bench "$MEM_ITERS"
	bench_bigmap
	bench_wc

	rmmod "uio_bench_$core"
	unbind "$edu"
	echo "# $core: before rmmod: $(grep '^uio ' /proc/modules)"
	unload_core
	echo "=== CORE END $core"
}

# TRACE=1: where the time of each path goes. function_graph from the
# kernel's entry points for the interrupt and for the loop's syscalls
# around a short latency run per path (ours in INTx mode with both re-arms
# and in MSI mode, VFIO's INTx and MSI), twice: a few depths deep for the
# times (trace.<path> on the raw port), then without a depth limit for
# the calls (calls.<path>), whose own tracing would swamp the times.
trace_run() {
	name=$1
	shift
	t=/sys/kernel/tracing
	for depth in 5 0; do
		echo 0 > $t/tracing_on
		echo $depth > $t/max_graph_depth
		echo > $t/trace
		echo 1 > $t/tracing_on
		taskset -c 1 /bench/uio_bench lat "$1" "$2" "$3" "$4" 100 \
			/tmp/trace.samples ${5:+"$5"}
		echo 0 > $t/tracing_on
		kind=trace
		[ $depth = 0 ] && kind=calls
		cat $t/trace > "/tmp/samples/$kind.$name"
	done
}

trace_paths() {
	t=/sys/kernel/tracing
	mount -t tracefs nodev $t || return 0
	echo function_graph > $t/current_tracer
	echo 1 > $t/options/funcgraph-tail
	echo 32768 > $t/buffer_size_kb
	for m in uio uio_pci_generic; do
		insmod "/bench/ours/$m.ko"
	done
	echo "handle_irq_event irq_thread_fn irq_forced_thread_fn vfs_read vfs_write \
		__x64_sys_ioctl" \
		> $t/set_graph_function
	bind "$edu"
	dev=$(uio_of "/sys/bus/pci/devices/$edu")
	steer_irq "/sys/bus/pci/devices/$edu"
	trace_run ours_intx_write "$dev" "$edu" read write
	trace_run ours_intx_config "$dev" "$edu" read config
	unbind "$edu"
	echo "$edu=msi" > /sys/module/uio_pci_generic/parameters/intr_mode
	bind "$edu"
	dev=$(uio_of "/sys/bus/pci/devices/$edu")
	steer_irq "/sys/bus/pci/devices/$edu"
	trace_run ours_msi "$dev" "$edu" read none msi
	unbind "$edu"
	bind "$edu" vfio-pci
	trace_run vfio_intx vfio "$edu" read unmask intx
	trace_run vfio_msi vfio "$edu" read none msi
	unbind "$edu"
	rmmod uio_pci_generic uio
	echo nop > $t/current_tracer
}

if [ -e "/sys/bus/pci/devices/$big/resource" ]; then
	echo "# big-BAR device $big: $(cat "/sys/bus/pci/devices/$big/vendor")" \
		"$(cat "/sys/bus/pci/devices/$big/device")," \
		"BAR0 (start end flags): $(head -n 1 "/sys/bus/pci/devices/$big/resource")"
fi
if [ -e /bench/vfio/order ]; then
	while read -r m; do
		insmod "/bench/vfio/$m.ko" || echo "=== INSMOD FAILED vfio $m"
	done < /bench/vfio/order
fi
echo "=== BENCH BEGIN"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	bench_lat
	unload_core
	for core in $CORES; do
		bench_core "$core"
	done
	round=$((round + 1))
done
[ "${TRACE:-0}" = 1 ] && trace_paths
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
