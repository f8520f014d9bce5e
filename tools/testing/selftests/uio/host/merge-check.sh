#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make merge-check`: is UIO ready to replace the UIO of Linux 6.12 (the
# tree we submit to), and does it still merge into 6.1?
#   merge-check.sh [VERSION...]    default: $MERGE_KERNELS, else "6.12 6.1"
#
# For each version, in the order given, in Debian's linux-source-VERSION:
#  a. the tree with its UIO removed (merge-tree.sh) still configures
#  b. 6.12: the series of `make patches` applies to the pristine tree
#     with git am, drivers/uio builds (=m, W=1, no warning) after every
#     patch, checkpatch.pl --strict on each patch file finds nothing but
#     what the cover letter explains (ENOSYS of the write() ABI, volatile
#     in the user-space tests, files added and deleted below drivers/uio/
#     without a MAINTAINERS change), and get_maintainer.pl on the series names
#     the UIO entry of MAINTAINERS.patch; the rest runs on the tree the
#     series produced.
#     6.1: Kconfig.patch and MAINTAINERS.patch apply without fuzz (patch
#     --fuzz=0, git apply --check) and our files are copied in; the
#     MAINTAINERS entry names our files;
#     backport/ stays out of the 6.12 tree, and is first on the include
#     path of whatever builds against our header in an older one
#  c. the merged tree builds with UIO=y (tinyconfig + guest.config +
#     uio-y.config) and with UIO=m (the debug kernel, debug-kernel.sh);
#     every other includer of <linux/uio_driver.h> in the tree (its stubs,
#     cnic, qedi, target_core_user, ...) compiles unmodified against our
#     header (users.config), told apart from what does not even build
#     with the tree's own header; under allmodconfig every CONFIG_UIO_* of
#     the tree's own drivers/uio/Makefile (uio_pdrv_genirq, uio_hv_generic,
#     6.1's uio_pruss, ...) is set as in the pristine tree, and each =m
#     one builds in drivers/uio
#  d. the kselftest suite, built in the tree with lib.mk, passes on the
#     debug kernel (KASAN, lockdep, UBSAN, kmemleak, delayed kobject
#     release) with modules built in the tree, without one kernel report
#  e. checkpatch --strict, kernel-doc, sparse (C=2) and W=1 of that tree
#     are silent on our files
# then a summary table, one line per step and version; the exit status is
# non-zero if any line failed.
#
# Everything big is cached under $UIO_CACHE (default /var/cache/uio-dev),
# per tarball, and built incrementally; logs go to build/merge-check/VERSION.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
cache=${UIO_CACHE:-/var/cache/uio-dev}
jobs=$(nproc)
logs=$top/build/merge-check
summary=$logs/summary
start=$(date +%s)
versions=${*:-${MERGE_KERNELS:-6.12 6.1}}

for v in $versions; do
	case $v in
	6.1|6.12) ;;
	*) echo "merge-check: unknown version '$v' (6.12 or 6.1)" >&2; exit 2 ;;
	esac
done

mkdir -p "$logs" "$cache"
exec 9> "$cache/merge.lock"
flock 9
# Only now: a run that waits for the lock must not empty the summary of
# the run that holds it.
: > "$summary"
export UIO_MERGE_LOCKED=1

log() { echo "# merge-check $version: $*" >&2; }

# result PASS|FAIL <step> <detail>, for the current $version
result() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$version" "$2" "$3" >> "$summary"
	log "$1 $2: $3"
}

# Count the warning and error lines of a log.
count_warnings() {
	grep -c -E '(warning|error):' "$1" || true
}

finish() {
	echo
	echo "merge-check summary ($(( ($(date +%s) - start) / 60 )) min;$times; logs in $logs)"
	printf '%-4s  %-5s  %-48s  %s\n' RES LINUX STEP DETAIL
	awk -F '\t' '{ printf "%-4s  %-5s  %-48s  %s\n", $1, $2, $3, $4 }' "$summary"
	if grep -q '^FAIL' "$summary"; then
		echo "merge-check: FAILED"
		exit 1
	fi
	echo "merge-check: all passed"
	exit 0
}

