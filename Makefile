# SPDX-License-Identifier: GPL-2.0
#
# UIO, the Userspace I/O driver framework: build, test and demo entry points.
# Every target installs the Debian packages it needs when they are missing.

SELFTESTS := tools/testing/selftests/uio
HOST      := $(SELFTESTS)/host

.PHONY: all check check-stock check-rt demo clean

all:
	$(HOST)/deps.sh
	$(HOST)/build.sh $$($(HOST)/kernel.sh stock) build/$$($(HOST)/kernel.sh stock)

# Host-side tests, then the guest suite on Debian's stock and RT kernels.
check:
	$(HOST)/check.sh stock rt

check-stock:
	$(HOST)/check.sh stock

check-rt:
	$(HOST)/check.sh rt

# Reliability run (long mode): unplug under load, module lifetime, races,
# event storms, the shared line and the ABI fuzzer; see host/stress.sh.
.PHONY: stress
stress:
	$(HOST)/stress.sh long

# Boot QEMU with the edu device and drive it from user space via /dev/uio0.
demo:
	$(HOST)/demo.sh

clean:
	rm -rf build

# Mainline's UIO against ours in one QEMU boot: IRQ latency, event
# throughput, mmap against copy; results in build/bench/.
.PHONY: bench
bench:
	$(HOST)/bench.sh

# Merge UIO into a Linux 6.1 tree without its old UIO: build, compile 6.1's
# UIO users, run the suite on a debug kernel, checkpatch/sparse/W=1.
.PHONY: merge-check
merge-check:
	$(HOST)/merge-check.sh
