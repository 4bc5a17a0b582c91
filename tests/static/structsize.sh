#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/architecture.md's rule: no struct of src/ with more than 40 members
# (a command's context is split into its options, its run state and its
# results, each a struct of its own).  A declaration `T a, b, c;` is three.
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
MAX=${STRUCT_MAX:-40}
out=$(find "$SRC/src" -name '*.[ch]' | sort | xargs awk -v max="$MAX" '
function members(line,   d, i, ch, n) {
	d = 0; n = 1
	for (i = 1; i <= length(line); i++) {
		ch = substr(line, i, 1)
		if (ch == "(" || ch == "[" || ch == "{") d++
		else if (ch == ")" || ch == "]" || ch == "}") d--
		else if (ch == "," && d == 0) n++
	}
	return n
}
FNR == 1 { depth = 0; inside = 0 }
{
	line = $0
	sub(/\/\*.*\*\//, "", line); sub(/\/\/.*/, "", line)
	if (!inside && line ~ /^(typedef )?struct [A-Za-z_0-9]+ *\{/ && line !~ /=/) {
		inside = 1; depth = 0; cnt = 0; sname = line; sub(/ *\{.*/, "", sname); start = FNR
		acc = ""
	}
	if (!inside) next
	o = gsub(/\{/, "{", line); cl = gsub(/\}/, "}", line)
	if (depth == 1 && line ~ /;[ \t]*$/) {
		acc = acc line
		cnt += members(acc); acc = ""
	} else if (depth == 1 && line !~ /^[ \t]*$/ && line !~ /^[ \t]*\/?\*/)
		acc = acc line
	depth += o - cl
	if (depth <= 0 && FNR > start) {
		if (cnt > max) print FILENAME ":" start ": " sname " has " cnt " members (at most " max ")"
		inside = 0
	}
}')
[ -z "$out" ] || die "structs too large (split into options, run state, results; docs/architecture.md):
$(echo "$out" | sed "s|$SRC/||")"
echo "ok: no struct of src/ over $MAX members"
