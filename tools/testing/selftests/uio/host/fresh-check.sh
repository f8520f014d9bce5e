#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make fresh-check`: prove the README on a fresh machine. Bootstrap a
# minimal Debian bookworm root (debootstrap --variant=minbase, plus only
# make, git and ca-certificates), clone the committed tree into it and run
# the make targets there:
#   fresh-check.sh         TARGETS (default "check"), e.g. "check merge-check"
#
# The mirrors are the host's own (its apt sources for bookworm and
# bookworm-security). /proc, /sys and /dev are bind-mounted for QEMU and
# undone, with the whole root, even on failure; FRESH_KEEP=1 keeps the
# root for a look. The root has its own /var/cache/uio-dev: nothing of the
# host's caches is used. Prints every target's TAP or PASS/FAIL lines;
# the last line is "N passed, N failed" over all targets (merge-check's
# lines count one each, and a clean `git status` afterwards one more).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
targets=${TARGETS:-check}
logs=$top/build/fresh-check

die() { echo "fresh-check: $*" >&2; exit 1; }

# The first URI of the host's apt sources that serves suite $1.
host_mirror() {
	{
		awk -v suite="$1" '
			/^[[:space:]]*$/ { if (ok && deb && uri) print uri; ok = 0; uri = ""; deb = 0; next }
			/^Types:/ { deb = / deb( |$)/ }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
			END { if (ok && deb && uri) print uri }
		' /etc/apt/sources.list.d/*.sources 2> /dev/null
		awk -v suite="$1" '$1 == "deb" && $3 == suite { print $2 }' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2> /dev/null
	} | head -n 1
}

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mounts)"
"$here/deps.sh" fresh || die "deps.sh fresh failed"
mirror=$(host_mirror bookworm)
security=$(host_mirror bookworm-security)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
[ -n "$security" ] || security=http://deb.debian.org/debian-security

mkdir -p "$logs"
root=$(mktemp -d "${FRESH_TMP:-/var/tmp}/uio-fresh.XXXXXX")
cleanup() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2> /dev/null)" = "$root" ] &&
			kill -9 "${p#/proc/}" 2> /dev/null
	done
	for m in dev/pts dev sys proc; do
		mountpoint -q "$root/$m" && umount -l "$root/$m"
	done
	if [ -n "${FRESH_KEEP:-}" ]; then
		echo "fresh-check: root kept in $root" >&2
	else
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "# fresh-check: debootstrap bookworm from $mirror into $root" >&2
t0=$(date +%s)
debootstrap --variant=minbase --include=make,git,ca-certificates \
	bookworm "$root" "$mirror" > "$logs/debootstrap.log" 2>&1 ||
	die "debootstrap failed (see $logs/debootstrap.log)"
chmod 0755 "$root"
rm -f "$root/etc/apt/sources.list"
cat > "$root/etc/apt/sources.list.d/debian.sources" <<SRC
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$top" "$root/uio" || die "git clone of $top failed"
echo "# fresh-check: root ready in $(( $(date +%s) - t0 )) s, commit $(git -C "$root/uio" rev-parse --short HEAD)" >&2

mount --bind /proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

# From here on a failure is counted, not fatal: every target runs, and
# the root is cleaned up by the EXIT trap.
set +e
passed=0
failed=0
skipped=0
for t in $targets; do
	t1=$(date +%s)
	echo "# fresh-check: make $t" >&2
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 ${KERNELS:+KERNELS="$KERNELS"} \
		/bin/sh -c "cd /uio && make $t" \
		> "$logs/$t.log" 2>&1
	rc=$?
	case "$t" in
	merge-check)
		grep -E '^(PASS|FAIL) ' "$logs/$t.log"
		p=$(grep -c '^PASS ' "$logs/$t.log")
		f=$(grep -c '^FAIL ' "$logs/$t.log")
		;;
	*)
		grep -E '^(not )?ok ' "$logs/$t.log"
		# make's own "Error" line may follow the summary.
		last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/$t.log" | tail -n 1)
		p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, [0-9]* failed.*/\1/p')
		f=$(echo "$last" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
		s=$(echo "$last" | sed -n 's/.*, \([0-9]*\) skipped.*/\1/p')
		skipped=$((skipped + ${s:-0}))
		;;
	esac
	p=${p:-0}
	f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "fresh-check: make $t exited $rc; its last lines:"
		tail -n 15 "$logs/$t.log"
		f=1
	fi
	echo "# fresh-check: make $t: $p passed, $f failed, $(( $(date +%s) - t1 )) s (log: $logs/$t.log)"
	passed=$((passed + p))
	failed=$((failed + f))
done
# Every target's outputs are ignored by git or live outside the tree.
dirty=$(git -C "$root/uio" status --porcelain --ignore-submodules)
if [ -n "$dirty" ]; then
	echo "fresh-check: the targets left files git does not ignore:"
	echo "$dirty" | head -n 20
	failed=$((failed + 1))
else
	passed=$((passed + 1))
	echo "# fresh-check: git status is clean after make $targets"
fi
echo "# fresh-check: $(( $(date +%s) - t0 )) s in all"
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
