#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make merge-check`: is UIO ready to replace the UIO of Linux 6.1?
#   merge-check.sh
#
#  a. 6.1 with its UIO removed (merge-tree.sh) still configures
#  b. Kconfig.patch and MAINTAINERS.patch apply (patch -p1, git apply)
#  c. the merged tree builds with UIO=y (tinyconfig + guest.config +
#     uio-y.config) and with UIO=m (the debug kernel); 6.1's other UIO
#     users compile unmodified against our header
#  d. the kselftest suite, built in the tree with lib.mk, passes on the
#     debug kernel (KASAN, lockdep, UBSAN, kmemleak) with modules built in
#     the tree, without one kernel report
#  e. checkpatch --strict, sparse (C=2) and W=1 are silent on our files
#  f. a summary table; the exit status is non-zero if any line failed
#
# Everything big is cached under $UIO_CACHE (default /var/cache/uio-dev)
# and built incrementally; logs go to build/merge-check/.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
cache=${UIO_CACHE:-/var/cache/uio-dev}
jobs=$(nproc)
logs=$top/build/merge-check
summary=$logs/summary
start=$(date +%s)

mkdir -p "$logs" "$cache"
: > "$summary"
exec 9> "$cache/merge.lock"
flock 9
export UIO_MERGE_LOCKED=1

log() { echo "# merge-check: $*" >&2; }

# result PASS|FAIL <step> <detail>
result() {
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$summary"
	log "$1 $2: $3"
}

# Count the warning and error lines of a log.
count_warnings() {
	grep -c -E '(warning|error):' "$1" || true
}

finish() {
	echo
	echo "merge-check summary ($(( ($(date +%s) - start) / 60 )) min, logs in $logs)"
	printf '%-4s  %-44s  %s\n' RES STEP DETAIL
	awk -F '\t' '{ printf "%-4s  %-44s  %s\n", $1, $2, $3 }' "$summary"
	if grep -q '^FAIL' "$summary"; then
		echo "merge-check: FAILED"
		exit 1
	fi
	echo "merge-check: all passed"
	exit 0
}

"$here/deps.sh" >&2
if ! tree=$("$here/merge-tree.sh" 2> "$logs/merge-tree.log"); then
	result FAIL "prepare the merged 6.1 tree" "see merge-tree.log"
	finish
fi
base=$(dirname "$tree")
stripped=$(ls -d "$base"/stripped-* | tail -n1)
pristine=$base/pristine

# --- a. the stripped tree configures -----------------------------------
for cfg in defconfig allmodconfig; do
	bdir=$base/build-stripped-$cfg
	if make -s -C "$stripped" O="$bdir" "$cfg" > "$logs/stripped-$cfg.log" 2>&1 &&
	   ! grep -q 'CONFIG_UIO' "$bdir/.config"; then
		result PASS "a. 6.1 without UIO configures ($cfg)" \
			"$(count_warnings "$logs/stripped-$cfg.log") Kconfig warnings, no CONFIG_UIO*"
	else
		result FAIL "a. 6.1 without UIO configures ($cfg)" "see stripped-$cfg.log"
	fi
done

# --- b. the patches ------------------------------------------------------
for p in Kconfig.patch MAINTAINERS.patch; do
	if (cd "$stripped" && patch -p1 --dry-run -s < "$top/$p" &&
	    git apply --check "$top/$p") > "$logs/apply-$p.log" 2>&1; then
		result PASS "b. $p applies" "patch -p1 and git apply --check"
	else
		result FAIL "b. $p applies" "see apply-$p.log"
	fi
done
missing=
for f in $(sed -n 's/^+F:\t//p' "$top/MAINTAINERS.patch"); do
	[ -e "$tree/$f" ] || missing="$missing $f"
done
who=$(cd "$tree" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
	--no-rolestats -f drivers/uio/uio.c include/linux/uio_driver.h \
	tools/testing/selftests/uio/uio_core_test.c 2> /dev/null | head -n1)
if [ -z "$missing" ] && [ -n "$who" ]; then
	result PASS "b. MAINTAINERS entry matches our files" "get_maintainer: $who"
else
	result FAIL "b. MAINTAINERS entry matches our files" "missing:$missing"
fi

