# SPDX-License-Identifier: GPL-2.0
#
# UIO, the Userspace I/O driver framework: build, test and demo entry points.
# Every target installs the Debian packages it needs when they are missing.

SELFTESTS := tools/testing/selftests/uio
HOST      := $(SELFTESTS)/host

# The guest suite's kernels (ids of host/kernel.sh); every one by default.
KERNELS ?= 6.12 6.12-rt 6.1 6.1-rt
export KERNELS

.PHONY: all check demo clean fresh-check

all:
	KERNELS=6.12 $(HOST)/deps.sh guest
	$(HOST)/build.sh $$($(HOST)/kernel.sh 6.12) build/$$($(HOST)/kernel.sh 6.12)

# Host-side tests, then the guest suite on each kernel of $(KERNELS).
check:
	$(HOST)/check.sh $(KERNELS)

# The README on a fresh machine: a minimal bookworm root made with
# debootstrap, a clone of the committed tree, `make $(TARGETS)` inside.
TARGETS ?= check
fresh-check:
	TARGETS="$(TARGETS)" $(HOST)/fresh-check.sh

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

# Mainline's UIO and VFIO against ours, one QEMU boot per kernel of
# BENCH_KERNELS (default "6.12 6.12-rt 6.1 6.1-rt"), cores in turns: IRQ
# latency and round trip per interrupt mode, event throughput, mmap
# against copy, mapping a 256 MiB BAR; build/bench/.
.PHONY: bench
bench:
	$(HOST)/bench.sh

# The upstream series against Linux 6.12 (git format-patch, with a cover
# letter) from host/series; build/patches/.
.PHONY: patches
patches:
	$(HOST)/deps.sh merge
	$(HOST)/patches.sh

# Merge UIO into a Linux 6.1 tree without its old UIO: build, compile 6.1's
# UIO users, run the suite on a debug kernel, checkpatch/sparse/W=1.
.PHONY: merge-check
merge-check:
	$(HOST)/merge-check.sh
