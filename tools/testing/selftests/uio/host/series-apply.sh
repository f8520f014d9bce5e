#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Apply the series to pristine 6.12 the way a maintainer does:
#   series-apply.sh PATCHDIR [COMMAND]
# resets the working tree of series-repo.sh's repository to the tag
# "pristine" and applies PATCHDIR's numbered patches (not the cover
# letter) one by one with git am; after each, COMMAND runs in the tree
# with the patch file as its argument ("$1"). Stops at the first patch
# that does not apply or whose COMMAND fails, naming it. Prints the tree.
# Only files the series touches change, so builds in the tree stay
# incremental.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
dir=$(cd "$1" && pwd)
cmd=${2:-}
repo=$("$here/series-repo.sh")

cd "$repo"
git am --abort > /dev/null 2>&1 || true
git checkout -q -f --detach pristine
for p in "$dir"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	git am -q --keep-cr "$p" >&2 ||
		{ echo "series-apply: $(basename "$p") does not apply" >&2; exit 1; }
	if [ -n "$cmd" ]; then
		sh -c "$cmd" - "$p" >&2 ||
			{ echo "series-apply: after $(basename "$p"): command failed" >&2; exit 1; }
	fi
done
echo "$repo"
