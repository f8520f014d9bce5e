#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the release of Debian's installed kernel of one flavour:
#   kernel.sh stock|rt
set -eu

case "${1:-stock}" in
stock)	pattern='vmlinuz-*-amd64' ; skip='-rt-' ;;
rt)	pattern='vmlinuz-*-rt-amd64' ; skip='@none@' ;;
*)	echo "usage: $0 stock|rt" >&2; exit 1 ;;
esac

for k in $(ls -v /boot/$pattern 2>/dev/null); do
	case "$k" in *"$skip"*) continue ;; esac
	rel=${k#/boot/vmlinuz-}
	[ -d "/usr/src/linux-headers-$rel" ] && found=$rel
done
[ -n "${found:-}" ] || { echo "no $1 kernel with headers" >&2; exit 1; }
echo "$found"
