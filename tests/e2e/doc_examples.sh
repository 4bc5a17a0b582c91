#!/bin/sh
# SPDX-License-Identifier: MIT
# Every example of README.md, docs/*.md and the man pages, extracted from the
# files (tests/doc_examples.py: a new example is tested by default) and run
# against this machine's kernel; the few changes the runner makes (2 s runs,
# Ctrl-C for commands that run until stopped, inputs an example names without
# making) are listed in tests/doc_examples.py.
. "$TESTS_DIR/lib.sh"
[ "$(id -u)" = 0 ] || skip "the examples trace: root needed"
command -v perf >/dev/null || skip "no perf (linux-perf): the examples record with it"
command -v python3 >/dev/null || skip "no python3"
ROOT=$(cd "$TESTS_DIR/.." && pwd)
LATSCOPE=$(readlink -f "$LATSCOPE") python3 "$TESTS_DIR/doc_examples.py" run "$ROOT" "$TMP/ex" > "$TMP/log" 2>&1
rc=$?
cat "$TMP/log"
[ $rc -eq 0 ] || die "documented examples failed: $(grep -c '^FAIL' "$TMP/log")"
