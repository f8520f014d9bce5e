#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a guest boot with QEMU's ivshmem-doorbell (MSI-X, no interrupt
# pin) at slot 0e.0, four vectors, served by ivshmem-server.py:
#   with-ivshmem.sh <socket path> boot.sh <arguments...>
# The QEMU arguments for the device are appended to the command; the
# server lives exactly as long as the command.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
sock=$1
shift

rm -f "$sock"
python3 "$here/ivshmem-server.py" "$sock" 4 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ -S "$sock" ] && break
	sleep 0.5
done
if [ ! -S "$sock" ]; then
	echo "with-ivshmem.sh: ivshmem-server.py did not create $sock" >&2
	exit 1
fi
"$@" -chardev socket,path="$sock",id=ivshmem \
	-device ivshmem-doorbell,chardev=ivshmem,vectors=4,ioeventfd=off,addr=0e.0
