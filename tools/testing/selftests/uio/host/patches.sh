#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make patches`: the upstream series against pristine Linux 6.12, as a
# maintainer applies it (git am), and print its directory:
#   patches.sh [OUTDIR]          default build/patches
#
# Each step of host/series becomes one commit on the repository of
# series-repo.sh, made with git plumbing in a private index (the
# repository's working tree is left alone), with our tracked files as they
# are in the working tree; then git format-patch writes the numbered
# patches and a cover letter (cover-letter.sh) to OUTDIR. Author,
# committer and Signed-off-by are the identity of this repository's
# commits, the date that of its HEAD. OUTDIR/.key hashes every input, so
# a second run with the same inputs does nothing; OUTDIR/.tree is the
# tree of the last commit, which git am must reproduce.
#
# No 6.1 series: 6.1 lacks helpers the code uses (vm_flags_set(),
# pcim_iomap_region(), ...), which only backport/include supplies, and
# that layer stays out of any kernel tree; merge-check.sh keeps copying
# our files into 6.1.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../../.." && pwd)
series=$here/series
out=${1:-$top/build/patches}

die() { echo "patches: $*" >&2; exit 1; }

name=$(git -C "$top" log -1 --format=%an)
email=$(git -C "$top" log -1 --format=%ae)
date=$(git -C "$top" log -1 --format=%cI)
[ -n "$name" ] && [ -n "$email" ] || die "no commit identity in $top"
repo=$("$here/series-repo.sh")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Split the series file: $work/renames ("FROM TO"), $work/cover, and per
# step N: $work/N.subject, $work/N.files, $work/N.remove (if any),
# $work/N.body.
awk -v dir="$work" '
function fail(msg) { printf "%s:%d: %s\n", FILENAME, NR, msg > "/dev/stderr"; bad = 1; exit 1 }
/^#/ { next }
/^rename / { print $2, $3 > (dir "/renames"); next }
/^cover$/ { where = dir "/cover"; printf "" > where; next }
/^patch / {
	n++; where = dir "/" n ".body"; printf "" > where
	sub(/^patch /, ""); print > (dir "/" n ".subject"); next
}
/^files / {
	if (!n) fail("files before the first patch")
	sub(/^files /, ""); print > (dir "/" n ".files"); next
}
/^remove / {
	if (!n) fail("remove before the first patch")
	sub(/^remove /, ""); print > (dir "/" n ".remove"); next
}
/^\t/ || /^$/ {
	if (where == "") { if ($0 != "") fail("text outside a step"); next }
	sub(/^\t/, ""); print >> where; next
}
{ fail("unknown line") }
END { if (!bad) print n > (dir "/count") }' "$series"
touch "$work/renames"
steps=$(cat "$work/count")

# rewrite: our file's content on stdin, with every rename applied.
rewrite() {
	_sed=
	while read -r from to; do
		_sed="$_sed -e s|$from|$to|g"
	done < "$work/renames"
	if [ -n "$_sed" ]; then sed $_sed; else cat; fi
}

# dest <path>: where our file goes in the tree.
dest() {
	_to=$(awk -v f="$1" '$1 == f { print $2 }' "$work/renames")
	echo "${_to:-$1}"
}

# The files of step N, one a line (MAINTAINERS as is), to $work/N.list.
step_files() {
	_specs=
	: > "$work/$1.list"
	for _p in $(cat "$work/$1.files"); do
		if [ "$_p" = MAINTAINERS ]; then
			echo MAINTAINERS >> "$work/$1.list"
		else
			_specs="$_specs $_p"
		fi
	done
	[ -n "$_specs" ] || return 0
	(cd "$top" && git ls-files --cached -- $_specs) | while read -r _f; do
		[ -f "$top/$_f" ] && echo "$_f"
	done >> "$work/$1.list"
}

