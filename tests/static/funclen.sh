#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/architecture.md's rule: no function of lib/ or src/ over 100 lines,
# counted from its opening brace to its closing one (both at column 0, the
# tree's style; a definition that opens its brace on its own line's end
# would hide from the count, so that is refused too).  100 lines is about
# two screens: past that a function is doing several steps that want names.
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
MAX=${FUNCLEN_MAX:-100}
out=$(find "$SRC/lib" "$SRC/src" -name '*.c' | sort | xargs awk -v max="$MAX" '
FNR == 1 { s = 0; name = "" }
/^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^(struct|enum|union|typedef|static const|const)[^(]*=/ { name = $0 }
/^[A-Za-z_][^=]*\)[ \t]*\{[ \t]*$/ && !/^(struct|enum|union|typedef|static const|const)[^(]*=/ {
	print FILENAME ":" FNR ": the opening brace of a function goes on a line of its own"
}
/^\{/ { s = FNR; fn = name }
/^\}/ && s {
	n = FNR - s + 1
	if (n > max) {
		sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn)
		print FILENAME ":" s ": " fn "() is " n " lines (at most " max ")"
	}
	s = 0
}')
n=$(find "$SRC/lib" "$SRC/src" -name '*.c' | xargs cat | grep -c '^{')
[ -z "$out" ] || die "functions too long (split them into named steps, docs/architecture.md):
$(echo "$out" | sed "s|$SRC/||")"
echo "ok: $n functions of lib/ and src/, none over $MAX lines"
