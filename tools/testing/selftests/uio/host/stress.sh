#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reliability run of the UIO core in QEMU: unplug under load, module
# lifetime, open/mmap races, event storms, the shared line and the ABI
# fuzzer, with the kernel log checked for sanitizer/lockdep/hung-task/
# kmemleak reports:
#   stress.sh [short|long] [VAR=value...]
# VAR=value pairs reach the guest programs' environment (UIO_STRESS_*,
# UIO_FUZZ_*; see uio_stress_test.c and uio_fuzz_test.c). The kernel is
# the debug kernel of debug-kernel.sh when that script exists, else
# Debian's stock kernel; UIO_STRESS_KERNEL names a release instead.
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

"$here/deps.sh"
if [ -n "${UIO_STRESS_KERNEL:-}" ]; then
	krel=$UIO_STRESS_KERNEL
	kind=given
elif [ -x "$here/debug-kernel.sh" ]; then
	krel=$("$here/debug-kernel.sh")
	kind=debug
else
	krel=$("$here/kernel.sh" stock)
	kind=stock
fi
out=$top/build/stress-$mode-$krel
echo "# stress ($mode) on the $kind kernel $krel: building" >&2
"$here/build.sh" "$krel" "$out" >&2

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
# cp -a gives the image root the mode of this directory: let nobody in.
chmod 0755 "$extra"
cp "$here/guest-init.sh" "$extra/guest-init.sh"
{
	echo "UIO_STRESS_MODE=$mode"
	for kv in "$@"; do
		echo "$kv"
	done
} > "$extra/stress.env"
GUEST_INIT=$here/stress-guest.sh EXTRA_ROOT=$extra \
	"$here/initramfs.sh" "$out" "$out/initramfs.cpio.gz" \
	uio_stress_test uio_fuzz_test

echo "# stress ($mode) on the $kind kernel $krel: booting" >&2
start=$(date +%s)
UIO_BOOT_TIMEOUT=${UIO_BOOT_TIMEOUT:-$limit} \
	"$here/boot.sh" "$krel" "$out/initramfs.cpio.gz" "$out/guest.log"
echo "# guest ran $(($(date +%s) - start)) s; log: $out/guest.log" >&2
# The figures the programs print, then the verdict.
grep -E '^# .*(survived|operations|events|raised|nobody|memory used|total|seed|[0-9]\.[0-9] s$)' \
	"$out/guest.log" >&2 || true
exec python3 "$here/report.py" "$kind=$out/guest.log"