# --- c. builds ------------------------------------------------------------
# configure <build dir> <fragment>...: tinyconfig plus fragments, each of
# whose lines must survive olddefconfig.
configure() {
	_b=$1
	shift
	_key=$(cat "$@" | sha256sum | cut -c1-16)
	# Objects and .cmd files name their source tree.
	if [ "$(cat "$_b/.uio-tree" 2>/dev/null)" != "$tree" ]; then
		rm -rf "$_b"
		mkdir -p "$_b"
		echo "$tree" > "$_b/.uio-tree"
	fi
	[ "$(cat "$_b/.uio-confkey" 2>/dev/null)" = "$_key" ] && return 0
	make -s -C "$tree" O="$_b" tinyconfig &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$_b" "$_b/.config" "$@" &&
	make -s -C "$tree" O="$_b" olddefconfig || return 1
	# A later fragment overrides an earlier one: check the last word.
	grep -h '^CONFIG_\|^# CONFIG_.* is not set' "$@" |
	awk '{ k = $0; sub(/^# /, "", k); sub(/[= ].*/, "", k); w[k] = $0 }
	     END { for (k in w) print w[k] }' | while read -r l; do
		grep -qx "$l" "$_b/.config" || { echo "lacks $l"; exit 1; }
	done || return 1
	echo "$_key" > "$_b/.uio-confkey"
}

by=$base/build-y
if configure "$by" "$here/guest.config" "$here/uio-y.config" \
	> "$logs/build-y.log" 2>&1 &&
   make -C "$tree" O="$by" -j"$jobs" bzImage modules >> "$logs/build-y.log" 2>&1 &&
   grep -q '^CONFIG_UIO=y' "$by/.config" &&
   [ -f "$by/drivers/uio/uio.o" ] && [ -f "$by/drivers/uio/uio_cif.o" ] &&
   [ -f "$by/drivers/uio/uio_pci_generic.o" ]; then
	result PASS "c. build with UIO=y, stubs =y" \
		"bzImage with uio.o, uio_pci_generic.o, uio_cif.o built in"
	build_y=ok
else
	result FAIL "c. build with UIO=y, stubs =y" "see build-y.log"
	build_y=
fi

if out=$("$here/debug-kernel.sh" 2> "$logs/debug-kernel.log"); then
	bzimage=$(echo "$out" | sed -n 1p)
	bdebug=$(echo "$out" | sed -n 2p)
	result PASS "c. build with UIO=m, stubs =m (debug kernel)" \
		"$(ls "$(dirname "$bzimage")/modules" | tr '\n' ' ')"
else
	bzimage=
	bdebug=
	result FAIL "c. build with UIO=m, stubs =m (debug kernel)" "see debug-kernel.log"
fi

# 6.1's UIO users, unmodified, against our header. Each is also compiled in
# a pristine 6.1 tree with the same configuration, so one that does not
# build on x86_64 at all is told apart from one our header breaks.
users=
for f in "$pristine"/drivers/uio/uio_*.c; do
	n=$(basename "$f" .c)
	users="$users drivers/uio/$n.o"
done
users="$users drivers/target/target_core_user.o drivers/net/ethernet/broadcom/cnic.o drivers/scsi/qedi/qedi_main.o"

bbase=$base/build-pristine
basekey=$(cat "$by/.config" 2>/dev/null | sed 's/^# CONFIG_UIO.*//;s/^CONFIG_UIO.*//' | sha256sum | cut -c1-16)
if [ -n "$build_y" ]; then
	if [ "$(cat "$bbase/.uio-confkey" 2>/dev/null)" != "$basekey" ]; then
		mkdir -p "$bbase"
		cp "$by/.config" "$bbase/.config"
		make -s -C "$pristine" O="$bbase" olddefconfig > "$logs/compat-prepare.log" 2>&1
		make -s -C "$pristine" O="$bbase" -j"$jobs" prepare >> "$logs/compat-prepare.log" 2>&1
		echo "$basekey" > "$bbase/.uio-confkey"
	fi
	# One make -k per tree; a target counts as built if its object exists
	# and the log names no error in its source.
	ours=
	for o in $users; do
		case $o in
		drivers/uio/uio_cif.o|drivers/uio/uio_pci_generic.o)
			o=${o%.o}_61.o ;;
		esac
		ours="$ours $o"
	done
	make -k -C "$pristine" O="$bbase" $users > "$logs/compat-base.log" 2>&1
	make -k -C "$tree" O="$by" $ours > "$logs/compat-ours.log" 2>&1
	total=0 built=0 lacks=
	: > "$logs/compat.log"
	for po in $users; do
		o=$po
		case $o in
		drivers/uio/uio_cif.o|drivers/uio/uio_pci_generic.o)
			o=${o%.o}_61.o ;;
		esac
		if [ ! -f "$bbase/$po" ] ||
		   grep -q "${po%.o}\.[ch]:.*error" "$logs/compat-base.log"; then
			echo "n/a  $po: does not build on x86_64 even with 6.1's own header" >> "$logs/compat.log"
			continue
		fi
		total=$((total + 1))
		if [ -f "$by/$o" ] &&
		   ! grep -q "${o%.o}\.[ch]:.*error" "$logs/compat-ours.log"; then
			built=$((built + 1))
			as=
			[ "$o" = "$po" ] || as=" (6.1's file, built as $o)"
			echo "ok   $po$as" >> "$logs/compat.log"
		else
			lacks="$lacks $(basename "$po" .o)"
			echo "FAIL $po:" >> "$logs/compat.log"
			grep "${o%.o}\.[ch]:.*error" "$logs/compat-ours.log" >> "$logs/compat.log"
		fi
	done
	detail="$built of $total build against our header"
	na=$(grep -c '^n/a' "$logs/compat.log")
	[ "$na" -gt 0 ] && detail="$detail ($na not buildable on x86_64 at all)"
	[ -n "$lacks" ] && detail="$detail; broken:$lacks (compat.log)"
	if [ "$built" -eq "$total" ] && [ "$total" -gt 0 ]; then
		result PASS "c. 6.1's UIO users compile unmodified" "$detail"
	else
		result FAIL "c. 6.1's UIO users compile unmodified" "$detail"
	fi
