#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a TCG-only qemu-system-x86_64 with the Hilscher CIF model
# (qemu/hw/misc/hilscher_cif.c) from Debian's own QEMU source package.
#
# Idempotent: the result is cached under $UIO_CACHE keyed by a hash of our
# model files and the source package version, so a second run only checks
# the key and prints the path again.  The last line on stdout is always
# the path of the built qemu-system-x86_64; everything else goes to stderr.
#
# The dfsg source lacks the firmware blobs, so none is built or installed;
# the binary's firmware search path is Debian's own (FIRMWARE_PATH below:
# qemu-system-data, seabios and ipxe-qemu, which `deps.sh qemu` installs when
# missing), so it runs from the cache directory without -L:
#
#   $(build-qemu.sh | tail -n1) -M pc -accel tcg -nographic \
#       -device hilscher-cif,subdevice=0x430,cycle-us=2000 ...
#
# For a binary built elsewhere, the same is done by hand with
# "-L /usr/share/qemu -L /usr/share/seabios -L /usr/lib/ipxe/qemu".
#
# Environment: UIO_CACHE (default /var/cache/uio-dev), JOBS (default nproc).

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../../../.." && pwd)
CACHE=${UIO_CACHE:-/var/cache/uio-dev}/qemu
JOBS=${JOBS:-$(nproc)}

# Files copied into the QEMU tree, relative to $TOP/qemu and to the tree.
MODEL_FILES="hw/misc/hilscher_cif.c docs/specs/hilscher-cif.txt"
PATCHES=patches/0001-hw-misc-hilscher-cif-build-glue.patch
HEADER=tools/uio/cif/cif_dpram.h
# Where Debian's own QEMU looks for BIOS, VGA BIOS and NIC option ROMs.
FIRMWARE_PATH=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu

log() { echo "build-qemu: $*" >&2; }
die() { log "$*"; exit 1; }

# Unpack the source package once per version (dpkg-source applies
# debian/patches); later builds copy that tree and never modify it.
fetch_source() {
	local ver=$1
	local dir=$CACHE/src/$ver
	if [ -f "$dir/.unpacked" ]; then
		SRC=$(cat "$dir/.unpacked")
		return
	fi
	mkdir -p "$dir"
	(cd "$dir" && apt-get source -qq "qemu=$ver" >&2) ||
		die "apt-get source qemu=$ver failed"
	SRC=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' |
	      head -n1)
	[ -d "$SRC" ] || die "apt-get source qemu=$ver unpacked nothing"
	echo "$SRC" > "$dir/.unpacked"
}

# Copy our files into a pristine copy of the tree and apply the build
# glue (Kconfig + meson.build hunks).  A fresh tree per key keeps this
# step idempotent.
apply_model() {
	local tree=$1
	for f in $MODEL_FILES; do
		install -D -m 0644 "$TOP/qemu/$f" "$tree/$f"
	done
	install -D -m 0644 "$TOP/$HEADER" "$tree/include/hw/misc/cif_dpram.h"
	for p in $PATCHES; do
		patch -d "$tree" -p1 --forward --quiet < "$TOP/qemu/$p" >&2
	done
}

# Trim the device set and configure the tree in $1/build.
configure_tree() {
	# Trim the device set to what the UIO tests need (PC machines, serial
	# console, edu, our card, ivshmem-doorbell as a device with MSI-X and
	# no interrupt pin); minikconf adds whatever the machines select.
	# The parallel port and the default NICs are there so plain command
	# lines work without -parallel none / -nic none.  Written before
	# configure, which reads it.
	cat > "$1/configs/devices/x86_64-softmmu/default.mak" <<'MAK'
CONFIG_I440FX=y
CONFIG_Q35=y
CONFIG_SERIAL_ISA=y
CONFIG_PARALLEL=y
CONFIG_E1000_PCI=y
CONFIG_E1000E_PCI_EXPRESS=y
CONFIG_VGA_PCI=y
CONFIG_TEST_DEVICES=y
CONFIG_EDU=y
CONFIG_PCI_TESTDEV=y
CONFIG_HILSCHER_CIF=y
CONFIG_IVSHMEM_DEVICE=y
MAK
	# --disable-install-blobs: the dfsg tarball has no pc-bios blobs.
	mkdir -p "$1/build"
	(cd "$1/build" && ../configure --target-list=x86_64-softmmu \
		--without-default-features --without-default-devices \
		--enable-tcg --disable-kvm --disable-xen --disable-docs \
		--disable-install-blobs --enable-fdt=system \
		--firmwarepath=$FIRMWARE_PATH \
		--enable-trace-backends=log \
		--disable-werror >&2) || die "configure failed (log above)"
}

main() {
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	# One build at a time: later callers wait and then find the cache.
	exec 9> "$CACHE/.lock"
	flock 9
	"$HERE/deps.sh" qemu || die "deps.sh qemu failed"
	local ver
	ver=$(apt-cache showsrc qemu | awk '/^Version:/{print $2}' |
	      sort -V | tail -n1) || true
	[ -n "$ver" ] || die "no qemu source package in apt's index"

	local key
	# The key covers what reaches the binary: the package version, our
	# sources and the functions that patch and configure the tree (not
	# comments, so editing this header does not force a rebuild).
	key=$( (echo "$ver $FIRMWARE_PATH"; declare -f apply_model configure_tree;
		cat "$TOP/qemu/hw/misc/hilscher_cif.c";
		for p in $PATCHES; do cat "$TOP/qemu/$p"; done;
		cat "$TOP/$HEADER") | sha256sum | cut -c1-16)
	local out=$CACHE/build-$key
	if [ -x "$out/qemu-system-x86_64" ]; then
		log "cached ($ver, key $key)"
		echo "$out/qemu-system-x86_64"
		return
	fi

	fetch_source "$ver"

	local tree=$CACHE/tree-$key
	rm -rf "$tree"
	log "copying $SRC to $tree"
	cp -a "$SRC" "$tree"
	apply_model "$tree" || die "applying the CIF model failed"

	configure_tree "$tree"
	log "building with $JOBS jobs"
	ninja -C "$tree/build" -j "$JOBS" qemu-system-x86_64 >&2 ||
		die "ninja failed (log above)"

	mkdir -p "$out.tmp"
	cp "$tree/build/qemu-system-x86_64" "$out.tmp/"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	rm -rf "$tree"
	log "built ($ver, key $key)"
	echo "$out/qemu-system-x86_64"
}

main "$@"
