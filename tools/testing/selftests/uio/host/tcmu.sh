#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The files the TCMU test (tcmu_test.sh) needs in a guest, below a root
# for initramfs.sh's EXTRA_ROOT:
#   tcmu.sh <kernel release> <build dir of build.sh> <ours|mainline> <root>
#
# Debian's tcmu-runner with its qcow handler and every library ldd names,
# two qcow2 images made with qemu-img, and the modules in load order
# (lib/modules/<release>/tcmu/order, indexed by depmod: the runner looks
# target_core_user up with libkmod before it starts): Debian's target_core_mod, tcm_loop, sd_mod and
# their dependencies, then target_core_user. "ours" builds that one from
# the kernel's own source against our header and our Module.symvers (our
# uio.ko is loaded by the guest's /init); "mainline" takes Debian's
# uio.ko and target_core_user.ko as they are, for the comparison run.
set -eu

krel=$1
build=$(cd "$2" && pwd)
flavour=$3
root=$4
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
mods=/lib/modules/$krel
runner=/usr/bin/tcmu-runner
handlers=/usr/lib/x86_64-linux-gnu/tcmu-runner

die() { echo "tcmu.sh: $*" >&2; exit 1; }

case "$flavour" in
ours|mainline) ;;
*)	die "flavour must be ours or mainline, not '$flavour'" ;;
esac
[ -x "$runner" ] || die "$runner is missing (deps.sh guest installs tcmu-runner)"

# copy_libs <binary>...: every library the binaries load, at its path.
copy_libs() {
	ldd "$@" | awk '/=> \//{print $3} /^\t\/[^ ]* \(/{print $1}' |
		sort -u | while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}

kmods=$root/lib/modules/$krel/tcmu
mkdir -p "$kmods" "$root/usr/bin" "$root$handlers" \
	"$root/etc/tcmu" "$root/images" "$root/var/log"
cp "$runner" "$root/usr/bin/"
cp "$handlers/handler_qcow.so" "$root$handlers/"
cp /etc/tcmu/tcmu.conf "$root/etc/tcmu/"
copy_libs "$runner" "$handlers/handler_qcow.so"
# glibc loads it for pthread_cancel(), which the runner uses.
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$root/lib/x86_64-linux-gnu/"
# Clusters allocated up front: the handler allocates new ones with a
# fallocate() mode neither the initramfs nor tmpfs support.
for i in 1 2; do
	qemu-img create -q -f qcow2 -o preallocation=metadata \
		"$root/images/disk$i.qcow2" 48M
done
echo "$flavour" > "$root/etc/tcmu-flavour"

# Debian's modules in load order, as modprobe would insert them. The
# PCLMUL CRC module needs a CPU feature TCG's default CPU lacks; the
# generic one does the same job.
order=$kmods/order
: > "$order"
for m in target_core_user tcm_loop sd_mod; do
	modprobe -S "$krel" -d / --show-depends "$m"
done | awk '$1 == "insmod" {print $2}' | while read -r ko; do
	name=$(basename "$ko")
	case "$name" in
	uio.ko*|target_core_user.ko*)
		[ "$flavour" = mainline ] || continue ;;
	*-pclmul.ko*)
		continue ;;
	esac
	grep -qx "${name%.xz}" "$order" && continue
	case "$name" in
	*.ko.xz) xz -dc "$ko" > "$kmods/${name%.xz}" ;;
	*)	 cp "$ko" "$kmods/" ;;
	esac
	echo "${name%.xz}" >> "$order"
done
grep -qx tcm_loop.ko "$order" || die "modprobe found no tcm_loop in $mods"

if [ "$flavour" = ours ]; then
	src=$build/src/tools/testing/selftests/uio/tcmu
	mkdir -p "$src"
	cp "$top/tools/testing/selftests/uio/tcmu/Makefile" "$src/"
	ksrc=$("$here/ksource.sh" "$krel" drivers/target/target_core_user.c)
	cp "$ksrc/drivers/target/target_core_user.c" "$src/"
	make -s -C "/usr/src/linux-headers-$krel" M="$src" -j"$(nproc)" \
		KBUILD_EXTRA_SYMBOLS="$build/src/drivers/uio/Module.symvers" \
		modules >&2
	cp "$src/target_core_user.ko" "$kmods/"
	echo target_core_user.ko >> "$order"
fi
grep -qx target_core_user.ko "$order" || die "no target_core_user module"
# Only these modules: no order or built-in lists to index.
for f in modules.order modules.builtin modules.builtin.modinfo; do
	: > "$root/lib/modules/$krel/$f"
done
depmod -b "$root" "$krel"
