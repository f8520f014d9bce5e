#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make bench`: mainline's UIO (the distribution kernel's own uio.ko and
# uio_pci_generic.ko) and the distribution's vfio-pci against ours, on the
# same kernel: one QEMU/TCG boot per kernel of BENCH_KERNELS (ids of
# kernel.sh, default "6.12 6.12-rt 6.1 6.1-rt"; BENCH_KERNEL=ID alone runs
# one), a q35 machine with an Intel IOMMU doing interrupt remapping (what
# a type1v2 VFIO container needs), with the edu device and a qxl
# device whose 256 MiB BAR0 mainline's uio_pci_generic exposes too, and
# an ivshmem-doorbell (ivshmem-server.py) for the MSI-X latency of ours
# and VFIO. In each boot, BENCH_ROUNDS rounds, same benchmark binary,
# same bench stub source: each round starts with the interrupt latency,
# every test in BENCH_BLOCKS blocks that take turns, mainline's, ours,
# VFIO's and, for MSI with read(), a twin of ours, whose ratio to ours is
# the spread of the method itself (the A/A row), the cores' modules
# swapped as the blocks need them; then the cores take turns (mainline,
# ours) for the rest.
# Writes build/bench/{table.txt,summary.json} and per kernel
# build/bench/<id>/{guest.log,raw.txt,latency-cdf.png,samples/}
# (BENCH_OUT chooses another directory).
# Knobs: BENCH_ROUNDS (default 5), per round BENCH_ITERS (latency samples
# per test, default 2000), BENCH_BLOCKS (default 4), BENCH_TPUT_MS,
# BENCH_TPUT_RUNS, BENCH_MEM_ITERS, BENCH_BIG_ITERS (maps of the big BAR),
# BENCH_CORES, BENCH_TRACE=1 (function_graph traces per interrupt path
# after the rounds: times per event a few calls deep, and the calls per
# event at every depth, ours against VFIO's; slows the run), and BENCH_NICE
# (default -10): the nice value QEMU runs at, so background load on the
# host disturbs the phases less; 0 leaves it alone. BENCH_QEMU is the QEMU
# binary (default Debian's, which has qxl; ours is built without it).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
src=$top/tools/testing/selftests/uio/bench
start=$(date +%s)

kernels=${BENCH_KERNELS:-${BENCH_KERNEL:-6.12 6.12-rt 6.1 6.1-rt}}
qemu=${BENCH_QEMU:-/usr/bin/qemu-system-x86_64}
KERNELS=$kernels "$here/deps.sh" guest bench
out=${BENCH_OUT:-$top/build/bench}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out"
mkdir -p "$out"
"$qemu" -device help 2>/dev/null | grep -q '"qxl"' ||
	echo "# $qemu has no qxl device: no large-BAR benchmark" >&2

# One kernel: build both sides for it, boot it, leave the logs in $kout.
bench_kernel() {
	kid=$1
	krel=$("$here/kernel.sh" "$kid")
	kdir=/usr/src/linux-headers-$krel
	ours=$top/build/$krel
	kout=$out/$kid
	mkdir -p "$kout/root/bench/mainline" "$kout/root/bench/ours"
	echo "$krel" > "$kout/release"
	echo "# $kid: building our modules for $krel" >&2
	"$here/build.sh" "$krel" "$ours" >&2

	# The stub, once per core, each under its own module name.
	for core in mainline ours; do
		mkdir -p "$kout/src/$core"
		cp "$src/uio_bench_stub.c" "$src/Kbuild" "$kout/src/$core/"
	done
	echo "# $kid: building the bench stub for both cores" >&2
	make -s -C "$kdir" M="$kout/src/mainline" W=1 UIO_BENCH_CORE=mainline \
		modules >&2
	make -s -C "$kdir" M="$kout/src/ours" W=1 UIO_BENCH_CORE=ours \
		UIO_BENCH_INCLUDE="$top/include" \
		KBUILD_EXTRA_SYMBOLS="$ours/src/drivers/uio/Module.symvers" \
		modules >&2

	# Mainline's core and PCI stub exactly as the distribution ships them.
	for m in uio uio_pci_generic; do
		ko=/lib/modules/$krel/kernel/drivers/uio/$m.ko
		if [ -f "$ko" ]; then
			cp "$ko" "$kout/root/bench/mainline/"
		elif [ -f "$ko.xz" ]; then
			xz -dc "$ko.xz" > "$kout/root/bench/mainline/$m.ko"
		else
			echo "bench: no $ko(.xz) in $krel" >&2
			exit 1
		fi
		cp "$ours/modules/$m.ko" "$kout/root/bench/ours/"
	done
	# VFIO as the distribution ships it, in load order; vfio_virqfd is a
	# module of its own before 6.2.
	mkdir -p "$kout/root/bench/vfio"
	for m in irqbypass vfio vfio_virqfd vfio_iommu_type1 vfio-pci-core \
		vfio-pci; do
		ko=$(find "/lib/modules/$krel/kernel" -name "$m.ko" -o \
			-name "$m.ko.xz" | head -n 1)
		[ -n "$ko" ] || continue
		case $ko in
		*.xz) xz -dc "$ko" > "$kout/root/bench/vfio/$m.ko" ;;
		*) cp "$ko" "$kout/root/bench/vfio/" ;;
		esac
		echo "$m" >> "$kout/root/bench/vfio/order"
	done
	cp "$kout/src/mainline/uio_bench_mainline.ko" "$kout/root/bench/mainline/"
	cp "$kout/src/ours/uio_bench_ours.ko" "$kout/root/bench/ours/"
	cp "$out/uio_bench" "$kout/root/bench/"
	cat > "$kout/root/bench/bench.conf" <<CONF