else
	result FAIL "c. 6.1's UIO users compile unmodified" "no UIO=y build"
fi

# --- d. the suite on the debug kernel ------------------------------------
sdir=$tree/tools/testing/selftests
if make -C "$sdir" TARGETS=uio LDFLAGS=-static > "$logs/kselftest-build.log" 2>&1; then
	progs=$(make -s -C "$sdir/uio" --eval='uio-progs: ; @echo $(TEST_GEN_PROGS)' uio-progs | xargs -n1 basename)
	result PASS "d. kselftest build (TARGETS=uio, lib.mk, static)" "$(echo $progs)"
else
	progs=
	result FAIL "d. kselftest build (TARGETS=uio, lib.mk, static)" "see kselftest-build.log"
fi

if [ -n "$bzimage" ] && [ -n "$progs" ]; then
	stage=$logs/guest
	rm -rf "$stage"
	mkdir -p "$stage/modules" "$stage/tests"
	cp "$(dirname "$bzimage")"/modules/*.ko "$stage/modules/"
	for p in $progs; do
		cp "$sdir/uio/$p" "$stage/tests/"
	done
	mkdir -p "$stage/root/etc"
	cp "$here/guest-debug.sh" "$stage/root/etc/uio-guest.sh"
	EXTRA_ROOT=$stage/root "$here/initramfs.sh" "$stage" \
		"$stage/initramfs.cpio.gz" $progs
	bstart=$(date +%s)
	KERNEL_IMAGE=$bzimage UIO_BOOT_TIMEOUT=${UIO_BOOT_TIMEOUT:-1500} \
		"$here/boot.sh" debug "$stage/initramfs.cpio.gz" "$logs/guest.log"
	# Boot banners that name a checker without reporting anything.
	grep -v -e 'kmemleak: Kernel memory leak detector initialized' \
		-e 'rcu: 	RCU lockdep checking is enabled\.' \
		"$logs/guest.log" > "$logs/guest-filtered.log"
	python3 "$here/report.py" debug="$logs/guest-filtered.log" > "$logs/guest.tap"
	tally=$(tail -n1 "$logs/guest.tap")
	leaks=$(sed -n '/^=== KMEMLEAK BEGIN/,/^=== KMEMLEAK END/p' "$logs/guest.log" |
		grep -c 'unreferenced object')
	reports=$(grep -c 'kernel log:' "$logs/guest.tap")
	rmmod=$(grep -c '=== RMMOD FAILED' "$logs/guest.log")
	detail="$tally; $reports kernel reports, $leaks kmemleak leaks, $rmmod rmmod failures; $(( $(date +%s) - bstart )) s"
	if grep -q ' 0 failed' "$logs/guest.tap" && [ "$rmmod" -eq 0 ] &&
	   grep -q '^=== KMEMLEAK END' "$logs/guest.log"; then
		result PASS "d. suite on the debug kernel" "$detail"
	else
		result FAIL "d. suite on the debug kernel" "$detail (guest.tap)"
	fi
else
	result FAIL "d. suite on the debug kernel" "nothing to boot"
fi

# --- e. checkpatch, sparse, W=1 ------------------------------------------
files=$(cd "$top" && git ls-files -- 'drivers/uio/*' include/linux/uio_driver.h \
	'tools/testing/selftests/uio/uio_test_mod/*.c' \
	'tools/testing/selftests/uio/*.c' 'tools/testing/selftests/uio/*.h' \
	'tools/testing/selftests/uio/**/*.c' 'tools/testing/selftests/uio/**/*.h' |
	grep -v '^tools/testing/selftests/uio/host/' | sort -u)
