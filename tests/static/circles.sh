#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/architecture.md's rule for the commands: no circle among the files
# of src/.  A file uses another when its object file needs a symbol the
# other defines (nm); a command's entry hands over to its subcommands and
# they share helpers below them, never the other way round.  tsort fails
# on a loop and names its files.
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
BUILD=$(cd "$(dirname "$LATSCOPE")" && pwd)
command -v nm > /dev/null && command -v tsort > /dev/null || skip "no nm or tsort (binutils, coreutils)"
: > "$TMP/def"; : > "$TMP/use"
n=0
for c in $(cd "$SRC" && find src -name '*.c' | sort); do
	o=$BUILD/${c%.c}.o
	[ -f "$o" ] || die "$o not built (make all first)"
	n=$((n + 1))
	nm -g --defined-only "$o" | awk -v f="$c" '$2 ~ /^[TDBR]$/ { print $3, f }' >> "$TMP/def"
	nm -u "$o" | awk -v f="$c" '{ print $NF, f }' >> "$TMP/use"
done
# "definer user" pairs: the definer comes first in a topological order
sort -k1,1 "$TMP/def" > "$TMP/def.s"; sort -k1,1 "$TMP/use" > "$TMP/use.s"
join "$TMP/def.s" "$TMP/use.s" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$TMP/edges"
tsort "$TMP/edges" > /dev/null 2> "$TMP/loops" ||
	die "files of src/ use each other in a circle: $(grep -v 'input contains a loop' "$TMP/loops" | sed 's/^tsort: //' | tr '\n' ' ')"
[ ! -s "$TMP/loops" ] || die "files of src/ use each other in a circle: $(tr '\n' ' ' < "$TMP/loops")"
# the check sees what it looks for: a made-up pair that uses each other
printf 'a b\nb a\n' > "$TMP/loop"
! tsort "$TMP/loop" > /dev/null 2>&1 || die "tsort did not see a loop"
echo "ok: $n files of src/, $(wc -l < "$TMP/edges") uses between them, no circle"
