#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The harness's own setup must fail loudly: run check.sh, deps.sh and
# build-qemu.sh with one step broken on purpose and check that each stops
# with a non-zero status and, as its last line, a message naming the step
# and the cause. Then boot.sh with a fake QEMU: it boots again after the
# emulator's int3 race, and only then. Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
failed=0

# A PATH on which apt-get always fails and dpkg-query knows no package,
# so every package looks missing and installing it cannot work.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "fake apt-get: $*" >&2\nexit 100\n' > "$work/bin/apt-get"
printf '#!/bin/sh\nexit 1\n' > "$work/bin/dpkg-query"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/apt-cache"
chmod +x "$work/bin/"*
broken_apt=$work/bin:$PATH

# expect <name> <expected last line (grep -x pattern)> <command...>
expect() {
	_name=$1
	_want=$2
	shift 2
	n=$((n + 1))
	"$@" > "$work/out" 2>&1
	_rc=$?
	_last=$(tail -n 1 "$work/out")
	if [ "$_rc" -ne 0 ] && echo "$_last" | grep -qx -- "$_want"; then
		echo "ok $n $_name"
	else
		failed=$((failed + 1))
		echo "not ok $n $_name"
		echo "# exit $_rc, last line: $_last"
		echo "# wanted a non-zero exit and: $_want"
	fi
}

echo "1..8"
expect "check.sh: a QEMU_BIN that does not exist" \
	"check: setup failed: QEMU binary '/nonexistent/qemu' is not an executable file" \
	env QEMU_BIN=/nonexistent/qemu "$here/check.sh" 6.12
expect "check.sh: an unknown kernel id" \
	"check: setup failed: install packages (deps.sh guest) (exit 1)" \
	"$here/check.sh" 0.99
expect "deps.sh: names the unknown kernel" \
	"deps: unknown kernel '0.99' (one of: 6.12 6.12-rt 6.1 6.1-rt )" \
	env KERNELS=0.99 "$here/deps.sh" guest
expect "deps.sh: apt-get update fails" \
	"deps: apt-get update failed" \
	env PATH="$broken_apt" "$here/deps.sh" fresh
expect "check.sh: stops when packages cannot be installed" \
	"check: setup failed: install packages (deps.sh guest) (exit 1)" \
	env PATH="$broken_apt" "$here/check.sh" 6.12
expect "build-qemu.sh: no source index is an error, not a silent exit 0" \
	"build-qemu: deps.sh qemu failed" \
	env PATH="$broken_apt" UIO_CACHE="$work/cache" "$here/build-qemu.sh"

# A QEMU that prints its first line on the first boot, its second on
# every later one, and counts the boots.
# boot_test <name> <first line> <boots wanted> <final log pattern>
boot_test() {
	n=$((n + 1))
	printf '%s\n' "$2" > "$work/first"
	printf '0\n' > "$work/boots"
	cat > "$work/qemu" <<FAKE
#!/bin/sh
b=\$((\$(cat "$work/boots") + 1))
echo \$b > "$work/boots"
[ \$b -eq 1 ] && cat "$work/first" || echo "=== booted"
FAKE
	chmod +x "$work/qemu"
	rm -f "$work/log" "$work/log.int3"
	QEMU_BIN=$work/qemu "$here/boot.sh" x /dev/null "$work/log" 2> /dev/null
	_boots=$(cat "$work/boots")
	if [ "$_boots" -eq "$3" ] && grep -q -- "$4" "$work/log"; then
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		echo "not ok $n $1"
		echo "# $_boots boots, log: $(cat "$work/log")"
	fi
}
boot_test "boot.sh: boots again after TCG's int3 race" \
	"[    2.011739] Oops: int3: 0000 [#1] PREEMPT_RT SMP NOPTI" 2 "=== booted"
boot_test "boot.sh: any other Oops stands" \
	"[    2.011739] Oops: general protection fault: 0000 [#1]" 1 "Oops"
[ "$failed" -eq 0 ]