# builtin <build dir> <object>...: each object of drivers/uio is linked
# into its built-in.a, a thin archive whose name table lists "NAME/" a
# line each. A built-in composite object is listed by its parts
# (uio_core.o, ...): no uio.o is made.
builtin() {
	_a=$1/drivers/uio/built-in.a
	shift
	for _o; do
		grep -aqx "$_o/" "$_a" 2>/dev/null || return 1
	done
}

# configure <tree> <build dir> <fragment>...: tinyconfig plus fragments,
# the last word on each symbol of which must survive olddefconfig.
configure() {
	_t=$1 _b=$2
	shift 2
	_key=$(cat "$@" | sha256sum | cut -c1-16)
	# Objects and .cmd files name their source tree.
	if [ "$(cat "$_b/.uio-tree" 2>/dev/null)" != "$_t" ]; then
		rm -rf "$_b"
		mkdir -p "$_b"
		echo "$_t" > "$_b/.uio-tree"
	fi
	# What a build killed hard was writing is left empty and up to date.
	find "$_b" -name '*.o' -size -64c -delete
	[ "$(cat "$_b/.uio-confkey" 2>/dev/null)" = "$_key" ] && return 0
	make -s -C "$_t" O="$_b" tinyconfig &&
	"$_t/scripts/kconfig/merge_config.sh" -m -O "$_b" "$_b/.config" "$@" &&
	make -s -C "$_t" O="$_b" olddefconfig || return 1
	grep -h '^CONFIG_\|^# CONFIG_.* is not set' "$@" |
	awk '{ k = $0; sub(/^# /, "", k); sub(/[= ].*/, "", k); w[k] = $0 }
	     END { for (k in w) print w[k] }' | while read -r l; do
		case $l in
		"# "*)	# not set: also when the tree has no such symbol
			_s=${l#\# }
			! grep -q "^${_s%% *}=" "$_b/.config" ;;
		*)	grep -qx "$l" "$_b/.config" ;;
		esac || { echo "lacks $l"; exit 1; }
	done || return 1
	echo "$_key" > "$_b/.uio-confkey"
}