# The key: every input of the output.
i=1
{
	cat "$0" "$series" "$here/cover-letter.sh" "$top/MAINTAINERS.patch" \
		"$top/Documentation/uio-howto.txt"
	echo "$name <$email> $date $repo"
	while [ "$i" -le "$steps" ]; do
		step_files "$i"
		while read -r f; do
			echo "$f"
			[ "$f" = MAINTAINERS ] || cat "$top/$f"
		done < "$work/$i.list"
		i=$((i + 1))
	done
	"$here/cover-letter.sh" "$work/cover"
} > "$work/inputs"
key=$(sha256sum < "$work/inputs" | cut -c1-16)
if [ "$(cat "$out/.key" 2> /dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi

# The tree's MAINTAINERS with the UIO entry of MAINTAINERS.patch in place
# of its own, listing only F: paths the index holds.
maintainers() {
	sed -n '/^+USERSPACE I\/O (UIO)$/,/^+$/{s/^+//;p}' "$top/MAINTAINERS.patch" |
		rewrite | sed '/^$/d' > "$work/entry"
	: > "$work/entry.now"
	while IFS= read -r l; do
		case $l in
		F:*)
			_path=${l#F:}
			_path=$(echo $_path)
			[ -n "$(git ls-files -- "${_path%/}")" ] || continue ;;
		esac
		echo "$l" >> "$work/entry.now"
	done < "$work/entry"
	git show pristine:MAINTAINERS | awk -v entry="$work/entry.now" '
		$0 == "USERSPACE I/O (UIO)" { skip = 1
			while ((getline l < entry) > 0) print l
			next }
		skip && $0 == "" { skip = 0 }
		!skip { print }'
}

cd "$repo"
export GIT_INDEX_FILE="$work/index"
export GIT_AUTHOR_NAME="$name" GIT_AUTHOR_EMAIL="$email" GIT_AUTHOR_DATE="$date"
export GIT_COMMITTER_NAME="$name" GIT_COMMITTER_EMAIL="$email" GIT_COMMITTER_DATE="$date"
git read-tree pristine
commit=$(git rev-parse pristine)
i=1
while [ "$i" -le "$steps" ]; do
	[ -s "$work/$i.list" ] || die "step $i ($(cat "$work/$i.subject")): no files"
	while read -r f; do
		[ "$f" = MAINTAINERS ] && continue
		mode=100644
		[ -x "$top/$f" ] && mode=100755
		blob=$(rewrite < "$top/$f" | git hash-object -w --stdin)
		git update-index --add --cacheinfo "$mode,$blob,$(dest "$f")"
	done < "$work/$i.list"
	if [ -f "$work/$i.remove" ]; then
		for f in $(cat "$work/$i.remove"); do
			git ls-files --error-unmatch -- "$f" > /dev/null 2>&1 ||
				die "step $i: remove $f: not in the tree"
			git update-index --force-remove -- "$f"
		done
	fi
	if grep -qx MAINTAINERS "$work/$i.list"; then
		blob=$(maintainers | git hash-object -w --stdin)
		git update-index --cacheinfo "100644,$blob,MAINTAINERS"
	fi
	{
		cat "$work/$i.subject"
		echo
		cat "$work/$i.body"
		echo
		echo "Signed-off-by: $name <$email>"
	} | git stripspace > "$work/msg"
	tree=$(git write-tree)
	[ "$tree" != "$(git rev-parse "$commit^{tree}")" ] ||
		die "step $i ($(cat "$work/$i.subject")) changes nothing"
	commit=$(git commit-tree "$tree" -p "$commit" -F "$work/msg")
	i=$((i + 1))
done
unset GIT_INDEX_FILE

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
git format-patch -q --cover-letter --base=pristine -o "$out.tmp" "pristine..$commit"
"$here/cover-letter.sh" "$work/cover" > "$work/blurb"
cover=$out.tmp/0000-cover-letter.patch
awk -v blurb="$work/blurb" '
	/\*\*\* SUBJECT HERE \*\*\*/ {
		sub(/\*\*\* SUBJECT HERE \*\*\*/,
		    "uio: a core that survives unplug, MSI/MSI-X for uio_pci_generic")
	}
	$0 == "*** BLURB HERE ***" {
		while ((getline l < blurb) > 0) print l
		next
	}
	{ print }' "$cover" > "$cover.new"
mv "$cover.new" "$cover"
git rev-parse "$commit^{tree}" > "$out.tmp/.tree"
echo "$key" > "$out.tmp/.key"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "$out"