ROUNDS=${BENCH_ROUNDS:-5}
ITERS=${BENCH_ITERS:-2000}
TPUT_MS=${BENCH_TPUT_MS:-500}
TPUT_RUNS=${BENCH_TPUT_RUNS:-1}
MEM_ITERS=${BENCH_MEM_ITERS:-5000}
BIG_ITERS=${BENCH_BIG_ITERS:-8}
BLOCKS=${BENCH_BLOCKS:-4}
CORES="${BENCH_CORES:-mainline ours vfio}"
TRACE=${BENCH_TRACE:-0}
CONF

	GUEST_INIT=$here/bench-init.sh EXTRA_ROOT=$kout/root UIO_MODULES=" " \
		"$here/initramfs.sh" "$ours" "$kout/bench.cpio.gz"
	echo "# $kid: booting QEMU (TCG), mainline's UIO and ours in turns" >&2
	python3 "$here/ivshmem-server.py" "$kout/ivshmem.sock" &
	ivshmem_pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -S "$kout/ivshmem.sock" ] && break
		sleep 0.5
	done
	# The raw samples (megabytes) leave through the second 8250 port; on
	# the RT kernels its threaded handler sees most of that many TX
	# interrupts already served, and the spurious-IRQ check would disable
	# the line mid-dump ("irq 3: nobody cared") and stall it.
	QEMU_BIN=$out/qemu-nice UIO_MACHINE=q35 \
		UIO_EARLY_ARGS="-device intel-iommu,intremap=on" \
		UIO_KERNEL_ARGS="intel_iommu=on noirqdebug" \
		UIO_BOOT_TIMEOUT=${UIO_BOOT_TIMEOUT:-1500} \
		"$here/boot.sh" "$krel" "$kout/bench.cpio.gz" "$kout/guest.log" \
		-chardev file,id=raw,path="$kout/raw.txt" \
		-device isa-serial,chardev=raw \
		-device qxl,ram_size_mb=256,addr=05.0 \
		-chardev socket,path="$kout/ivshmem.sock",id=ivshmem \
		-device ivshmem-doorbell,chardev=ivshmem,vectors=1,ioeventfd=off,addr=0e.0
	kill "$ivshmem_pid"
	wait "$ivshmem_pid" 2>/dev/null || true
	rm -rf "$kout/root" "$kout/src"
}

gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$out/uio_bench" \
	"$src/uio_bench.c"
# TCG latencies are host scheduling latencies too: keep QEMU ahead of
# whatever else the host runs during the minutes of the run.
cat > "$out/qemu-nice" <<WRAP
#!/bin/sh
exec nice -n ${BENCH_NICE:--10} $qemu "\$@"
WRAP
chmod +x "$out/qemu-nice"
for kid in $kernels; do
	bench_kernel "$kid"
done

python3 "$here/bench-report.py" "$out" "$(($(date +%s) - start))" $kernels
