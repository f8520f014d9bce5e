#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The git repository the upstream series is made in and applied to, and
# print its path:
#   series-repo.sh
# A copy of pristine linux-source-6.12 (merge-tree.sh --pristine) with
# one commit, tagged "pristine", made once per tarball under $UIO_CACHE
# (default /var/cache/uio-dev). patches.sh commits the series onto it
# without touching its working tree; series-apply.sh applies the series
# there with git am.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
pristine=$("$here/merge-tree.sh" --pristine 6.12)
repo=$(dirname "$pristine")/series

if [ ! -f "$repo/.git/uio-ready" ]; then
	echo "# series-repo: committing $pristine (once)" >&2
	tmp=$(mktemp -d "$repo.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp -a "$pristine/." "$tmp/"
	(
		cd "$tmp"
		git init -q
		git config user.name "Linux 6.12"
		git config user.email "pristine@localhost"
		# The tarball as it is, also what its .gitignore files name.
		git add -A -f .
		GIT_AUTHOR_DATE=2000-01-01T00:00:00Z \
			GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
			git commit -q -m "Linux $(make -s kernelversion)"
		git tag pristine
		touch .git/uio-ready
	)
	# A concurrent run may have got there first: its copy is as good.
	mv -T "$tmp" "$repo" 2>/dev/null || rm -rf "$tmp"
fi
echo "$repo"
