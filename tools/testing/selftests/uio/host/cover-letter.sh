#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The text of the series' cover letter, with today's figures:
#   cover-letter.sh COVER
# COVER holds the series file's opening text; after it come the
# differences from mainline in short (the howto's section 10), the test
# counts per kernel of the last `make check` (build/<release>/guest.log),
# the benchmark ratios of the last `make bench` (build/bench/summary.json,
# else "not measured"), the checkpatch exceptions and how to reproduce.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)

cat "$1"
cat <<'TEXT'

Differences from the old core that user space can see (the howto's
section "Differences from mainline" gives the reason and who could notice
for each):

TEXT
awk '/^10\. Differences from mainline$/ { on = 1; next }
     on && /^[0-9]+\. / { exit }
     !on { next }
     $1 == "behaviour" { sub(/^ *behaviour +/, ""); b = $0 }
     $1 == "why" { if (o != "") printf "- %s: %s\n", b, o; o = "" }
     $1 == "ours" { sub(/^ *ours +/, ""); o = $0; more = 1; next }
     $1 == "why" || $1 == "who" || $1 == "Linux" { more = 0 }
     more && /^   / { sub(/^ +/, ""); o = o " " $0 }' \
	"$top/Documentation/uio-howto.txt" | fold -s -w 72 |
	sed -e 's/ *$//' -e 's/^\([^-]\)/  \1/'
echo
echo "Tested with the kselftest suite of the last patch in QEMU guests"
echo "(make check), last run on this tree:"
echo
for k in $("$here/kernel.sh" --list); do
	krel=$("$here/kernel.sh" "$k" 2> /dev/null) || krel=
	log=$top/build/$krel/guest.log
	if [ -n "$krel" ] && [ -f "$log" ]; then
		echo "- $k ($krel): $(python3 "$here/report.py" "$k=$log" 2> /dev/null | tail -n 1)"
	else
		echo "- $k: not run"
	fi
done

echo
summary=$top/build/bench/summary.json
if [ -f "$summary" ]; then
	echo "Benchmark against the old core of the same kernel (make bench),"
	echo "median ratio ours/old per row; < 1 is faster for times, > 1 is"
	echo "better for rates:"
	echo
	python3 - "$summary" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for kid, k in sorted(s["kernels"].items()):
    for row in k["rows"].values():
        if row.get("median_ratio") is not None:
            print("- %s, %s: %.2f" % (kid, row["label"], row["median_ratio"]))
PY
else
	echo "Benchmark against the old core: not measured (no make bench run"
	echo "on this tree)."
fi

cat <<'TEXT'

checkpatch.pl --strict is clean on every patch but for these warnings:
it flags ENOSYS everywhere but for missing syscalls, and write() on
/dev/uioN of a stub without irqcontrol has returned ENOSYS since UIO
began (the ABI; the core and the tests that assert it keep it);
volatile in the user-space tests, which read device registers through a
mapping; and, on the core patch, files added and deleted without a
MAINTAINERS change, which the UIO entry's F: drivers/uio/ covers.

The core is one patch with its header: the old uio.c does not build
against the new struct uio_device, and a made-up intermediate uio.c
would be code nobody ran. The new core is still the module uio, built
from one file per job (registration and lifetime, sysfs, DMA buffers,
file operations, mmap), so the patch removes uio.c. Each message walks
through its files in order.

The series is for 6.12; the same code builds out of tree on 6.1 through
a small compat layer that is not part of it.

To reproduce, from the UIO repository: make check (the suite on Debian's
6.12 and 6.1 kernels, stock and PREEMPT_RT), make merge-check (this
series applied with git am to linux-source-6.12, every patch built,
checkpatch, sparse, W=1, the suite on a KASAN/lockdep/kmemleak kernel),
make bench, make patches.
TEXT