nfiles=0 bad=0
: > "$logs/checkpatch.log"
for f in $files; do
	nfiles=$((nfiles + 1))
	ignore=
	case "$f" in
	drivers/uio/uio.c)
		ignore="--ignore ENOSYS" ;;
	*/uio_test_mod/* | */bench/*_stub.c) ;;
	tools/testing/selftests/uio/*)
		# User space: MMIO through a mapping has no kernel accessors,
		# and the tests assert the ENOSYS of the write() ABI.
		ignore="--ignore VOLATILE,ENOSYS" ;;
	esac
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --no-summary \
		--terse --show-types $ignore -f "$f" 2>&1)
	if [ -n "$out" ]; then
		bad=$((bad + 1))
		echo "$out" >> "$logs/checkpatch.log"
	fi
done
# The howto's kernel examples are code people copy: hold them to it too.
"$here/howto-check.sh" --extract "$logs/howto" 2>> "$logs/checkpatch.log"
for f in $(awk '$1 == "kernel" { print $2 }' "$logs/howto/examples"); do
	nfiles=$((nfiles + 1))
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict --no-summary \
		--terse --show-types --no-tree -f "$logs/howto/$f" 2>&1)
	if [ -n "$out" ]; then
		bad=$((bad + 1))
		echo "$out" >> "$logs/checkpatch.log"
	fi
done
issues=$(grep -c ': \(ERROR\|WARNING\|CHECK\):' "$logs/checkpatch.log")
detail="$nfiles files (incl. howto examples), $issues errors/warnings/checks; exceptions: --ignore ENOSYS for drivers/uio/uio.c (write() ABI), VOLATILE,ENOSYS for user-space selftests"
if [ "$bad" -eq 0 ]; then
	result PASS "e. checkpatch.pl --strict" "$detail"
else
	result FAIL "e. checkpatch.pl --strict" "$detail (checkpatch.log)"
fi

kdoc=$(echo "$files" | grep '\.[ch]$' | grep -v '_test\.c$')
(cd "$tree" && KBUILD_EXTRA_WARN=2 scripts/kernel-doc -none $kdoc) \
	> "$logs/kernel-doc.log" 2>&1
n=$(grep -c -i 'warning\|error' "$logs/kernel-doc.log")
if [ "$n" -eq 0 ]; then
	result PASS "e. kernel-doc -none" "$(echo "$kdoc" | wc -l) files, 0 warnings"
else
	result FAIL "e. kernel-doc -none" "$n warnings (kernel-doc.log)"
fi

# Sparse and W=1 on drivers/uio in both builds, and on the test module.
tmod=$tree/tools/testing/selftests/uio/uio_test_mod
for mode in C=2 W=1; do
	name=$(echo "$mode" | sed 's/C=2/sparse/;s/W=1/W1/')
	: > "$logs/$name.log"
	ok=1
	if [ -n "$build_y" ]; then
		make -C "$tree" O="$by" $mode drivers/uio/ >> "$logs/$name.log" 2>&1 || ok=
	fi
	if [ -n "$bdebug" ]; then
		make -C "$tree" O="$bdebug" $mode drivers/uio/ >> "$logs/$name.log" 2>&1 || ok=
		make -C "$bdebug" M="$tmod" $mode modules \
			>> "$logs/$name.log" 2>&1 || ok=
	fi
	n=$(count_warnings "$logs/$name.log")
	what="make $mode: drivers/uio (UIO=y and =m), uio_test_mod"
	if [ -n "$ok" ] && [ -n "$build_y" ] && [ -n "$bdebug" ] && [ "$n" -eq 0 ]; then
		result PASS "e. $what" "0 warnings"
	else
		result FAIL "e. $what" "$n warnings/errors ($name.log)"
	fi
done
# Put the objects back to the ordinary flags for the next incremental run.
[ -n "$build_y" ] && make -s -C "$tree" O="$by" drivers/uio/ > /dev/null 2>&1

finish
