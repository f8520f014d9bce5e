#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Extract the kselftest harness headers from Debian's linux-source once,
# into a cache keyed by the tarball's hash; print the directory.
set -eu

tarball=/usr/src/linux-source-6.12.tar.xz
cache=${UIO_CACHE:-/var/cache/uio-dev}
key=$(stat -c '%s-%Y' "$tarball" | sha256sum | cut -c1-16)
dir=$cache/kselftest-$key

if [ ! -f "$dir/kselftest_harness.h" ]; then
	mkdir -p "$dir.tmp"
	tar -xJf "$tarball" -C "$dir.tmp" --strip-components=4 \
		linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.12/tools/testing/selftests/kselftest.h
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi
echo "$dir"
