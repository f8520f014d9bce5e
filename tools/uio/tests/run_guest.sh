#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot QEMU (TCG) with an edu device and run guest_libuio_test in a busybox
# initramfs, with lsuio and the edu example in /sbin:
#   run_guest.sh [<kernel release>]
# The release defaults to the newest /boot/vmlinuz-*-amd64 (not -rt-).
# MODULES is the directory holding uio.ko and uio_pci_generic.ko (default:
# build/<release>/modules at the top of the tree); KEEP=1 keeps the log.
# Prints the guest's TAP; exits 0 only if the test ran to its end and passed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
uio=$(cd "$here/.." && pwd)
top=$(cd "$uio/../.." && pwd)
rel=${1:-$(ls -v /boot/vmlinuz-*-amd64 | grep -v -- -rt- | tail -n 1 |
	   sed 's|/boot/vmlinuz-||')}
kernel=/boot/vmlinuz-$rel
modules=${MODULES:-$top/build/$rel/modules}
for f in "$kernel" "$modules/uio.ko" "$modules/uio_pci_generic.ko" \
	 /bin/busybox; do
	[ -r "$f" ] || { echo "Bail out! missing $f"; exit 1; }
done

make -s -C "$uio" STATIC=1 lsuio examples/edu_uio tests/guest_libuio_test

work=$(mktemp -d /tmp/uio-guest.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/bin" "$root/sbin" "$root/etc" "$root/modules" "$root/tests"
cp /bin/busybox "$root/bin/"
cp "$modules/uio.ko" "$modules/uio_pci_generic.ko" "$root/modules/"
cp "$uio/lsuio" "$uio/examples/edu_uio" "$root/sbin/"
cp "$uio/tests/guest_libuio_test" "$root/tests/"
echo 'root:x:0:0:root:/:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> "$root/etc/passwd"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
insmod /modules/uio.ko && insmod /modules/uio_pci_generic.ko ||
	echo "=== INSMOD FAILED"
echo "1234 11e8" > /sys/bus/pci/drivers/uio_pci_generic/new_id
echo "=== BEGIN"
/tests/guest_libuio_test
echo "=== END rc=$?"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$work/initrd"

timeout 300 qemu-system-x86_64 -M pc -accel tcg -m 512 -nographic \
	-no-reboot -kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyS0 panic=-1 quiet" -device edu \
	> "$work/guest.log" 2>&1 || true
[ "${KEEP:-0}" = 1 ] && echo "# log: $work/guest.log"

tr -d '\r' < "$work/guest.log" | sed -n '/=== BEGIN$/,/^=== END/p' |
	sed '1d' > "$work/tap"
grep -v '^=== END' "$work/tap" || true
grep -q '^=== INSMOD FAILED' "$work/guest.log" && echo "Bail out! insmod"
grep -q '^=== END rc=0$' "$work/tap" || { echo "# guest test failed"; exit 1; }
