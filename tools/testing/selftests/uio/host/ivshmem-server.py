#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The smallest ivshmem server for one guest at a time.

    ivshmem-server.py <socket path> [vectors]

QEMU's ivshmem-doorbell device (MSI-X only, no interrupt pin) needs a
server, which Debian's QEMU packages do not ship. This one speaks the
protocol of QEMU's docs/specs/ivshmem-spec.txt to each client in turn:
version 0, client ID 0, a 1 MiB shared memory file, then one eventfd per
vector for the client's own ID. A guest that rings its own doorbell
(BAR0 offset 12, ID << 16 | vector) then gets that MSI-X vector, which is
all the UIO tests need. It runs until killed.
"""
import os
import socket
import struct
import sys

SHM_SIZE = 1 << 20


def msg(conn, value, fd=None):
    data = struct.pack("<q", value)
    if fd is None:
        conn.sendall(data)
    else:
        socket.send_fds(conn, [data], [fd])


def serve(conn, vectors):
    shm = os.memfd_create("uio-ivshmem")
    os.ftruncate(shm, SHM_SIZE)
    events = [os.eventfd(0) for _ in range(vectors)]
    try:
        msg(conn, 0)            # protocol version
        msg(conn, 0)            # the client's ID
        msg(conn, -1, shm)      # the shared memory
        for fd in events:       # the client's own vectors, in order
            msg(conn, 0, fd)
        while conn.recv(64):    # the client never writes; wait for EOF
            pass
    except OSError as err:
        print(f"ivshmem-server: client: {err}", file=sys.stderr)
    finally:
        for fd in events + [shm]:
            os.close(fd)
        conn.close()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: ivshmem-server.py <socket path> [vectors]")
    path = sys.argv[1]
    vectors = int(sys.argv[2]) if len(sys.argv) == 3 else 1
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    while True:
        conn, _ = srv.accept()
        serve(conn, vectors)


if __name__ == "__main__":
    main()