# The C files of a tree that include <linux/uio_driver.h>, directly or
# through a header (the tree's uio.c, the core ours replaces, left out).
uio_includers() {
	(
		cd "$1" || exit 1
		# grep_inc <header path>: files of the tree that include it
		grep_inc() {
			grep -rlE --include='*.[ch]' --exclude-dir=tools \
				--exclude-dir=Documentation --exclude-dir=samples \
				"#include[[:space:]]*<$1>" . 2> /dev/null | sed 's|^\./||'
		}
		found=$(grep_inc 'linux/uio_driver\.h' |
			grep -v '^include/linux/uio_driver\.h$')
		seen=
		while [ -n "$found" ]; do
			next=
			for f in $found; do
				case " $seen " in *" $f "*) continue ;; esac
				seen="$seen $f"
				case $f in
				*.c) echo "$f" ;;
				include/*)
					next="$next $(grep_inc "${f#include/}")" ;;
				*.h)
					next="$next $(grep -lE \
						"#include[[:space:]]*\"$(basename "$f")\"" \
						"$(dirname "$f")"/*.[ch] 2> /dev/null)" ;;
				esac
			done
			found=$next
		done
	) | grep -v '^drivers/uio/uio\.c$' | sort -u
}

# check_series: step b for 6.12, the series patch by patch.
check_series() {
	if ! patches=$("$here/patches.sh" 2> "$vlogs/patches.log"); then
		result FAIL "b. make patches" "see $version/patches.log"
		return
	fi
	result PASS "b. make patches" \
		"$(ls "$patches"/0*.patch | grep -vc cover-letter) patches and a cover letter in build/patches"
	stree=$("$here/series-repo.sh")
	bb=$base/build-series-bisect
	if ! configure "$stree" "$bb" "$here/guest.config" "$here/../config" \
		> "$vlogs/bisect-config.log" 2>&1; then
		result FAIL "b. series: configure the per-patch build" "see $version/bisect-config.log"
		return
	fi
	# Every patch: make drivers/uio/ with W=1; its log and exit status
	# go to bisect/<patch>.{log,rc}.
	mkdir -p "$vlogs/bisect"
	if ! "$here/series-apply.sh" "$patches" \
		"make -C '$stree' O='$bb' -j$jobs W=1 drivers/uio/ > '$vlogs/bisect/'\$(basename \"\$1\" .patch).log 2>&1; echo \$? > '$vlogs/bisect/'\$(basename \"\$1\" .patch).rc" \
		> /dev/null 2> "$vlogs/series-apply.log"; then
		result FAIL "b. series applies with git am" "see $version/series-apply.log"
	fi
	for p in "$patches"/0*.patch; do
		n=$(basename "$p" .patch)
		case $n in 0000-cover-letter) continue ;; esac
		subject=$(sed -n 's/^Subject: \[PATCH [0-9/]*\] //p' "$p" | cut -c1-40)
		if [ ! -f "$vlogs/bisect/$n.rc" ]; then
			result FAIL "b. ${n%%-*} $subject" "not applied (git am)"
			continue
		fi
		# Its SPDX check runs Debian's python3 (python3-ply and
		# python3-git of deps.sh); a traceback counts as a finding.
		cp=$(cd "$stree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl \
			--strict --terse --show-types --no-summary "$p" 2>&1)
		echo "$cp" > "$vlogs/bisect/$n.checkpatch"
		e=$(echo "$cp" | grep -c ': ERROR:')
		w=$(echo "$cp" | grep -c ': WARNING:')
		c=$(echo "$cp" | grep -c ': CHECK:')
		# Files added or deleted only below drivers/uio/, which the
		# tree's UIO entry covers already (F: drivers/uio/), need no
		# MAINTAINERS change: the core patch's split of uio.c.
		fpc=' WARNING:FILE_PATH_CHANGES:'
		sed -n 's/^ \(create\|delete\) mode [0-7]* //p' "$p" |
			grep -qv '^drivers/uio/' && fpc='^$'
		left=$(echo "$cp" | grep -e ': \(ERROR\|WARNING\|CHECK\):' -e '^Traceback' |
			grep -v ' WARNING:ENOSYS:' | grep -v -e "$fpc" |
			{ case $subject in selftests/*) grep -v ' WARNING:VOLATILE:' ;; *) cat ;; esac; } |
			grep -c .)
		warn=$(count_warnings "$vlogs/bisect/$n.log")
		detail="git am, make W=1 drivers/uio/: rc $(cat "$vlogs/bisect/$n.rc"), $warn warnings; checkpatch --strict: $e errors, $w warnings, $c checks"
		[ "$((e + w + c))" -gt "$left" ] && detail="$detail ($((e + w + c - left)) explained in the cover letter)"
		if [ "$(cat "$vlogs/bisect/$n.rc")" = 0 ] && [ "$warn" -eq 0 ] && [ "$left" -eq 0 ]; then
			result PASS "b. ${n%%-*} $subject" "$detail"
		else
			result FAIL "b. ${n%%-*} $subject" "$detail ($version/bisect/$n.*)"
		fi
	done
	# The UIO entry of MAINTAINERS.patch, named for the whole series.
	who=$(cd "$stree" && perl scripts/get_maintainer.pl --no-rolestats \
		--nogit --nogit-fallback $(ls "$patches"/0*.patch | grep -v cover-letter) 2> /dev/null)
	echo "$who" > "$vlogs/get_maintainer.log"
	missing=
	for l in $(sed -n 's/^+[ML]:\t.*<\(.*\)>$/\1/p; s/^+L:\t\(.*\)$/\1/p' "$top/MAINTAINERS.patch"); do
		echo "$who" | grep -qF "$l" || missing="$missing $l"
	done
	if [ -n "$who" ] && [ -z "$missing" ]; then
		result PASS "b. get_maintainer.pl on the series" "$(echo "$who" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
	else
		result FAIL "b. get_maintainer.pl on the series" "lacks:$missing ($version/get_maintainer.log)"
	fi
}

# check_version: steps a-e for $version.
check_version() {
	vlogs=$logs/$version
	rm -rf "$vlogs"
	mkdir -p "$vlogs"
	vstart=$(date +%s)
	if [ "$version" = 6.12 ]; then
		base=$(dirname "$("$here/merge-tree.sh" --pristine "$version")")
		check_series
	fi
	if ! tree=$("$here/merge-tree.sh" "$version" 2> "$vlogs/merge-tree.log"); then
		result FAIL "prepare the merged tree" "see $version/merge-tree.log"
		return
	fi
	base=$(dirname "$tree")
	stripped=$(ls -d "$base"/stripped-* | tail -n1)
	pristine=$base/pristine
	suffix=$(echo "$version" | tr -d .)
	# The series tree has build directories of its own.
	bn=build
	[ "$version" = 6.12 ] && bn=build-series
	# What builds against our header in an older tree sees backport/ first.
	bp=$(cat "$tree/.uio-backport-cflags")

	# --- a. the stripped tree configures ---------------------------
	for cfg in defconfig allmodconfig; do
		bdir=$base/build-stripped-$cfg
		if make -s -C "$stripped" O="$bdir" "$cfg" > "$vlogs/stripped-$cfg.log" 2>&1 &&
		   ! grep -q 'CONFIG_UIO' "$bdir/.config"; then
			result PASS "a. without UIO configures ($cfg)" \
				"$(count_warnings "$vlogs/stripped-$cfg.log") Kconfig warnings, no CONFIG_UIO*"
		else
			result FAIL "a. without UIO configures ($cfg)" "see $version/stripped-$cfg.log"
		fi
	done

	# --- b. the patches (6.12: check_series) ------------------------
	[ "$version" = 6.12 ] || for p in Kconfig MAINTAINERS; do
		pf=$top/$p-$version.patch
		[ -f "$pf" ] || pf=$top/$p.patch
		if (cd "$stripped" && patch -p1 --dry-run -s --fuzz=0 < "$pf" &&
		    git apply --check "$pf") > "$vlogs/apply-$p.log" 2>&1; then
			result PASS "b. $(basename "$pf") applies" "patch -p1 --fuzz=0 and git apply --check"
		else
			result FAIL "b. $(basename "$pf") applies" "see $version/apply-$p.log"
		fi
	done
	missing=
	[ "$version" = 6.12 ] || for f in $(sed -n 's/^+F:\t//p' "$top/MAINTAINERS.patch"); do
		[ -e "$tree/$f" ] || missing="$missing $f"
	done
	who=$(cd "$tree" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
		--no-rolestats -f drivers/uio/uio_core.c include/linux/uio_driver.h \
		tools/testing/selftests/uio/uio_core_test.c 2> /dev/null | head -n1)
	if [ -z "$missing" ] && [ -n "$who" ]; then
		result PASS "b. MAINTAINERS entry matches our files" "get_maintainer: $who"
	else
		result FAIL "b. MAINTAINERS entry matches our files" "missing:$missing"
	fi
	if [ "$version" = 6.12 ]; then
		if [ ! -e "$tree/backport" ] && ! grep -q '^backport/' "$tree/.uio-files" &&
		   [ -z "$bp" ]; then
			result PASS "b. backport/ stays out" "none of it in the tree we submit to"
		else
			result FAIL "b. backport/ stays out" "the $version tree has backport files"
		fi
	elif [ -n "$bp" ]; then
		result PASS "b. backport/include on the include path" \
			"$(grep -c '^backport/' "$tree/.uio-files") files, first for drivers/uio, uio_test_mod, the UIO users"
	else
		result PASS "b. backport/include on the include path" "the repository has no backport/include"
	fi

	# --- c. builds ------------------------------------------------
	by=$base/$bn-y
	if configure "$tree" "$by" "$here/guest.config" "$here/uio-y.config" \
		> "$vlogs/build-y.log" 2>&1 &&
	   make -C "$tree" O="$by" -j"$jobs" bzImage modules >> "$vlogs/build-y.log" 2>&1 &&
	   grep -q '^CONFIG_UIO=y' "$by/.config" &&
	   builtin "$by" uio_core.o uio_pci_generic.o uio_cif.o; then
		result PASS "c. build with UIO=y, stubs =y" \
			"bzImage with the core's parts, uio_pci_generic.o, uio_cif.o built in"
		build_y=ok
	else
		result FAIL "c. build with UIO=y, stubs =y" "see $version/build-y.log"
		build_y=
	fi

	if out=$("$here/debug-kernel.sh" "$version" 2> "$vlogs/debug-kernel.log"); then
		bzimage=$(echo "$out" | sed -n 1p)
		bdebug=$(echo "$out" | sed -n 2p)
		result PASS "c. build with UIO=m, stubs =m (debug kernel)" \
			"$(ls "$(dirname "$bzimage")/modules" | tr '\n' ' ')"
	else
		bzimage=
		bdebug=
		result FAIL "c. build with UIO=m, stubs =m (debug kernel)" "see $version/debug-kernel.log"
	fi

	# The tree's UIO users, unmodified, against our header. Each is also
	# compiled in the pristine tree with the same configuration, so one
	# that does not build on x86_64 at all is told apart from one our
	# header breaks. Code of other architectures is not tried.
	if [ ! -s "$base/uio-users" ]; then
		uio_includers "$pristine" > "$base/uio-users.tmp" &&
			mv "$base/uio-users.tmp" "$base/uio-users"
	fi
	users= other=
	for c in $(cat "$base/uio-users"); do
		case $c in
		arch/x86/*) users="$users ${c%.c}.o" ;;
		arch/*) other="$other $c" ;;
		*) users="$users ${c%.c}.o" ;;
		esac
	done
	# ours <object>: the same object in the merged tree (the tree's
	# uio_cif.c and uio_pci_generic.c are there as e.g. uio_cif_612.c).
	ours() {
		case $1 in
		drivers/uio/uio_cif.o|drivers/uio/uio_pci_generic.o)
			echo "${1%.o}_$suffix.o" ;;
		*)	echo "$1" ;;
		esac
	}
	bu=$base/$bn-users
	bbase=$base/build-pristine
	fr="$here/guest.config $here/uio-y.config $here/users.config"
	: > "$vlogs/compat.log"
	if configure "$tree" "$bu" $fr > "$vlogs/compat-prepare.log" 2>&1 &&
	   make -s -C "$tree" O="$bu" -j"$jobs" prepare >> "$vlogs/compat-prepare.log" 2>&1 &&
	   configure "$pristine" "$bbase" $fr >> "$vlogs/compat-prepare.log" 2>&1 &&
	   make -s -C "$pristine" O="$bbase" -j"$jobs" prepare >> "$vlogs/compat-prepare.log" 2>&1; then
		# One make -k per tree; a target counts as built if its
		# object exists and the log names no error in its source.
		make -k -C "$pristine" O="$bbase" -j"$jobs" $users > "$vlogs/compat-base.log" 2>&1
		if [ -n "$bp" ]; then
			make -k -C "$tree" O="$bu" -j"$jobs" NOSTDINC_FLAGS="-nostdinc $bp" \
				$(for o in $users; do ours "$o"; done) > "$vlogs/compat-ours.log" 2>&1
		else
			make -k -C "$tree" O="$bu" -j"$jobs" \
				$(for o in $users; do ours "$o"; done) > "$vlogs/compat-ours.log" 2>&1
		fi
		total=0 built=0 lacks= na=0
		for po in $users; do
			o=$(ours "$po")
			if [ ! -f "$bbase/$po" ] ||
			   grep -q "${po%.o}\.[ch]:.*error" "$vlogs/compat-base.log"; then
				echo "n/a  $po: does not build on x86_64 even with $version's own header" >> "$vlogs/compat.log"
				na=$((na + 1))
				continue
			fi
			total=$((total + 1))
			if [ -f "$bu/$o" ] &&
			   ! grep -q "${o%.o}\.[ch]:.*error" "$vlogs/compat-ours.log"; then
				built=$((built + 1))
				as=
				[ "$o" = "$po" ] || as=" ($version's file, built as $o)"
				echo "ok   $po$as" >> "$vlogs/compat.log"
			else
				lacks="$lacks $(basename "$po" .o)"
				echo "FAIL $po:" >> "$vlogs/compat.log"
				grep "${o%.o}\.[ch]:.*error" "$vlogs/compat-ours.log" >> "$vlogs/compat.log"
			fi
		done
		for c in $other; do
			echo "n/a  $c: another architecture" >> "$vlogs/compat.log"
		done
		detail="$built of $total build against our header"
		[ "$na" -gt 0 ] && detail="$detail ($na not buildable on x86_64 at all)"
		[ -n "$other" ] && detail="$detail; $(echo $other | wc -w) of other arches not tried"
		[ -n "$lacks" ] && detail="$detail; broken:$lacks ($version/compat.log)"
		if [ "$built" -eq "$total" ] && [ "$total" -gt 0 ]; then
			result PASS "c. the tree's UIO users compile unmodified" "$detail"
		else
			result FAIL "c. the tree's UIO users compile unmodified" "$detail"
		fi
	else
		result FAIL "c. the tree's UIO users compile unmodified" \
			"could not configure/prepare ($version/compat-prepare.log)"
	fi

	# The tree's other UIO stubs keep their Kconfig entries and build
	# lines: allmodconfig gives every CONFIG_UIO_* of the tree's own
	# drivers/uio/Makefile the value it has in the pristine tree, and each
	# one that is =m builds as a module in drivers/uio.
	ba=$base/$bn-allmod
	bpa=$base/build-pristine-allmod
	if [ "$(cat "$ba/.uio-tree" 2>/dev/null)" != "$tree" ]; then
		rm -rf "$ba"
		mkdir -p "$ba"
		echo "$tree" > "$ba/.uio-tree"
	fi
	if make -s -C "$pristine" O="$bpa" allmodconfig > "$vlogs/allmod.log" 2>&1 &&
	   make -s -C "$tree" O="$ba" allmodconfig >> "$vlogs/allmod.log" 2>&1 &&
	   make -C "$tree" O="$ba" -j"$jobs" drivers/uio/ >> "$vlogs/allmod.log" 2>&1; then
		built= off= bad=
		for sym in $(sed -n 's/^obj-\$(CONFIG_\(UIO_[A-Z0-9_]*\)).*/\1/p' \
				"$pristine/drivers/uio/Makefile"); do
			obj=$(sed -n "s/^obj-\\\$(CONFIG_$sym)[[:space:]]*+=[[:space:]]*//p" \
				"$pristine/drivers/uio/Makefile")
			want=$(grep "^CONFIG_$sym=" "$bpa/.config")
			have=$(grep "^CONFIG_$sym=" "$ba/.config")
			if [ "$want" != "$have" ]; then
				bad="$bad $sym(${have:-unset}, $version: ${want:-unset})"
			elif [ "$have" = "CONFIG_$sym=m" ] && [ -f "$ba/drivers/uio/$obj" ]; then
				built="$built ${obj%.o}"
			elif [ -z "$have" ]; then
				off="$off ${obj%.o}"
			else
				bad="$bad $sym(not built)"
			fi
		done
		detail="$(echo $built | wc -w) =m and built:$built"
		[ -n "$off" ] && detail="$detail; not selectable on x86_64, as in $version:$off"
		if [ -z "$bad" ] && [ -n "$built" ]; then
			result PASS "c. the tree's UIO stubs keep Kconfig and build (allmodconfig)" "$detail"
		else
			result FAIL "c. the tree's UIO stubs keep Kconfig and build (allmodconfig)" \
				"differ:$bad; $detail ($version/allmod.log)"
		fi
	else
		result FAIL "c. the tree's UIO stubs keep Kconfig and build (allmodconfig)" \
			"allmodconfig or make drivers/uio/ failed ($version/allmod.log)"
	fi

	# --- d. the suite on the debug kernel ---------------------------
	sdir=$tree/tools/testing/selftests
	if make -C "$sdir" TARGETS=uio LDFLAGS=-static > "$vlogs/kselftest-build.log" 2>&1; then
		progs=$(make -s -C "$sdir/uio" --eval='uio-progs: ; @echo $(TEST_GEN_PROGS)' uio-progs | xargs -n1 basename)
		result PASS "d. kselftest build (TARGETS=uio, lib.mk, static)" "$(echo $progs)"
	else
		progs=
		result FAIL "d. kselftest build (TARGETS=uio, lib.mk, static)" "see $version/kselftest-build.log"
	fi

	if [ -n "$bzimage" ] && [ -n "$progs" ]; then
		stage=$vlogs/guest
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
			"$here/with-ivshmem.sh" "$vlogs/ivshmem.sock" \
			"$here/boot.sh" "debug-$version" "$stage/initramfs.cpio.gz" \
			"$vlogs/guest.log"
		# Boot banners that name a checker without reporting anything.
		grep -v -e 'kmemleak: Kernel memory leak detector initialized' \
			-e 'rcu: 	RCU lockdep checking is enabled\.' \
			"$vlogs/guest.log" > "$vlogs/guest-filtered.log"
		python3 "$here/report.py" "debug-$version=$vlogs/guest-filtered.log" \
			> "$vlogs/guest.tap"
		tally=$(tail -n1 "$vlogs/guest.tap")
		leaks=$(sed -n '/^=== KMEMLEAK BEGIN/,/^=== KMEMLEAK END/p' "$vlogs/guest.log" |
			grep -c 'unreferenced object')
		reports=$(grep -c 'kernel log:' "$vlogs/guest.tap")
		rmmod=$(grep -c '=== RMMOD FAILED' "$vlogs/guest.log")
		detail="$tally; $reports kernel reports, $leaks kmemleak leaks, $rmmod rmmod failures; $(( $(date +%s) - bstart )) s"
		if grep -q ' 0 failed' "$vlogs/guest.tap" && [ "$rmmod" -eq 0 ] &&
		   grep -q '^=== KMEMLEAK END' "$vlogs/guest.log"; then
			result PASS "d. suite on the debug kernel" "$detail"
		else
			result FAIL "d. suite on the debug kernel" "$detail ($version/guest.tap)"
		fi
	else
		result FAIL "d. suite on the debug kernel" "nothing to boot"
	fi

	# --- e. checkpatch, kernel-doc, sparse, W=1 ----------------------
	files=$(cd "$top" && git ls-files -- 'drivers/uio/*' include/linux/uio_driver.h \
		'tools/testing/selftests/uio/uio_test_mod/*.c' \
		'tools/testing/selftests/uio/*.c' 'tools/testing/selftests/uio/*.h' \
		'tools/testing/selftests/uio/**/*.c' 'tools/testing/selftests/uio/**/*.h' |
		grep -v '^tools/testing/selftests/uio/host/' | sort -u)
	nfiles=0 bad=0
	: > "$vlogs/checkpatch.log"
	# Only what the tree has (bench/ is not part of the series). In the
	# 6.12 tree, a git repository, checkpatch also runs its SPDX check,
	# with Debian's python3 as in check_series.
	files=$(for f in $files; do [ -f "$tree/$f" ] && echo "$f"; done)
	for f in $files; do
		nfiles=$((nfiles + 1))
		ignore=
		case "$f" in
		drivers/uio/uio_fops.c)
			# write() of a stub without irqcontrol: the ABI.
			ignore="--ignore ENOSYS" ;;
		*/uio_test_mod/* | */bench/*_stub.c) ;;
		tools/testing/selftests/uio/*)
			# User space: MMIO through a mapping has no kernel
			# accessors, and the tests assert the ENOSYS of the
			# write() ABI.
			ignore="--ignore VOLATILE,ENOSYS" ;;
		esac
		out=$(cd "$tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --no-summary \
			--terse --show-types $ignore -f "$f" 2>&1)
		if [ -n "$out" ]; then
			bad=$((bad + 1))
			echo "$out" >> "$vlogs/checkpatch.log"
		fi
	done
	# The howto's kernel examples are code people copy: hold them to it.
	"$here/howto-check.sh" --extract "$vlogs/howto" 2>> "$vlogs/checkpatch.log"
	for f in $(awk '$1 == "kernel" { print $2 }' "$vlogs/howto/examples"); do
		nfiles=$((nfiles + 1))
		out=$(cd "$tree" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --no-summary \
			--terse --show-types --no-tree -f "$vlogs/howto/$f" 2>&1)
		if [ -n "$out" ]; then
			bad=$((bad + 1))
			echo "$out" >> "$vlogs/checkpatch.log"
		fi
	done
	issues=$(grep -c ': \(ERROR\|WARNING\|CHECK\):' "$vlogs/checkpatch.log")
	detail="$nfiles files (incl. howto examples), $issues errors/warnings/checks; exceptions: --ignore ENOSYS for drivers/uio/uio_fops.c (write() ABI), VOLATILE,ENOSYS for user-space selftests"
	if [ "$bad" -eq 0 ]; then
		result PASS "e. checkpatch.pl --strict" "$detail"
	else
		result FAIL "e. checkpatch.pl --strict" "$detail ($version/checkpatch.log)"
	fi

	kdoc=$(echo "$files" | grep '\.[ch]$' | grep -v '_test\.c$')
	(cd "$tree" && KBUILD_EXTRA_WARN=2 scripts/kernel-doc -none $kdoc) \
		> "$vlogs/kernel-doc.log" 2>&1
	n=$(grep -c -i 'warning\|error' "$vlogs/kernel-doc.log")
	if [ "$n" -eq 0 ]; then
		result PASS "e. kernel-doc -none" "$(echo "$kdoc" | wc -l) files, 0 warnings"
	else
		result FAIL "e. kernel-doc -none" "$n warnings ($version/kernel-doc.log)"
	fi

	# Sparse and W=1 on drivers/uio in both builds, and on the test module.
	tmod=$tree/tools/testing/selftests/uio/uio_test_mod
	for mode in C=2 W=1; do
		name=$(echo "$mode" | sed 's/C=2/sparse/;s/W=1/W1/')
		: > "$vlogs/$name.log"
		ok=1
		if [ -n "$build_y" ]; then
			make -C "$tree" O="$by" $mode drivers/uio/ >> "$vlogs/$name.log" 2>&1 || ok=
		fi
		if [ -n "$bdebug" ]; then
			make -C "$tree" O="$bdebug" $mode drivers/uio/ >> "$vlogs/$name.log" 2>&1 || ok=
			if [ -n "$bp" ]; then
				make -C "$bdebug" M="$tmod" NOSTDINC_FLAGS="-nostdinc $bp" \
					$mode modules >> "$vlogs/$name.log" 2>&1 || ok=
			else
				make -C "$bdebug" M="$tmod" $mode modules \
					>> "$vlogs/$name.log" 2>&1 || ok=
			fi
		fi
		n=$(count_warnings "$vlogs/$name.log")
		what="make $mode: drivers/uio (UIO=y and =m), uio_test_mod"
		if [ -n "$ok" ] && [ -n "$build_y" ] && [ -n "$bdebug" ] && [ "$n" -eq 0 ]; then
			result PASS "e. $what" "0 warnings"
		else
			missed=
			[ -n "$build_y" ] || missed="$missed, no UIO=y build"
			[ -n "$bdebug" ] || missed="$missed, no debug build"
			result FAIL "e. $what" "$n warnings/errors$missed ($version/$name.log)"
		fi
	done
	# The objects back to the ordinary flags for the next incremental run.
	[ -n "$build_y" ] && make -s -C "$tree" O="$by" drivers/uio/ > /dev/null 2>&1
	vmin=$(( ($(date +%s) - vstart) / 60 ))
	times="$times${times:+,} $version: $vmin min"
	log "done in $vmin min"
}

version=all
times=
"$here/deps.sh" merge >&2 || result FAIL "install packages (deps.sh merge)" "see the output above"
for version in $versions; do
	check_version
done
finish
