#!/bin/sh
# SPDX-License-Identifier: MIT
# Run cmocka unit-test binaries: print cmocka's per-test lines (OK, SKIPPED,
# FAILED, with their ERROR/LINE details) and its summaries, prefixed with the
# binary's name, then a closing "unit: N passed, N failed, N skipped" line
# naming the skipped tests.  A binary that exits non-zero without a cmocka
# FAILED count (a crash, a sanitizer report) counts as one failure.
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="malloc_context_size=256${ASAN_OPTIONS:+:$ASAN_OPTIONS}"	# (fuzz/replay.sh says why)
pass=0; fail=0; skip=0; failed=""; skipped=""
for t in "$@"; do
	out=$(${UNIT_RUNNER:-} "$t" 2>&1); rc=$?
	b=$(basename "$t")
	echo "$out" | grep -E '^\[ +(OK|SKIPPED|FAILED|ERROR|LINE|PASSED) +\]|^\[==========\]' | sed "s|^|$b: |"
	n=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	s=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
	# per-test SKIPPED lines (not the summary's count line); the summary
	# repeats them, so take the first occurrence of each name
	names=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([^0-9 ][^ ]*\)$/\1/p' | awk '!seen[$0]++')
	for x in $names; do skipped="$skipped $b:$x"; done
	pass=$((pass + n)); fail=$((fail + f)); skip=$((skip + s))
	if [ $rc -ne 0 ]; then
		[ "$f" -gt 0 ] || fail=$((fail + 1))
		failed="$failed $b"
		echo "$out" | tail -40
	fi
done
echo "unit: $pass passed, $fail failed, $skip skipped"
[ -z "$skipped" ] || echo "skipped:$skipped"
[ $fail -eq 0 ] || { echo "failing:$failed"; exit 1; }
