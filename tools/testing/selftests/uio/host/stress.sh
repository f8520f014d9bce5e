#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reliability run of the UIO core in QEMU: unplug under load, module
# lifetime, open/mmap races, event storms, the shared line and the ABI
# fuzzer, with the kernel log checked for sanitizer/lockdep/hung-task/
# kmemleak reports:
#   stress.sh [short|long] [VAR=value...]
# VAR=value pairs reach the guest programs' environment (UIO_STRESS_*,
# UIO_FUZZ_*; see uio_stress_test.c and uio_fuzz_test.c). The kernel:
# UIO_STRESS_KERNEL=debug (debug-kernel.sh: KASAN, lockdep, kmemleak),
# a kernel id of kernel.sh (6.12, 6.12-rt, 6.1, 6.1-rt), a release
# with headers, or the path of a debug bzImage already built (modules/
# beside it); by default debug when debug-kernel.sh exists, else 6.12.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
mode=${1:-long}
[ $# -gt 0 ] && shift
case "$mode" in
short)	limit=1200 ;;
long)	limit=7200 ;;
*)	echo "usage: $0 [short|long] [VAR=value...]" >&2; exit 1 ;;
esac

# auto: the debug kernel when its script exists (building it if needed).
kernel=${UIO_STRESS_KERNEL:-auto}
if [ "$kernel" = auto ]; then
	kernel=6.12
	[ -x "$here/debug-kernel.sh" ] && kernel=debug
fi
case "$kernel" in
debug|/*)	KERNELS=6.12 "$here/deps.sh" guest merge ;;
*)		KERNELS=$kernel "$here/deps.sh" guest ;;
esac
image=
case "$kernel" in
debug)
	image=$("$here/debug-kernel.sh" | sed -n 1p)
	[ -f "$image" ] || { echo "no debug kernel" >&2; exit 1; }
	krel=debug
	# build.sh needs some headers for the tests; its modules are replaced.
	hrel=$("$here/kernel.sh" 6.12)
	;;
/*)
	# A built debug kernel image, its modules in modules/ beside it.
	image=$kernel
	krel=image
	kernel=debug
	hrel=$("$here/kernel.sh" 6.12)
	;;
6.1|6.1-rt|6.12|6.12-rt)
	krel=$("$here/kernel.sh" "$kernel")
	hrel=$krel
	;;
*)
	krel=$kernel
	hrel=$krel
	kernel=given
	;;
esac
out=$top/build/stress-$mode-$krel
echo "# stress ($mode) on the $kernel kernel $krel: building" >&2
"$here/build.sh" "$hrel" "$out" >&2
if [ -n "$image" ]; then
	rm -f "$out"/modules/*.ko
	cp "$(dirname "$image")"/modules/*.ko "$out/modules/"
fi

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
# cp -a gives the image root the mode of this directory: let nobody in.
chmod 0755 "$extra"
mkdir -p "$extra/etc"
{
	echo "UIO_STRESS_MODE=$mode"
	# The debug kernel's time and memory allowances, and kmemleak.
	if [ -n "$image" ]; then
		cat "$here/guest-debug.sh"
	fi
	for kv in "$@"; do
		echo "$kv"
	done
} > "$extra/etc/uio-guest.sh"
EXTRA_ROOT=$extra \
	"$here/initramfs.sh" "$out" "$out/initramfs.cpio.gz" \
	uio_stress_test uio_fuzz_test

echo "# stress ($mode) on the $kernel kernel $krel: booting" >&2
start=$(date +%s)
KERNEL_IMAGE=${image:-/boot/vmlinuz-$krel} \
UIO_BOOT_TIMEOUT=${UIO_BOOT_TIMEOUT:-$limit} \
	"$here/boot.sh" "$krel" "$out/initramfs.cpio.gz" "$out/guest.log"
echo "# guest ran $(($(date +%s) - start)) s; log: $out/guest.log" >&2
# The figures the programs print, then the verdict.
grep -E '^# .*(survived|operations|events|raised|nobody|memory used|total|seed|[0-9]\.[0-9] s$)' \
	"$out/guest.log" >&2 || true
exec python3 "$here/report.py" "$kernel=$out/guest.log"
