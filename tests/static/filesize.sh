#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/architecture.md's rule: no source file of lib/ or src/ over 800 lines
# (a module that grows is split into <module>_<part>.c in a folder of its
# own, behind its _int.h).
. "$TESTS_DIR/lib.sh"
SRC=$(cd "$TESTS_DIR/.." && pwd)
over=$(find "$SRC/lib" "$SRC/src" -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 800 { print $2 ": " $1 " lines" }')
[ -z "$over" ] || die "over 800 lines (split the module, docs/architecture.md): $over"
n=$(find "$SRC/lib" "$SRC/src" -name '*.[ch]' | wc -l)
echo "ok: $n files of lib/ and src/, none over 800 lines"
