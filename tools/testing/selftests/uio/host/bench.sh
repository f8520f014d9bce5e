#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make bench`: mainline's UIO (the distribution kernel's own uio.ko and
# uio_pci_generic.ko) against ours, one after the other in one QEMU/TCG
# boot with the edu device, same benchmark binary, same bench stub source.
# Writes build/bench/{table.txt,summary.json,latency-cdf.png,samples/}
# (BENCH_OUT chooses another directory).
# Knobs: BENCH_ITERS (latency samples per test, default 10000),
# BENCH_TPUT_MS, BENCH_TPUT_RUNS, BENCH_MEM_ITERS, BENCH_CORES, and
# BENCH_NICE (default -10): the nice value QEMU runs at, so background load
# on the host disturbs the two phases less; 0 leaves it alone.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
src=$top/tools/testing/selftests/uio/bench
start=$(date +%s)

# The kernel: BENCH_KERNEL, an id of kernel.sh (default 6.12).
kernel=${BENCH_KERNEL:-6.12}
KERNELS=$kernel "$here/deps.sh" guest bench
krel=$("$here/kernel.sh" "$kernel")
kdir=/usr/src/linux-headers-$krel
ours=$top/build/$krel
out=${BENCH_OUT:-$top/build/bench}
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "# building our modules for $krel" >&2
"$here/build.sh" "$krel" "$ours" >&2

rm -rf "$out"
mkdir -p "$out/root/bench/mainline" "$out/root/bench/ours"

# The stub, once per core, each under its own module name.
for core in mainline ours; do
	mkdir -p "$out/src/$core"
	cp "$src/uio_bench_stub.c" "$src/Kbuild" "$out/src/$core/"
done
echo "# building the bench stub for both cores" >&2
make -s -C "$kdir" M="$out/src/mainline" W=1 UIO_BENCH_CORE=mainline \
	modules >&2
make -s -C "$kdir" M="$out/src/ours" W=1 UIO_BENCH_CORE=ours \
	UIO_BENCH_INCLUDE="$top/include" \
	KBUILD_EXTRA_SYMBOLS="$ours/src/drivers/uio/Module.symvers" modules >&2

# Mainline's core and PCI stub exactly as the distribution ships them.
for m in uio uio_pci_generic; do
	ko=/lib/modules/$krel/kernel/drivers/uio/$m.ko
	if [ -f "$ko" ]; then
		cp "$ko" "$out/root/bench/mainline/"
	elif [ -f "$ko.xz" ]; then
		xz -dc "$ko.xz" > "$out/root/bench/mainline/$m.ko"
	else
		echo "bench: no $ko(.xz) in $krel" >&2
		exit 1
	fi
	cp "$ours/modules/$m.ko" "$out/root/bench/ours/"
done
cp "$out/src/mainline/uio_bench_mainline.ko" "$out/root/bench/mainline/"
cp "$out/src/ours/uio_bench_ours.ko" "$out/root/bench/ours/"

gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$out/root/bench/uio_bench" \
	"$src/uio_bench.c"
cat > "$out/root/bench/bench.conf" <<CONF
ITERS=${BENCH_ITERS:-10000}
TPUT_MS=${BENCH_TPUT_MS:-2000}
TPUT_RUNS=${BENCH_TPUT_RUNS:-3}
MEM_ITERS=${BENCH_MEM_ITERS:-20000}
CORES="${BENCH_CORES:-mainline ours}"
CONF

GUEST_INIT=$here/bench-init.sh EXTRA_ROOT=$out/root UIO_MODULES=" " \
	"$here/initramfs.sh" "$ours" "$out/bench.cpio.gz"
# TCG latencies are host scheduling latencies too: keep QEMU ahead of
# whatever else the host runs during the few minutes of the run.
cat > "$out/qemu-nice" <<WRAP
#!/bin/sh
exec nice -n ${BENCH_NICE:--10} ${QEMU_BIN:-qemu-system-x86_64} "\$@"
WRAP
chmod +x "$out/qemu-nice"
echo "# booting QEMU (TCG): mainline's UIO, then ours" >&2
QEMU_BIN=$out/qemu-nice UIO_BOOT_TIMEOUT=${UIO_BOOT_TIMEOUT:-900} \
	"$here/boot.sh" "$krel" "$out/bench.cpio.gz" "$out/guest.log" \
	-chardev file,id=raw,path="$out/raw.txt" \
	-device isa-serial,chardev=raw

python3 "$here/bench-report.py" "$out" "$krel" "$(($(date +%s) - start))"
