#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the host tests of tools/uio as one TAP stream:
#   run_tests.sh [<substring>]
# Each program's results are renumbered and prefixed with its name; a
# program that dies or breaks its own plan adds a "not ok" of its own.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/test_libuio" "$@" > "$tmp/libuio" 2>&1
echo $? > "$tmp/libuio.rc"
python3 "$here/test_lsuio.py" "$@" > "$tmp/lsuio" 2>&1
echo $? > "$tmp/lsuio.rc"

echo "TAP version 13"
awk -v dir="$tmp" '
function finish(prog, rc) {
	if (planned[prog] != seen[prog])
		emit(0, prog ": plan " planned[prog] ", ran " seen[prog])
	if (rc != 0 && bad[prog] == 0)
		emit(0, prog ": exited with status " rc)
}
function emit(ok, name) {
	n++
	if (!ok)
		failed++
	print (ok ? "ok " : "not ok ") n " - " name
}
FNR == 1 && NR > 1 { getline rc < (dir "/" prev ".rc"); finish(prev, rc) }
FNR == 1 { prog = FILENAME; sub(".*/", "", prog); prev = prog
	   planned[prog] = -1; seen[prog] = 0; bad[prog] = 0 }
/^TAP version/ { next }
/^1\.\.[0-9]+$/ { planned[prog] = substr($0, 4) + 0; next }
/^(not )?ok [0-9]+ - / {
	ok = $0 !~ /^not /
	name = $0
	sub(/^(not )?ok [0-9]+ - /, "", name)
	seen[prog]++
	if (!ok)
		bad[prog]++
	emit(ok, prog ": " name)
	next
}
{ print }
END {
	getline rc < (dir "/" prev ".rc"); finish(prev, rc)
	print "1.." n
	print "# " n - failed " passed, " failed + 0 " failed"
	exit failed ? 1 : 0
}' "$tmp/libuio" "$tmp/lsuio"
