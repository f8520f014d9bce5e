#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what the host side needs, only when something is missing.
set -eu

pkgs="qemu-system-x86 linux-image-amd64 linux-headers-amd64
linux-image-rt-amd64 linux-headers-rt-amd64 linux-source-6.1
busybox-static build-essential cpio kmod xz-utils python3 pciutils"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "# installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends $missing >&2
