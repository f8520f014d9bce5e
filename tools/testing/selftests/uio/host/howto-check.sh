#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Check that Documentation/uio-howto.txt is valid reStructuredText
# (docutils reports not even a warning: it goes into the kernel's
# Documentation/driver-api/ as uio-howto.rst) and compile every example
# in it; print TAP.
#   howto-check.sh [--keep DIR] [--extract DIR]
#
# The howto is reStructuredText; an example is the literal block between
# a comment line ".. example KIND FILE" and a comment line ".. end", its
# code lines indented by one tab; the "::" line that opens the block and
# blank lines around the code are not part of it. Blocks with the same
# FILE are concatenated. KIND is
#   kernel  built as an out-of-tree module against the headers of the
#           first kernel of $KERNELS (default 6.12), with our include/
#           and backport/include first (as drivers/uio/Makefile
#           does), W=1 and -Werror
#   user    built with gcc -Wall -Wextra -Werror and linked
#   sh      checked with sh -n
# --extract DIR only writes the files to DIR (merge-check.sh runs
# checkpatch on them); --keep DIR builds in DIR instead of a temporary
# directory and leaves it behind.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
doc=$top/Documentation/uio-howto.txt
work=
extract_only=
case "${1:-}" in
--keep)		work=$2 ;;
--extract)	work=$2; extract_only=1 ;;
"")		;;
*)		echo "usage: $0 [--keep DIR | --extract DIR]" >&2; exit 1 ;;
esac
if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# Split the document: write each block to $work/<file> and list
# "<kind> <file>" in $work/examples, once per file; unterminated or
# unindented blocks are errors.
awk -v dir="$work" '
function fail(msg) { printf "%s:%d: %s\n", FILENAME, NR, msg > "/dev/stderr"; bad = 1; exit 1 }
/^\.\. example [a-z]+ [A-Za-z0-9_.-]+$/ {
	if (file != "") fail("example inside example")
	kind = $3; file = $4; started = 0; blanks = 0
	if (kind != "kernel" && kind != "user" && kind != "sh")
		fail("unknown example kind " kind)
	if (!(file in seen)) {
		seen[file] = kind
		print kind, file > (dir "/examples")
		printf "" > (dir "/" file)
	} else if (seen[file] != kind) {
		fail(file " used with two kinds")
	}
	next
}
/^\.\. end$/ {
	if (file == "") fail(".. end outside an example")
	if (!started) fail("example " file " has no code")
	close(dir "/" file); file = ""; next
}
file != "" && !started && $0 == "::" { next }
file != "" {
	# Blank lines count only between code lines.
	if ($0 == "") { blanks++; next }
	if (substr($0, 1, 1) != "\t") fail("example line not indented by a tab")
	if (started)
		for (; blanks > 0; blanks--) print "" >> (dir "/" file)
	blanks = 0; started = 1
	print substr($0, 2) >> (dir "/" file)
}
END {
	if (!bad && file != "") fail("example " file " not terminated")
}' "$doc"

[ -n "$extract_only" ] && exit 0

n=$(( $(wc -l < "$work/examples") + 1 ))
# Against the headers of the first kernel of $KERNELS (default 6.12).
set -- ${KERNELS:-6.12}
krel=$("$here/kernel.sh" "$1")
kdir=/usr/src/linux-headers-$krel
i=0
failed=0

echo "TAP version 13"
echo "1..$n"

report() {
	i=$((i + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $i $2"
	else
		echo "not ok $i $2"
		sed 's/^/# /' "$work/log"
		failed=$((failed + 1))
	fi
}

rc=0
rst2pseudoxml --report=warning --exit-status=warning "$doc" /dev/null \
	> "$work/log" 2>&1 || rc=$?
report $rc "howto: valid reStructuredText (docutils, no warnings)"

while read -r kind file; do
	case $kind in
	kernel)
		mod=$work/kernel-${file%.c}
		mkdir -p "$mod"
		cp "$work/$file" "$mod/"
		cat > "$mod/Makefile" <<-EOF
		LINUXINCLUDE := -I$top/include -I$top/backport/include \$(LINUXINCLUDE)
		ccflags-y := -Werror
		obj-m := ${file%.c}.o
		EOF
		rc=0
		make -C "$kdir" M="$mod" W=1 modules > "$work/log" 2>&1 || rc=$?
		# Any warning at all fails, also from modpost.
		if [ $rc -eq 0 ] && grep -qi 'warning' "$work/log"; then
			rc=1
		fi
		report $rc "howto: kernel example $file builds as a module ($krel)"
		;;
	user)
		rc=0
		gcc -Wall -Wextra -Werror -O2 -o "$work/${file%.c}" \
			"$work/$file" > "$work/log" 2>&1 || rc=$?
		report $rc "howto: user-space example $file compiles and links"
		;;
	sh)
		rc=0
		sh -n "$work/$file" > "$work/log" 2>&1 || rc=$?
		report $rc "howto: shell example $file parses"
		;;
	esac
done < "$work/examples"

[ "$failed" -eq 0 ]
